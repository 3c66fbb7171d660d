# The fleet's command-line specs: --spike, --outage, --start, --profile, --trace-part.
add_executable(fuzz_fleet_events fuzz_fleet_events.cpp)
target_link_libraries(fuzz_fleet_events PRIVATE doppler_fleet_world)
target_compile_options(fuzz_fleet_events PRIVATE -fsanitize=fuzzer)
target_link_options(fuzz_fleet_events PRIVATE -fsanitize=fuzzer)

# core/fleet/world's parsers: topology files and Azure trace CSV (one target, first byte picks).
add_executable(fuzz_fleet_world fuzz_fleet_world.cpp)
target_link_libraries(fuzz_fleet_world PRIVATE doppler_fleet_world)
target_compile_options(fuzz_fleet_world PRIVATE -fsanitize=fuzzer)
target_link_options(fuzz_fleet_world PRIVATE -fsanitize=fuzzer)

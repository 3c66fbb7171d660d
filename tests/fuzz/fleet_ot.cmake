# The transport problem reader of `doppler fleet ot` (core/fleet/ot).
add_executable(fuzz_fleet_ot ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_fleet_ot.cpp)
target_link_libraries(fuzz_fleet_ot PRIVATE doppler_fleet_ot)
target_compile_options(fuzz_fleet_ot PRIVATE -fsanitize=fuzzer)
target_link_options(fuzz_fleet_ot PRIVATE -fsanitize=fuzzer)

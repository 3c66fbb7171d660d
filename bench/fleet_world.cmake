# core/fleet/world: trace parsing, world building on cost266, demand spreading.
add_executable(fleet_world_bench fleet_world_bench.cpp)
target_link_libraries(fleet_world_bench PRIVATE doppler_fleet_world benchmark::benchmark)

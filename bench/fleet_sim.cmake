# core/fleet/sim: both simulators on cost266, OT per slot, one MILP slot.
add_executable(fleet_sim_bench fleet_sim_bench.cpp)
target_link_libraries(fleet_sim_bench PRIVATE doppler_fleet_sim benchmark::benchmark)

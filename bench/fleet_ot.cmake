# Optimal transport per fleet timeslot: exact, Sinkhorn and unbalanced on 10x10, 40x40 and
# cost266 (37 regions, read from resources/ when present).
add_executable(fleet_ot_bench ${CMAKE_CURRENT_SOURCE_DIR}/fleet_ot_bench.cpp)
target_link_libraries(fleet_ot_bench PRIVATE doppler_fleet_ot benchmark::benchmark)
target_compile_definitions(fleet_ot_bench PRIVATE DOPPLER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

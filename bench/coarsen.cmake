# Coarsening a 20,000-node graph to 300 groups (goal: well under 100 ms), with and without name
# scopes.
add_executable(coarsen_bench ${CMAKE_CURRENT_SOURCE_DIR}/coarsen_bench.cpp)
target_link_libraries(coarsen_bench PRIVATE doppler_graph benchmark::benchmark)

# The executor's scheduling overhead per node against 100 us kernels (core/exec).
add_executable(exec_bench exec_bench.cpp)
target_link_libraries(exec_bench PRIVATE doppler_exec benchmark::benchmark)

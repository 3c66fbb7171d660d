# core/train/distributed.h: data-parallel workers on LibTorch's c10d, tested on loopback with real
# processes (dp_worker, tests/train/dp_worker_main.cpp, started by the tests). Included inside
# if(DOPPLER_TORCH).
add_executable(dp_worker train/dp_worker_main.cpp)
target_link_libraries(dp_worker PRIVATE doppler_train_dist)
doppler_test(distributed_tests SOURCES
  train/distributed_test.cpp
  LIBS doppler_train_dist)
target_compile_definitions(distributed_tests PRIVATE DOPPLER_DP_WORKER="$<TARGET_FILE:dp_worker>")
add_dependencies(distributed_tests dp_worker)

# core/exec: real execution (threads, copies, disciplines) and `doppler exec` end to end.
doppler_test(exec_tests SOURCES
  exec/executor_test.cpp
  LIBS doppler_exec nlohmann_json::nlohmann_json)
add_dependencies(exec_tests doppler)

# The LibTorch CPU kernels and `doppler calibrate` (they open the module this build makes).
if(DOPPLER_TORCH)
  doppler_test(torch_exec_tests SOURCES
    exec/torch_exec_test.cpp
    LIBS nlohmann_json::nlohmann_json)
  target_compile_definitions(torch_exec_tests PRIVATE
    DOPPLER_TORCH_MODULE_PATH="$<TARGET_FILE:doppler_torch>")
  add_dependencies(torch_exec_tests doppler doppler_torch)
endif()

# The CUDA backend, built with or without CUDA: its plan (plain C++), the no-GPU and no-CUDA
# errors, and with a GPU the kernels end to end (they skip, naming the reason, without one). Made
# like doppler_test, but with the test names prefixed "cuda." so `ctest -R cuda` selects them all
# (scripts/gpu/cuda_check.sh).
add_executable(cuda_exec_tests
  exec/cuda_plan_test.cpp
  exec/cuda_backend_test.cpp
  exec/cuda_cli_test.cpp)
target_link_libraries(cuda_exec_tests PRIVATE
  doppler_exec nlohmann_json::nlohmann_json doppler_test_support GTest::gtest_main)
target_compile_definitions(cuda_exec_tests PRIVATE
  DOPPLER_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  DOPPLER_CLI="$<TARGET_FILE:doppler>"
  DOPPLER_EXPECT_CUDA=$<BOOL:${DOPPLER_CUDA_BUILT}>)
add_dependencies(cuda_exec_tests doppler)
gtest_discover_tests(cuda_exec_tests TEST_PREFIX "cuda." DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${DOPPLER_TEST_TIMEOUT})

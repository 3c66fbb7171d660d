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

# core/exec: real execution (threads, copies, disciplines) and `doppler exec` end to end.
doppler_test(exec_tests SOURCES
  exec/executor_test.cpp
  LIBS doppler_exec nlohmann_json::nlohmann_json)
add_dependencies(exec_tests doppler)

# `doppler train --general --graphs` with graph files and directories: the training
# distribution's given graphs (plain C++) and the command end to end, recorded in a real run store.
# Built in every configuration: the tests that train need the LibTorch module and are skipped
# without it (DOPPLER_TEST_TORCH); refusals of bad input and the mutated-file runs test everywhere.
doppler_test(general_graphs_tests SOURCES
  train/training_graphs_test.cpp
  train/general_graphs_cli_test.cpp
  LIBS doppler_train doppler_sessions nlohmann_json::nlohmann_json)
add_dependencies(general_graphs_tests doppler)
if(DOPPLER_TORCH)
  target_compile_definitions(general_graphs_tests PRIVATE DOPPLER_TEST_TORCH)
  add_dependencies(general_graphs_tests doppler_torch)
endif()

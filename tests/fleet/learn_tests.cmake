# core/fleet/learn: TORTA's learned layer (docs/fleet_learn.md).
doppler_test(fleet_learn_tests SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/learn_test.cpp
  LIBS doppler_fleet_learn)

if(DOPPLER_TORCH)
  # The networks, checkpoints and PPO (LibTorch), and `doppler fleet train|compare` end to end.
  doppler_test(fleet_learn_torch_tests SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/learn_torch_test.cpp
    LIBS doppler_fleet_learn_torch)
  doppler_test(fleet_learn_cli_tests SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/learn_cli_test.cpp
    LIBS nlohmann_json::nlohmann_json)
  add_dependencies(fleet_learn_cli_tests doppler doppler_torch)
endif()

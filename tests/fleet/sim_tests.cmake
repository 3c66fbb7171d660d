# core/fleet/sim: the simulators, metrics, baselines and harness (docs/fleet_sim.md).
doppler_test(fleet_sim_tests SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_slot_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_outage_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_request_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_baselines_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_agreement_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_cancel_test.cpp
  LIBS doppler_fleet_sim)

# `doppler fleet simulate` and `doppler fleet compare` end to end (needs the doppler binary).
doppler_test(fleet_sim_cli_tests SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_cli_test.cpp
  LIBS nlohmann_json::nlohmann_json)
add_dependencies(fleet_sim_cli_tests doppler)

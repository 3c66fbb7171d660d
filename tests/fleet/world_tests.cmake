# core/fleet/world: topologies, latency, GPU catalogue, regions, traces, demand (docs/fleet.md).
doppler_test(fleet_world_tests SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/world_topology_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_latency_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_gpu_catalog_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_regions_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_trace_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_demand_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_calendar_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/world_garbage_test.cpp
  LIBS doppler_fleet_world doppler_fleet_sim)  # the calendar test builds scenarios with the harness

# `doppler fleet world` end to end: a separate program, since it needs the doppler binary built.
doppler_test(fleet_world_cli_tests SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/world_cli_test.cpp
  LIBS doppler_fleet_world nlohmann_json::nlohmann_json)
add_dependencies(fleet_world_cli_tests doppler)

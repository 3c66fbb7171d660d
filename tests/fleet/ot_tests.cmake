# core/fleet/ot: the solvers and the problem reader (ot_test.cpp), and `doppler fleet ot` run as
# a real process (ot_cli_test.cpp).
doppler_test(fleet_ot_tests SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/ot_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/ot_cli_test.cpp
  LIBS doppler_fleet_ot)
add_dependencies(fleet_ot_tests doppler)

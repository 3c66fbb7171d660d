# The fleet workbench in the studio (included from tests/CMakeLists.txt inside its DOPPLER_GUI
# block, before the Qt tests get their offscreen environment).
add_executable(fleet_studio_tests ${CMAKE_CURRENT_LIST_DIR}/fleet_test.cpp)
set_target_properties(fleet_studio_tests PROPERTIES AUTOMOC ON)
target_link_libraries(fleet_studio_tests PRIVATE doppler_studio Qt6::Test)
add_test(NAME studio.fleet COMMAND fleet_studio_tests)
list(APPEND doppler_qt_tests studio.fleet)
if(DOPPLER_TORCH)
  # Train and the learned method run in the LibTorch module the test points at.
  target_compile_definitions(fleet_studio_tests PRIVATE DOPPLER_TORCH_MODULE_PATH="$<TARGET_FILE:doppler_torch>")
  add_dependencies(fleet_studio_tests doppler_torch)
endif()

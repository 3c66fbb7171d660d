# Run > Execute on CPU in the studio (included from tests/CMakeLists.txt inside its DOPPLER_GUI
# block, before the Qt tests get their offscreen environment).
add_executable(execute_tests ${CMAKE_CURRENT_LIST_DIR}/execute_test.cpp)
set_target_properties(execute_tests PROPERTIES AUTOMOC ON)
target_link_libraries(execute_tests PRIVATE doppler_studio Qt6::Test)
add_test(NAME studio.execute COMMAND execute_tests)
list(APPEND doppler_qt_tests studio.execute)
if(DOPPLER_TORCH)
  # Graphs with op kinds execute with the LibTorch kernels, from the module the test points at.
  target_compile_definitions(execute_tests PRIVATE DOPPLER_TORCH_MODULE_PATH="$<TARGET_FILE:doppler_torch>")
  add_dependencies(execute_tests doppler_torch)
endif()

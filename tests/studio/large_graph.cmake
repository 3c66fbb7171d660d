# Large graphs and ONNX models in the studio (included from tests/CMakeLists.txt inside its
# DOPPLER_GUI block, before the Qt tests get their offscreen environment).
add_executable(large_graph_tests ${CMAKE_CURRENT_LIST_DIR}/large_graph_test.cpp)
set_target_properties(large_graph_tests PROPERTIES AUTOMOC ON)
target_link_libraries(large_graph_tests PRIVATE doppler_studio Qt6::Test)
if(TARGET doppler_onnx_models)
  # ONNX models built with the ONNX C++ API (tests/support/onnx_models.h): the import path.
  target_link_libraries(large_graph_tests PRIVATE doppler_onnx_models)
  target_compile_definitions(large_graph_tests PRIVATE DOPPLER_TEST_ONNX)
endif()
add_test(NAME studio.large_graph COMMAND large_graph_tests)
list(APPEND doppler_qt_tests studio.large_graph)

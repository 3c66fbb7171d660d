# The shipped general policy in the heuristic tuner (included from tests/CMakeLists.txt inside its
# DOPPLER_GUI block, before the Qt tests get their offscreen environment). Its cases skip where the
# build has no LibTorch.
add_executable(tuner_general_tests ${CMAKE_CURRENT_LIST_DIR}/tuner_general_test.cpp)
set_target_properties(tuner_general_tests PROPERTIES AUTOMOC ON)
target_link_libraries(tuner_general_tests PRIVATE doppler_studio Qt6::Test)
target_compile_definitions(tuner_general_tests PRIVATE DOPPLER_CLI="$<TARGET_FILE:doppler>")
add_dependencies(tuner_general_tests doppler)
add_test(NAME studio.tuner_general COMMAND tuner_general_tests)
list(APPEND doppler_qt_tests studio.tuner_general)
if(DOPPLER_TORCH)
  # The test binary lives in tests/, away from the LibTorch module the studio finds beside it.
  target_compile_definitions(tuner_general_tests PRIVATE DOPPLER_TORCH_MODULE_PATH="$<TARGET_FILE:doppler_torch>")
  add_dependencies(tuner_general_tests doppler_torch)
endif()

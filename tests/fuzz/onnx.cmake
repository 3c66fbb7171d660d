# ONNX import (core/graph/onnx_*.cpp): seeds are small models from tests/support/make_onnx_model.
add_executable(fuzz_onnx fuzz_onnx.cpp)
target_link_libraries(fuzz_onnx PRIVATE doppler_sim doppler_onnx)
target_compile_options(fuzz_onnx PRIVATE -fsanitize=fuzzer)
target_link_options(fuzz_onnx PRIVATE -fsanitize=fuzzer)
# The seed writer (fuzz builds have no tests/, so its support library is built here).
if(NOT TARGET doppler_onnx_models)
  add_library(doppler_onnx_models STATIC ${PROJECT_SOURCE_DIR}/tests/support/onnx_models.cpp)
  target_link_libraries(doppler_onnx_models PUBLIC onnx onnx_proto)
  target_include_directories(doppler_onnx_models PUBLIC ${PROJECT_SOURCE_DIR})
  add_executable(make_onnx_model ${PROJECT_SOURCE_DIR}/tests/support/make_onnx_model.cpp)
  target_link_libraries(make_onnx_model PRIVATE doppler_onnx_models)
endif()

# Opening a 20,000-node ONNX model in the studio until the first picture (a plain program: it
# prints figures). Needs the GUI and the ONNX test models (tests/support/onnx_models.h).
if(DOPPLER_GUI AND TARGET doppler_onnx_models)
  add_executable(studio_large_bench studio_large_bench.cpp)
  target_link_libraries(studio_large_bench PRIVATE doppler_studio doppler_onnx_models)
  target_include_directories(studio_large_bench PRIVATE ${PROJECT_SOURCE_DIR})
endif()

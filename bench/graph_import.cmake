# ONNX import speed against reading the same graph from JSON (the model builder lives with the
# tests, so this needs DOPPLER_TESTS).
if(TARGET doppler_onnx_models)
  add_executable(graph_import_bench graph_import_bench.cpp)
  target_link_libraries(graph_import_bench PRIVATE doppler_onnx doppler_onnx_models
    benchmark::benchmark)
endif()

// ONNX import (core/graph/onnx_import.cpp and its shape folding): any byte string is either a
// graph or an InputError. A graph that imports is also coarsened, expanded back and simulated,
// so the costs and groups it carries are exercised too.
#include "core/graph/coarsening.h"
#include "core/graph/onnx_import.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzOne(data, size, [](std::string_view bytes) {
    doppler::OnnxImportOptions opts;
    opts.dims = {{"batch", 2}, {"seq", 4}};
    doppler::DataflowGraph g;
    try {
      g = doppler::importOnnx(bytes, opts, "fuzz.onnx");
    } catch (const doppler::InputError& e) {
      // A model without these dynamic dimensions: try again without binding any.
      if (std::string_view(e.what()).find("no dimension named") == std::string_view::npos) throw;
      g = doppler::importOnnx(bytes, {}, "fuzz.onnx");
    }
    simulateOnTwoDevices(g);
    const doppler::DataflowGraph coarse = doppler::coarsenGraph(g, 4);
    if (coarse.groups) {
      std::vector<int> all(coarse.nodeCount());
      for (int i = 0; i < coarse.nodeCount(); ++i) all[i] = i;
      doppler::expandGroups(coarse, all);
    }
  });
}

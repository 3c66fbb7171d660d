// ONNX import (core/graph/onnx_import.cpp and its shape folding): any byte string is either a
// graph or an InputError. A graph that imports is also coarsened, expanded back and simulated,
// so the costs and groups it carries are exercised too.
#include "core/graph/coarsening.h"
#include "core/graph/onnx_import.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"
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
    doppler::DeviceSet d = doppler::DeviceSet::uniform(2);
    doppler::CostTable c(g, d);
    doppler::Simulator sim(c);
    doppler::Assignment a(c.nodes());
    for (int v = 0; v < c.nodes(); ++v) a[v] = v % 2;
    sim.makespan(a);
    const doppler::DataflowGraph coarse = doppler::coarsenGraph(g, 4);
    if (coarse.groups) {
      std::vector<int> all(coarse.nodeCount());
      for (int i = 0; i < coarse.nodeCount(); ++i) all[i] = i;
      doppler::expandGroups(coarse, all);
    }
  });
}

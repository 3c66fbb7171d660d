#include "core/graph/graph_io.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzOne(data, size, [](std::string_view text) {
    doppler::DataflowGraph g = doppler::parseGraph(text);
    // A graph that parses must also simulate: exercise the costs it carries.
    doppler::DeviceSet d = doppler::DeviceSet::uniform(2);
    doppler::CostTable c(g, d);
    doppler::Simulator sim(c);
    doppler::Assignment a(c.nodes());
    for (int v = 0; v < c.nodes(); ++v) a[v] = v % 2;
    sim.makespan(a);
  });
}

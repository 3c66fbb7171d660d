#include "core/graph/graph_io.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzOne(data, size, [](std::string_view text) {
    doppler::DataflowGraph g = doppler::parseDopplerText(text);
    doppler::CostTable c(g, doppler::DeviceSet::uniform(3));
    doppler::Simulator sim(c, {doppler::CostModel::Links});
    sim.makespan(doppler::Assignment(c.nodes(), 1));
  });
}

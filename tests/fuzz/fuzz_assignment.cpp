#include "core/sim/assignment_io.h"
#include "core/sim/simulator.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const doppler::DataflowGraph g = [] {
    doppler::DataflowGraph x;
    for (const char* id : {"a", "b", "c"}) x.addNode(doppler::Node{id, "op", 0, 0, {1}});
    x.addEdge("a", "b", 10);
    x.addEdge("b", "c", 10);
    return x;
  }();
  static const doppler::CostTable costs(g, doppler::DeviceSet::uniform(3));
  return fuzzOne(data, size, [](std::string_view text) {
    doppler::Assignment a = doppler::parseAssignment(text, g, 3);
    doppler::validateAssignment(a, costs);  // parsed assignments are valid
    doppler::Simulator(costs).makespan(a);
  });
}

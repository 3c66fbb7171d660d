// The policy weights file (core/policy/network_weights.h): read, or refused with InputError.
// Weights that read must also run: one forward pass on a small generated graph.
#include <sstream>
#include <string>

#include "core/graph/generators.h"
#include "core/policy/network_forward.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzOne(data, size, [](std::string_view text) {
    std::istringstream in{std::string(text)};
    const doppler::policy::NetworkWeights w = doppler::policy::parseWeights(in, "fuzz");
    static const doppler::CostTable costs(doppler::generateGraph("chainmm"),
                                          doppler::DeviceSet::uniform(2));
    static const doppler::policy::GraphFeatures f = doppler::policy::graphFeatures(costs);
    doppler::policy::networkScores(w, f);
  });
}

#pragma once
// A world and its demand from names, as the CLI, the simulators and the studio ask for them:
// one function, so they all build the same thing from the same options.
#include <string>

#include "core/fleet/world/demand.h"
#include "core/fleet/world/world.h"

namespace doppler::fleet {

struct ScenarioOptions {
  std::string topology = "abilene";  // shipped name or file
  std::string trace = "conv";        // conv, code, synthetic, or a trace file
  WorldOptions world;
  DemandOptions demand;        // its seed is replaced by world.seed
  SyntheticOptions synthetic;  // for trace "synthetic"
};

struct Scenario {
  World world;
  Demand demand;
};

// Loads the topology and the trace (InputError on bad files and on bad
// options, such as an unknown model).
Scenario buildScenario(const ScenarioOptions& options);

// Requests per second the whole fleet sustains for requests of the demand's mean sizes
// (servingRequestsPerSecond summed over every GPU), and the demand's mean rate over it.
struct CapacityEstimate {
  double fleet_requests_per_s = 0;
  double demand_requests_per_s = 0;
  double load_factor = 0;  // demand / capacity
  double mean_context_tokens = 0, mean_generated_tokens = 0;
};
CapacityEstimate estimateCapacity(const World& world, const Demand& demand);

}  // namespace doppler::fleet

#include "core/fleet/world/scenario.h"

namespace doppler::fleet {

Scenario buildScenario(const ScenarioOptions& options) {
  Scenario scenario;
  scenario.world = buildWorld(loadTopology(options.topology), options.world);
  DemandOptions demand = options.demand;
  demand.seed = options.world.seed;
  if (options.trace == "synthetic")
    scenario.demand = syntheticDemand(scenario.world, demand, options.synthetic);
  else
    scenario.demand = spreadTrace(loadTrace(options.trace), scenario.world, demand);
  return scenario;
}

CapacityEstimate estimateCapacity(const World& world, const Demand& demand) {
  CapacityEstimate c;
  if (!demand.requests.empty()) {
    double context = 0, generated = 0;
    for (const Request& r : demand.requests)
      context += r.context_tokens, generated += r.generated_tokens;
    c.mean_context_tokens = context / static_cast<double>(demand.requests.size());
    c.mean_generated_tokens = generated / static_cast<double>(demand.requests.size());
  }
  const GpuPool total = world.totalPool();
  for (GpuType type : kAllGpuTypes)
    c.fleet_requests_per_s +=
        total.of(type) * servingRequestsPerSecond(world.gpu(type), world.model,
                                                  c.mean_context_tokens, c.mean_generated_tokens,
                                                  world.roofline);
  c.demand_requests_per_s =
      demand.horizon_s > 0 ? static_cast<double>(demand.requests.size()) / demand.horizon_s : 0;
  c.load_factor = c.fleet_requests_per_s > 0 ? c.demand_requests_per_s / c.fleet_requests_per_s : 0;
  return c;
}

}  // namespace doppler::fleet

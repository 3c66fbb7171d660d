#include "core/fleet/world/world.h"

namespace doppler::fleet {

WarmupCosts WarmupCosts::scaledTo(const ModelSpec& model) const {
  const double k = model.weightBytes() / findModel("llama-2-7b").weightBytes();
  WarmupCosts c = *this;
  for (double* part : {&c.serialize_s, &c.deserialize_s, &c.load_s, &c.warmup_s, &c.model_switch_s,
                       &c.cold_start_s})
    *part *= k;
  return c;
}

GpuPool World::totalPool() const {
  GpuPool total;
  for (const Region& region : regions)
    for (size_t t = 0; t < total.count.size(); ++t) total.count[t] += region.pool.count[t];
  return total;
}

World buildWorld(const Topology& topo, const WorldOptions& options) {
  World world;
  world.topology = topo.name;
  world.coordinates = topo.coordinates;
  world.links = topo.links;
  world.seed = options.seed;
  world.catalog = gpuCatalog();
  world.model = findModel(options.model);
  world.roofline = options.roofline;
  world.warmup = WarmupCosts{}.scaledTo(world.model);
  world.latency = latencyMatrix(topo, options.latency);
  PoolRule pools = options.pools;
  pools.seed = options.seed;
  double meanX = 0;
  for (const TopologyNode& node : topo.nodes) meanX += node.x / topo.nodeCount();
  const std::vector<int> degree = topo.degrees();
  for (int r = 0; r < topo.nodeCount(); ++r) {
    const TopologyNode& node = topo.nodes[r];
    Region region;
    region.name = node.name;
    region.x = node.x;
    region.y = node.y;
    region.longitude =
        topo.coordinates == Coordinates::LonLat ? node.x : (node.x - meanX) / kPlanarKmPerDegree;
    region.degree = degree[r];
    region.pool = poolFor(r, pools);
    region.price = electricityPrice(topo.name, node.name, r, options.seed, options.price_spread);
    world.regions.push_back(std::move(region));
  }
  return world;
}

}  // namespace doppler::fleet

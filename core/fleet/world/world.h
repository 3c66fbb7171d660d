#pragma once
// The fleet's world: regions with their GPU pools and electricity prices, the latency between
// them, the GPU catalogue and the served model (docs/fleet.md). Built once per topology and
// seed; the simulators, the OT layer and the baselines read it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/fleet/world/gpu_catalog.h"
#include "core/fleet/world/latency.h"
#include "core/fleet/world/region_pool.h"
#include "core/fleet/world/topology.h"

namespace doppler::fleet {

struct Region {
  std::string name;
  double x = 0, y = 0;   // longitude, latitude (degrees) or planar km, as the topology gives
  double longitude = 0;  // for local time: x, or for planar topologies the km mapped to degrees
  int degree = 0;        // links at this node
  GpuPool pool;
  ElectricityPrice price;
};

// Model state changes, from the digest's motivation (TORTA, LLaMA-2-7B on a V100): migrating a
// model costs serialise 15.2 s + deserialise 4.8 s + load 5.6 s + warm-up 5.1 s; switching a
// server to another model about 30 s; a cold start to ready 1-3 minutes (120 s, the middle).
struct WarmupCosts {
  double serialize_s = 15.2, deserialize_s = 4.8, load_s = 5.6, warmup_s = 5.1;
  double model_switch_s = 30.0;
  double cold_start_s = 120.0;

  double migrationSeconds() const { return serialize_s + deserialize_s + load_s + warmup_s; }
  // The same for another model: every part scaled by its weight bytes over LLaMA-2-7B's (an
  // assumption: these steps move or load the weights; the digest measures only 7B).
  WarmupCosts scaledTo(const ModelSpec& model) const;
};

struct WorldOptions {
  uint64_t seed = 1;
  LatencyModel latency;
  PoolRule pools;  // its seed is replaced by `seed`
  double price_spread = 0.10;
  std::string model = "llama-2-7b";
  RooflineFactors roofline;
};

struct World {
  std::string topology;
  Coordinates coordinates = Coordinates::LonLat;
  std::vector<Region> regions;
  std::vector<TopologyLink> links;
  LatencyMatrix latency;
  std::vector<GpuSpec> catalog;  // gpuCatalog(), copied so a world can be edited for experiments
  ModelSpec model;
  RooflineFactors roofline;
  WarmupCosts warmup;
  uint64_t seed = 1;

  int regionCount() const { return static_cast<int>(regions.size()); }
  const GpuSpec& gpu(GpuType type) const { return catalog[static_cast<size_t>(type)]; }
  // GPUs of each type over all regions.
  GpuPool totalPool() const;
};

// For planar topologies, regions need a longitude for their local time: x in km over 78.71 km
// per degree (a degree of longitude at 45° latitude, 111.32 km * cos 45°), centred so the mean x
// sits at longitude 0.
constexpr double kPlanarKmPerDegree = 78.71;

World buildWorld(const Topology& topo, const WorldOptions& options = {});

}  // namespace doppler::fleet

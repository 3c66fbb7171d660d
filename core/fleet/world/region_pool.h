#pragma once
// What each region holds: a pool of GPUs of the five types and an electricity price, both by
// documented deterministic rules (docs/fleet.md, "Regions").
#include <array>
#include <cstdint>
#include <string>

#include "core/fleet/world/gpu_catalog.h"

namespace doppler::fleet {

struct GpuPool {
  std::array<int, kGpuTypes> count{};  // by GpuType
  int of(GpuType type) const { return count[static_cast<size_t>(type)]; }
  int total() const;
};

// TORTA's setup lists per-type counts A100 40-60, H100 20-40, RTX 4090 40-60, V100 60-80, T4
// 40-60 (digest §4), without saying whether per cluster or in total. Each region here draws each
// type's count uniformly from that range times `scale` (rounded), from a stream keyed by the seed,
// the region index and the type; L40S takes V100's range (the catalogue has no V100; the L40S is
// the mid-range datacentre part of the same role). scale 0.1 gives 20-30 GPUs per region, which
// with the shipped traces leaves the fleet lightly loaded (the CLI prints the load factor).
struct PoolRule {
  double scale = 0.1;
  uint64_t seed = 1;
};
GpuPool poolFor(int region, const PoolRule& rule);
// The range a type's count is drawn from under `scale` (inclusive).
std::array<int, 2> poolRange(GpuType type, double scale);

struct ElectricityPrice {
  double usd_per_kwh = 0;
  std::string basis;  // where the base price comes from: "DE", "US-CA", "EU-27 average"
};

// The region's country (or US state) average price for industrial / non-household consumers,
// found from the node's name for the shipped topologies (cost266 cities, abilene PoPs, the
// intercontinental world's metros; polska is all Poland, germany50 all Germany), else the EU-27
// average; then a per-region spread, uniform in
// ±spread (± 10% by default, ±30% without a country), drawn from (seed, region): grid zones,
// contracts and tariffs differ inside a country. The spread is synthetic; the bases are cited in
// region_pool.cpp.
ElectricityPrice electricityPrice(const std::string& topology, const std::string& node, int region,
                                  uint64_t seed, double spread = 0.10);
// The base price (before the spread) and its basis.
ElectricityPrice basePrice(const std::string& topology, const std::string& node);

}  // namespace doppler::fleet

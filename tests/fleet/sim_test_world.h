#pragma once
// Small fleet worlds for the simulator tests: a few regions on a planar line (so latencies are
// known), pools set by hand, and demand built from a list of requests.
#include <array>
#include <string>
#include <vector>

#include "core/fleet/sim/fleet_model.h"
#include "core/fleet/world/demand.h"
#include "core/fleet/world/topology.h"
#include "core/fleet/world/world.h"

namespace doppler::testing {

// `n` regions R0..R(n-1) on a line, 200 km apart (planar), linked in a chain.
inline fleet::World lineWorld(int n, const std::vector<std::array<int, 5>>& pools) {
  std::string text = "# PLANAR km\nNODES (\n";
  for (int i = 0; i < n; ++i)
    text += " R" + std::to_string(i) + " ( " + std::to_string(200 * i) + " 0 )\n";
  text += ")\nLINKS (\n";
  for (int i = 0; i + 1 < n; ++i)
    text += " L" + std::to_string(i) + " ( R" + std::to_string(i) + " R" + std::to_string(i + 1) +
            " )\n";
  text += ")\n";
  fleet::World world = fleet::buildWorld(fleet::parseTopology(text, "line.txt", "line"));
  for (int i = 0; i < n; ++i) world.regions[i].pool.count = pools[i];
  return world;
}

// GPU counts in catalogue order: A100, H100, L40S, RTX4090, T4.
inline std::array<int, 5> gpus(int a100, int h100, int l40s, int rtx4090, int t4) {
  return {a100, h100, l40s, rtx4090, t4};
}

struct TestRequest {
  double arrival_s;
  int home, context, generated;
};

// Demand over `slots` slots of `slot_s` seconds with these requests (sorted by arrival).
inline fleet::Demand demandOf(int regions, int slots, double slot_s,
                              const std::vector<TestRequest>& requests) {
  fleet::Demand d;
  d.source = "test";
  d.slot_seconds = slot_s;
  d.horizon_s = slots * slot_s;
  d.totals.slots = slots;
  d.totals.regions = regions;
  const size_t cells = static_cast<size_t>(slots) * regions;
  d.totals.requests.assign(cells, 0);
  d.totals.context_tokens.assign(cells, 0);
  d.totals.generated_tokens.assign(cells, 0);
  for (const TestRequest& r : requests) {
    fleet::Request q;
    q.arrival_s = r.arrival_s;
    q.home_region = r.home;
    q.context_tokens = r.context;
    q.generated_tokens = r.generated;
    d.requests.push_back(q);
    const size_t k = d.totals.index(static_cast<int>(r.arrival_s / slot_s), r.home);
    d.totals.requests[k] += 1;
    d.totals.context_tokens[k] += r.context;
    d.totals.generated_tokens[k] += r.generated;
  }
  return d;
}

}  // namespace doppler::testing

#pragma once
// Placements for the view tests and benchmarks: a paper workload placed by a real method, and
// large synthetic schedules (100,000 timeline events, 2,000-node graphs) to time drawing with.
#include <memory>
#include <random>
#include <string>

#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/heuristics/method.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "views/common/snapshot.h"

namespace doppler::views::testing {

inline SnapshotPtr snapshotOf(std::shared_ptr<const DataflowGraph> g, int devices,
                              const std::string& method = "critical-path",
                              const Assignment* assignment = nullptr) {
  auto d = std::make_shared<const DeviceSet>(DeviceSet::uniform(devices));
  auto costs = std::make_shared<const CostTable>(*g, *d);
  auto s = std::make_shared<PlacementSnapshot>();
  if (assignment) {
    s->assignment = *assignment;
  } else {
    const Method& m = findMethod(method);
    PlaceContext ctx{*costs, SimOptions{}, 1, 1000, nullptr, {}};
    s->assignment = m.place(ctx, Params(m.params(), {})).assignment;
  }
  Simulator sim(*costs);
  s->sim = sim.run(s->assignment);
  s->graph = std::move(g);
  s->devices = std::move(d);
  s->costs = costs;
  s->lower_bound_us = lowerBound(*costs).value();
  s->settings.method = method;
  s->devices_spec = std::to_string(devices);
  return s;
}

inline SnapshotPtr workloadSnapshot(const std::string& kind = "llama-block", int devices = 4,
                                    const std::string& method = "critical-path") {
  return snapshotOf(std::make_shared<const DataflowGraph>(generateGraph(kind)), devices, method);
}

// A layered random DAG: `n` nodes in layers of `width`, each fed by 1-3 nodes of the layer above,
// with a handful of op kinds.
inline DataflowGraph layeredGraph(int n, int width, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  static const char* ops[] = {"matmul", "add", "relu", "softmax", "rope", "rmsnorm"};
  DataflowGraph g;
  g.name = "layered-";
  g.name += std::to_string(n);
  for (int v = 0; v < n; ++v) {
    Node node;
    node.id = "n";
    node.id += std::to_string(v);
    node.op = ops[rng() % 6];
    node.compute_us = {5.0 + rng() % 200};
    g.addNode(std::move(node));
  }
  for (int v = width; v < n; ++v) {
    const int layer = v / width;
    const int k = 1 + static_cast<int>(rng() % 3);
    std::vector<int> used;
    for (int i = 0; i < k; ++i) {
      const int u = (layer - 1) * width + static_cast<int>(rng() % width);
      if (std::find(used.begin(), used.end(), u) != used.end()) continue;
      used.push_back(u);
      Edge e;
      e.src = u;
      e.dst = v;
      e.bytes = 1e6 * (1 + rng() % 50);
      g.addEdge(e);
    }
  }
  return g;
}

// About `events` timeline events on `devices` devices: 80% compute, 20% transfers.
inline SnapshotPtr bigTimelineSnapshot(int events = 100000, int devices = 8) {
  const int n = events * 4 / 5;
  auto g = std::make_shared<DataflowGraph>();
  g->name = "synthetic-";
  g->name += std::to_string(events);
  std::mt19937 rng(3);
  static const char* ops[] = {"matmul", "add", "relu", "softmax", "rope", "rmsnorm"};
  for (int v = 0; v < n; ++v) {
    Node node;
    node.id = "n";
    node.id += std::to_string(v);
    node.op = ops[v % 6];
    node.compute_us = {1.0 + rng() % 40};
    g->addNode(std::move(node));
  }
  Assignment a(n);
  for (int v = 0; v < n; ++v) a[v] = v % devices;
  for (int v = devices; v < n; ++v) {
    Edge same;  // a chain per device
    same.src = v - devices;
    same.dst = v;
    same.transfer_us = 3;
    g->addEdge(same);
    if (v % 4 == 0) {  // one cross-device input in four: a transfer
      Edge cross;
      cross.src = v - 1;
      cross.dst = v;
      cross.transfer_us = 2.0 + rng() % 10;
      g->addEdge(cross);
    }
  }
  return snapshotOf(std::move(g), devices, "round-robin", &a);
}

}  // namespace doppler::views::testing

#include "core/graph/device_matching.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <stdexcept>

namespace doppler {

namespace {

bool sameSpec(const Device& x, const Device& y) {
  return x.tflops == y.tflops && x.memory_gb == y.memory_gb && x.memory_gbps == y.memory_gbps &&
         x.ops == y.ops && x.kernel_overhead_us == y.kernel_overhead_us;
}

// Swapping i and j maps the matrix onto itself: rows and columns agree outside {i, j}, and the
// link between them is the same both ways.
bool swappable(const std::vector<std::vector<double>>& m, int i, int j) {
  const int n = static_cast<int>(m.size());
  if (m[i][j] != m[j][i]) return false;
  for (int k = 0; k < n; ++k) {
    if (k == i || k == j) continue;
    if (m[i][k] != m[j][k] || m[k][i] != m[k][j]) return false;
  }
  return true;
}

bool twins(const DeviceSet& d, int i, int j) {
  return sameSpec(d.devices[i], d.devices[j]) && swappable(d.bandwidth_gbps, i, j) &&
         swappable(d.latency_us, i, j);
}

bool squareOf(const std::vector<std::vector<double>>& m, int n) {
  if (static_cast<int>(m.size()) != n) return false;
  for (const auto& row : m)
    if (static_cast<int>(row.size()) != n) return false;
  return true;
}

}  // namespace

std::vector<int> interchangeableClasses(const DeviceSet& devices) {
  const int n = devices.size();
  std::vector<int> cls(n);
  for (int i = 0; i < n; ++i) cls[i] = i;
  if (!squareOf(devices.bandwidth_gbps, n) || !squareOf(devices.latency_us, n)) return cls;
  // Greedy: a device joins the first class all of whose members it can swap with.
  std::vector<std::vector<int>> classes;
  for (int i = 0; i < n; ++i) {
    bool placed = false;
    for (std::vector<int>& c : classes) {
      if (!std::all_of(c.begin(), c.end(), [&](int j) { return twins(devices, i, j); })) continue;
      cls[i] = c.front();
      c.push_back(i);
      placed = true;
      break;
    }
    if (!placed) classes.push_back({i});
  }
  return cls;
}

bool sameDevices(const DeviceSet& a, const DeviceSet& b) {
  if (a.size() != b.size() || a.bandwidth_gbps != b.bandwidth_gbps || a.latency_us != b.latency_us)
    return false;
  for (int i = 0; i < a.size(); ++i)
    if (!sameSpec(a.devices[i], b.devices[i])) return false;
  return true;
}

std::vector<int> matchDevices(const DeviceSet& devices, std::span<const int> a,
                              std::span<const int> b) {
  if (a.size() != b.size()) throw std::invalid_argument("matchDevices: placements differ in size");
  const int n = devices.size();
  std::vector<int> map(n);
  for (int d = 0; d < n; ++d) map[d] = d;
  const std::vector<int> cls = interchangeableClasses(devices);
  // together[x][y]: nodes on device y in `a` and on device x in `b`.
  std::vector<std::vector<long>> together(n, std::vector<long>(n, 0));
  for (std::size_t v = 0; v < a.size(); ++v)
    if (a[v] >= 0 && a[v] < n && b[v] >= 0 && b[v] < n) ++together[b[v]][a[v]];

  for (int c = 0; c < n; ++c) {
    std::vector<int> members;
    for (int d = 0; d < n; ++d)
      if (cls[d] == c) members.push_back(d);
    if (members.size() < 2) continue;
    // An assignment problem as a min-cost flow: one unit from each of b's devices to one of a's,
    // costing the nodes the pair does not keep together. Keeping a device's own index costs a
    // little less, so that among equal matchings the identity wins (integers scaled by 2k).
    const int k = static_cast<int>(members.size());
    using Graph = lemon::SmartDigraph;
    Graph g;
    std::vector<Graph::Node> from, to;
    for (int i = 0; i < k; ++i) from.push_back(g.addNode());
    for (int i = 0; i < k; ++i) to.push_back(g.addNode());
    Graph::NodeMap<long> supply(g);
    for (int i = 0; i < k; ++i) {
      supply[from[i]] = 1;
      supply[to[i]] = -1;
    }
    Graph::ArcMap<long> cost(g);
    std::vector<std::vector<Graph::Arc>> arcs(k);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        arcs[i].push_back(g.addArc(from[i], to[j]));
        cost[arcs[i][j]] = -2 * k * together[members[i]][members[j]] - (i == j ? 1 : 0);
      }
    lemon::NetworkSimplex<Graph, long, long> simplex(g);
    simplex.costMap(cost).supplyMap(supply);
    if (simplex.run() != decltype(simplex)::OPTIMAL)
      throw std::logic_error("LEMON network simplex found no assignment");  // cannot happen
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j)
        if (simplex.flow(arcs[i][j]) > 0) map[members[i]] = members[j];
  }
  return map;
}

}  // namespace doppler

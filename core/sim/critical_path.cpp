#include "core/sim/critical_path.h"

#include <algorithm>
#include <cmath>

namespace doppler {

CriticalPath criticalPath(const DataflowGraph& g, const Schedule& s) {
  CriticalPath cp;
  const int n = g.nodeCount();
  cp.onPath.assign(n, 0);
  cp.edgeOnPath.assign(g.edgeCount(), 0);
  if (n == 0 || static_cast<int>(s.nodes.size()) != n) return cp;

  std::vector<double> arrival(g.edgeCount(), 0);
  for (int e = 0; e < g.edgeCount(); ++e) arrival[e] = s.nodes[g.edge(e).src].finish_us;
  for (const TransferSpan& t : s.transfers)
    if (t.edge >= 0 && t.edge < g.edgeCount()) arrival[t.edge] = t.finish_us;

  // Per device, nodes by start time, to find the node a device ran just before another.
  int devices = 0;
  for (const NodeSpan& span : s.nodes) devices = std::max(devices, span.device + 1);
  std::vector<std::vector<int>> byDevice(devices);
  for (int v = 0; v < n; ++v)
    if (s.nodes[v].device >= 0) byDevice[s.nodes[v].device].push_back(v);
  std::vector<int> previousOnDevice(n, -1);
  for (auto& list : byDevice) {
    std::sort(list.begin(), list.end(), [&](int a, int b) {
      return s.nodes[a].start_us < s.nodes[b].start_us ||
             (s.nodes[a].start_us == s.nodes[b].start_us && a < b);
    });
    for (size_t i = 1; i < list.size(); ++i) previousOnDevice[list[i]] = list[i - 1];
  }

  int v = 0;
  for (int u = 1; u < n; ++u)
    if (s.nodes[u].finish_us > s.nodes[v].finish_us) v = u;
  const double eps = 1e-9 * std::max(1.0, s.makespan_us);
  std::vector<int> reversed;
  std::vector<int> reversedEdges;
  while (v >= 0 && !cp.onPath[v]) {
    cp.onPath[v] = 1;
    reversed.push_back(v);
    const double start = s.nodes[v].start_us;
    if (start <= eps) break;
    int bestEdge = -1;
    double bestArrival = -1;
    for (int e : g.inEdges(v))
      if (arrival[e] > bestArrival) {
        bestArrival = arrival[e];
        bestEdge = e;
      }
    const int prev = previousOnDevice[v];
    const double prevFinish = prev >= 0 ? s.nodes[prev].finish_us : -1;
    if (bestEdge >= 0 && bestArrival >= start - eps && bestArrival >= prevFinish - eps) {
      reversedEdges.push_back(bestEdge);
      v = g.edge(bestEdge).src;
    } else if (prev >= 0 && prevFinish >= start - eps) {
      v = prev;
    } else if (bestEdge >= 0) {
      reversedEdges.push_back(bestEdge);
      v = g.edge(bestEdge).src;
    } else {
      break;
    }
  }
  cp.nodes.assign(reversed.rbegin(), reversed.rend());
  cp.edges.assign(reversedEdges.rbegin(), reversedEdges.rend());
  for (int e : cp.edges) cp.edgeOnPath[e] = 1;
  return cp;
}

}  // namespace doppler

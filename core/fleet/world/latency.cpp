#include "core/fleet/world/latency.h"

#include <algorithm>
#include <limits>

namespace doppler::fleet {

namespace {

template <class F>
double overOffDiagonal(const LatencyMatrix& m, double init, F&& combine) {
  double acc = init;
  for (int i = 0; i < m.n; ++i)
    for (int j = 0; j < m.n; ++j)
      if (i != j) acc = combine(acc, m.at(i, j));
  return acc;
}

}  // namespace

double LatencyMatrix::minOffDiagonal() const {
  if (n < 2) return 0;
  return overOffDiagonal(*this, std::numeric_limits<double>::infinity(),
                         [](double a, double b) { return std::min(a, b); });
}

double LatencyMatrix::maxOffDiagonal() const {
  return overOffDiagonal(*this, 0.0, [](double a, double b) { return std::max(a, b); });
}

double LatencyMatrix::meanOffDiagonal() const {
  if (n < 2) return 0;
  return overOffDiagonal(*this, 0.0, [](double a, double b) { return a + b; }) /
         (static_cast<double>(n) * (n - 1));
}

double linkLatencySeconds(const Topology& topo, const TopologyLink& link,
                          const LatencyModel& model) {
  return topo.distanceKm(link.a, link.b) * model.route_inflation / model.fibre_km_per_s +
         model.per_hop_s;
}

LatencyMatrix latencyMatrix(const Topology& topo, const LatencyModel& model) {
  const int n = topo.nodeCount();
  const double inf = std::numeric_limits<double>::infinity();
  LatencyMatrix m;
  m.n = n;
  m.seconds.assign(static_cast<size_t>(n) * n, inf);
  m.hops.assign(static_cast<size_t>(n) * n, 0);
  auto idx = [n](int i, int j) { return static_cast<size_t>(i) * n + j; };
  for (int i = 0; i < n; ++i) m.seconds[idx(i, i)] = 0;
  for (const TopologyLink& link : topo.links) {
    const double s = linkLatencySeconds(topo, link, model);
    if (s < m.seconds[idx(link.a, link.b)]) {  // parallel links: the faster one
      m.seconds[idx(link.a, link.b)] = m.seconds[idx(link.b, link.a)] = s;
      m.hops[idx(link.a, link.b)] = m.hops[idx(link.b, link.a)] = 1;
    }
  }
  for (int via = 0; via < n; ++via)
    for (int i = 0; i < n; ++i) {
      const double toVia = m.seconds[idx(i, via)];
      if (toVia == inf) continue;
      for (int j = 0; j < n; ++j) {
        const double s = toVia + m.seconds[idx(via, j)];
        if (s < m.seconds[idx(i, j)]) {
          m.seconds[idx(i, j)] = s;
          m.hops[idx(i, j)] = m.hops[idx(i, via)] + m.hops[idx(via, j)];
        }
      }
    }
  // The two directions of a path sum the same links in another order, which may round apart:
  // keep one value for both, so the matrix is exactly symmetric.
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const size_t ij = idx(i, j), ji = idx(j, i);
      if (m.seconds[ji] < m.seconds[ij]) m.seconds[ij] = m.seconds[ji], m.hops[ij] = m.hops[ji];
      m.seconds[ji] = m.seconds[ij];
      m.hops[ji] = m.hops[ij];
    }
  return m;
}

}  // namespace doppler::fleet

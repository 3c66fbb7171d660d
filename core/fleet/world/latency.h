#pragma once
// Inter-region latency: propagation along the link graph's shortest paths plus a cost per
// router hop (docs/fleet.md, "Latency").
#include <vector>

#include "core/fleet/world/topology.h"

namespace doppler::fleet {

struct LatencyModel {
  // Light in silica fibre travels at c / n with group index n ≈ 1.47 (ITU-T G.652 fibre at
  // 1550 nm), about 204,000 km/s; the usual round figure is 200,000 km/s, i.e. 5 us per km.
  double fibre_km_per_s = 200000.0;
  // Fibre does not follow the great circle between two adjacent PoPs: conduits follow roads and
  // rail. An assumption, not a measurement of these networks: 1.5x the geodesic. Bozkurt et al.,
  // "Why Is the Internet so Slow?!" (PAM 2017) find Internet latencies well above c-latency, with
  // physical path length (besides the 2/3 c of fibre) one of the parts; set 1.0 for geodesic links.
  double route_inflation = 1.5;
  // Each router on the path adds forwarding, serialisation and queueing delay. 0.5 ms per hop
  // is a deliberately conservative figure for a loaded WAN router (store-and-forward plus
  // queueing; an idle core router forwards in tens of microseconds); configurable.
  double per_hop_s = 0.5e-3;
};

// A square matrix, row-major.
struct LatencyMatrix {
  int n = 0;
  std::vector<double> seconds;  // one-way latency from i to j, n * n
  std::vector<int> hops;        // links on the chosen shortest path, n * n

  double at(int i, int j) const { return seconds[static_cast<size_t>(i) * n + j]; }
  int hopsAt(int i, int j) const { return hops[static_cast<size_t>(i) * n + j]; }
  // Over the off-diagonal pairs (0 when there is one region).
  double minOffDiagonal() const;
  double meanOffDiagonal() const;
  double maxOffDiagonal() const;
};

// The one-way latency of one link: its length (great-circle or planar) times the inflation,
// over the speed in fibre, plus one hop.
double linkLatencySeconds(const Topology& topo, const TopologyLink& link,
                          const LatencyModel& model);

// All-pairs shortest one-way latency over the links (Floyd–Warshall: n ≤ a few hundred here).
// Symmetric, zero on the diagonal, and it obeys the triangle inequality by construction.
LatencyMatrix latencyMatrix(const Topology& topo, const LatencyModel& model = {});

}  // namespace doppler::fleet

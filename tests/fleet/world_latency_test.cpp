// Latency: shortest paths over the links, with a hand-checked pair; symmetric, zero on the
// diagonal, obeying the triangle inequality.
#include <gtest/gtest.h>

#include "core/fleet/world/latency.h"
#include "core/fleet/world/topology.h"

namespace {

using namespace doppler::fleet;

int nodeIndex(const Topology& topo, const std::string& name) {
  for (int i = 0; i < topo.nodeCount(); ++i)
    if (topo.nodes[i].name == name) return i;
  return -1;
}

TEST(FleetLatency, EveryShippedTopologyGivesAMetric) {
  for (const std::string& name : shippedTopologies()) {
    SCOPED_TRACE(name);
    const Topology topo = loadTopology(name);
    const LatencyMatrix m = latencyMatrix(topo);
    ASSERT_EQ(m.n, topo.nodeCount());
    for (int i = 0; i < m.n; ++i) {
      EXPECT_EQ(m.at(i, i), 0.0);
      for (int j = 0; j < m.n; ++j) {
        EXPECT_EQ(m.at(i, j), m.at(j, i));
        if (i != j) {
          EXPECT_GT(m.at(i, j), 0.0);
          EXPECT_GE(m.hopsAt(i, j), 1);
        }
        for (int k = 0; k < m.n; ++k) EXPECT_LE(m.at(i, j), m.at(i, k) + m.at(k, j) + 1e-15);
      }
    }
  }
}

TEST(FleetLatency, AHandCheckedLinkPair) {
  // ATLAM5 hangs off ATLAng by one link of 132.365 km (great circle, computed by hand):
  // 132.365 km * 1.5 / 200,000 km/s + 0.5 ms = 1.49274 ms.
  const Topology topo = loadTopology("abilene");
  const LatencyMatrix m = latencyMatrix(topo);
  const int a = nodeIndex(topo, "ATLAM5"), b = nodeIndex(topo, "ATLAng");
  EXPECT_NEAR(m.at(a, b), 1.49274e-3, 1e-8);
  EXPECT_EQ(m.hopsAt(a, b), 1);
  // Every path out of the leaf ATLAM5 goes through ATLAng.
  for (int j = 0; j < m.n; ++j)
    if (j != a && j != b) {
      EXPECT_NEAR(m.at(a, j), m.at(a, b) + m.at(b, j), 1e-15);
    }
}

// The intercontinental world is what its name says: one transatlantic link, Ashburn to Dublin,
// 5,461.53 km of great circle (computed by hand): 5,461.53 km * 1.5 / 200,000 km/s + 0.5 ms =
// 41.4615 ms; and its paths span tens to hundreds of milliseconds (Sydney to Sao Paulo goes
// through San Jose and Ashburn, or Singapore, Mumbai and Johannesburg).
TEST(FleetLatency, TheIntercontinentalWorldSpansTensToHundredsOfMilliseconds) {
  const Topology topo = loadTopology("intercontinental");
  const LatencyMatrix m = latencyMatrix(topo);
  const int ashburn = nodeIndex(topo, "Ashburn"), dublin = nodeIndex(topo, "Dublin");
  EXPECT_NEAR(m.at(ashburn, dublin), 41.4615e-3, 1e-7);
  EXPECT_EQ(m.hopsAt(ashburn, dublin), 1);
  EXPECT_LT(m.minOffDiagonal(), 0.020);
  EXPECT_GT(m.meanOffDiagonal(), 0.050);
  EXPECT_GT(m.at(nodeIndex(topo, "Sydney"), nodeIndex(topo, "SaoPaulo")), 0.150);
}

TEST(FleetLatency, TheModelsParametersEnterAsStated) {
  const Topology topo = loadTopology("abilene");
  LatencyModel bare;
  bare.route_inflation = 1.0;
  bare.per_hop_s = 0.0;
  const LatencyMatrix geodesic = latencyMatrix(topo, bare);
  const int a = nodeIndex(topo, "ATLAM5"), b = nodeIndex(topo, "ATLAng");
  EXPECT_NEAR(geodesic.at(a, b), topo.distanceKm(a, b) / 200000.0, 1e-15);
  LatencyModel hops = bare;
  hops.per_hop_s = 1.0;  // a huge hop cost: latency is then about the hop count
  const LatencyMatrix byHops = latencyMatrix(topo, hops);
  for (int i = 0; i < byHops.n; ++i)
    for (int j = 0; j < byHops.n; ++j) {
      EXPECT_GE(byHops.at(i, j), byHops.hopsAt(i, j));
      EXPECT_LT(byHops.at(i, j), byHops.hopsAt(i, j) + 0.1);
    }
}

TEST(FleetLatency, PlanarTopologiesUseEuclideanKilometres) {
  const Topology topo = loadTopology("gabriel");
  const LatencyMatrix m = latencyMatrix(topo);
  const TopologyLink& link = topo.links[0];  // R0-R16, 127.58 km in TopoHub's file
  EXPECT_LE(m.at(link.a, link.b), 127.58 * 1.5 / 200000 + 0.5e-3 + 1e-9);
}

TEST(FleetLatency, SummaryStatisticsSkipTheDiagonal) {
  LatencyMatrix m;
  m.n = 2;
  m.seconds = {0, 0.004, 0.004, 0};
  m.hops = {0, 1, 1, 0};
  EXPECT_EQ(m.minOffDiagonal(), 0.004);
  EXPECT_EQ(m.meanOffDiagonal(), 0.004);
  EXPECT_EQ(m.maxOffDiagonal(), 0.004);
}

}  // namespace

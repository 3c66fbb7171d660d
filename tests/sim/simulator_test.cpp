#include "core/sim/simulator.h"

#include <gtest/gtest.h>

#include <random>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/sim/lower_bound.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

using testing::fixedGraph;

TEST(Simulator, HandCheckedChainAcrossDevices) {
  auto g = fixedGraph({{"a", 10}, {"b", 20}, {"c", 30}}, {{"a", "b", 5}, {"b", "c", 5}});
  auto d = DeviceSet::uniform(2);
  CostTable c(g, d);
  Simulator sim(c);
  SimResult r = sim.run({0, 1, 0});
  EXPECT_DOUBLE_EQ(r.schedule.makespan_us, 70);
  EXPECT_DOUBLE_EQ(r.schedule.nodes[1].start_us, 15);
  EXPECT_DOUBLE_EQ(r.schedule.nodes[2].start_us, 40);
  ASSERT_EQ(r.schedule.transfers.size(), 2u);
  EXPECT_DOUBLE_EQ(r.schedule.transfers[1].start_us, 35);
  EXPECT_DOUBLE_EQ(r.schedule.transfers[1].finish_us, 40);
  EXPECT_DOUBLE_EQ(r.busy_us[0], 40);
  EXPECT_DOUBLE_EQ(r.busy_us[1], 20);
  EXPECT_NEAR(r.utilization[0], 40.0 / 70.0, 1e-12);
  // Same device: edges are free.
  EXPECT_DOUBLE_EQ(sim.makespan({0, 0, 0}), 60);
}

TEST(Simulator, DeviceTakesFirstReadyNode) {
  // r feeds x (arrives at 15) and y (arrives at 13): y runs first although x has the lower index.
  auto g = fixedGraph({{"r", 10}, {"x", 10}, {"y", 10}}, {{"r", "x", 5}, {"r", "y", 3}});
  CostTable c(g, DeviceSet::uniform(2));
  Simulator sim(c);
  SimResult r = sim.run({0, 1, 1});
  EXPECT_DOUBLE_EQ(r.schedule.nodes[2].start_us, 13);
  EXPECT_DOUBLE_EQ(r.schedule.nodes[1].start_us, 23);
  EXPECT_DOUBLE_EQ(r.schedule.makespan_us, 33);
  EXPECT_EQ(r.order, (std::vector<int>{0, 2, 1}));
}

TEST(Simulator, TiesGoByNodeIndex) {
  auto g = fixedGraph({{"r", 10}, {"x", 7}, {"y", 10}}, {{"r", "y", 4}, {"r", "x", 4}});
  CostTable c(g, DeviceSet::uniform(2));
  SimResult r = Simulator(c).run({0, 1, 1});
  EXPECT_DOUBLE_EQ(r.schedule.nodes[1].start_us, 14);  // x (index 1) before y (index 2)
  EXPECT_DOUBLE_EQ(r.schedule.nodes[2].start_us, 21);
}

TEST(Simulator, WorkConservingNotLookahead) {
  // d1 is idle when `late` would be better to wait for; a work-conserving device never waits.
  auto g = fixedGraph({{"s", 1}, {"long", 100}, {"crit", 1}, {"tail", 100}},
                      {{"s", "long", 0}, {"s", "crit", 50}, {"crit", "tail", 0}});
  CostTable c(g, DeviceSet::uniform(2));
  SimResult r = Simulator(c).run({0, 1, 1, 1});
  EXPECT_DOUBLE_EQ(r.schedule.nodes[1].start_us, 1);    // long starts as soon as it is ready
  EXPECT_DOUBLE_EQ(r.schedule.nodes[2].start_us, 101);  // crit waits for it
  EXPECT_DOUBLE_EQ(r.schedule.makespan_us, 202);
}

TEST(Simulator, LinkContentionSerialisesTransfers) {
  auto g = fixedGraph({{"r", 10}, {"x", 1}, {"y", 10}}, {{"r", "x", 5}, {"r", "y", 5}});
  CostTable c(g, DeviceSet::uniform(2));
  Simulator ref(c, {CostModel::Reference});
  Simulator links(c, {CostModel::Links});
  EXPECT_DOUBLE_EQ(ref.makespan({0, 1, 1}), 26);  // y arrives at 15, waits for x until 16
  SimResult r = links.run({0, 1, 1});
  EXPECT_DOUBLE_EQ(r.schedule.makespan_us, 30);  // y's transfer queues behind x's: 15..20
  EXPECT_DOUBLE_EQ(r.schedule.transfers[1].start_us, 15);
  // Opposite directions are different links: no contention.
  auto g2 = fixedGraph({{"a", 10}, {"b", 10}, {"c", 1}, {"d", 1}}, {{"a", "c", 5}, {"b", "d", 5}});
  CostTable c2(g2, DeviceSet::uniform(2));
  EXPECT_DOUBLE_EQ(Simulator(c2, {CostModel::Links}).makespan({0, 1, 1, 0}), 16);
}

TEST(Simulator, CostsFromFlopsAndBytes) {
  DataflowGraph g;
  Node a{"a", "matmul", 9.3e12, 1e9, {}};
  Node b{"b", "add", 0, 0, {}};
  g.addNode(a);
  g.addNode(b);
  g.addEdge("a", "b", 1e9);
  auto d = DeviceSet::uniform(2, Device{"gpu", 9.3, 16}, 10, 5);
  CostTable c(g, d);
  EXPECT_DOUBLE_EQ(c.compute(0, 0), 1e6);          // 9.3 TFLOP at 9.3 TFLOP/s = 1 s
  EXPECT_DOUBLE_EQ(c.transfer(0, 0, 1), 1e5 + 5);  // 1 GB at 10 GB/s = 0.1 s, plus 5 us
  EXPECT_DOUBLE_EQ(c.transfer(0, 1, 1), 0);
  EXPECT_DOUBLE_EQ(Simulator(c).makespan({0, 1}), 1e6 + 1e5 + 5);
}

TEST(Simulator, PerDeviceComputeTimes) {
  DataflowGraph g;
  g.addNode(Node{"a", "x", 0, 0, {3, 7}});
  CostTable c(g, DeviceSet::uniform(2));
  Simulator sim(c);
  EXPECT_DOUBLE_EQ(sim.makespan({0}), 3);
  EXPECT_DOUBLE_EQ(sim.makespan({1}), 7);
  EXPECT_THROW(CostTable(g, DeviceSet::uniform(3)), InputError);
}

TEST(Simulator, NoiseIsSeededAndReproducible) {
  auto g = fixedGraph({{"a", 10}, {"b", 20}, {"c", 30}, {"d", 5}},
                      {{"a", "b", 5}, {"a", "c", 5}, {"b", "d", 2}, {"c", "d", 2}});
  CostTable c(g, DeviceSet::uniform(2));
  SimOptions o;
  o.noise = 0.2;
  o.seed = 42;
  Simulator s1(c, o), s2(c, o);
  const Assignment a{0, 1, 0, 1};
  double m1 = s1.makespan(a), m2 = s2.makespan(a);
  EXPECT_DOUBLE_EQ(m1, m2);
  EXPECT_NE(m1, s1.makespan(a));  // fresh draws on every call
  o.seed = 43;
  EXPECT_NE(Simulator(c, o).makespan(a), m1);
  EXPECT_NE(m1, Simulator(c).makespan(a));
  o.noise = -1;
  EXPECT_THROW(Simulator(c, o), InputError);
}

// makespanUpTo is the makespan wherever that is at most the cutoff, and otherwise a value above
// the cutoff and no larger than the makespan (it stops part-way); with noise it draws what
// makespan draws, so two simulators seeded alike stay in step whichever they call.
TEST(Simulator, MakespanUpToIsExactBelowTheCutoffAndABoundAboveIt) {
  const DataflowGraph g = generateGraph("llama-block");
  const CostTable c(g, DeviceSet::uniform(4));
  std::mt19937 rng(11);
  for (const double noise : {0.0, 0.3}) {
    SimOptions o;
    o.noise = noise;
    Simulator full(c, o), cut(c, o);
    for (int k = 0; k < 40; ++k) {
      Assignment a(c.nodes());
      for (int& d : a) d = static_cast<int>(rng() % 4);
      for (const double f : {0.5, 0.99, 1.0, 1.01, 2.0}) {
        const double ms = full.makespan(a);
        const double cutoff = ms * f;
        const double r = cut.makespanUpTo(a, cutoff);
        if (ms <= cutoff) {
          EXPECT_DOUBLE_EQ(r, ms) << "noise " << noise << ", cutoff x" << f;
        } else {
          EXPECT_GT(r, cutoff) << "noise " << noise << ", cutoff x" << f;
          EXPECT_LE(r, ms) << "noise " << noise << ", cutoff x" << f;
        }
      }
    }
  }
  // Paths without the early stop simulate in full.
  SimOptions seq;
  seq.discipline = Discipline::Sequence;
  Simulator a(c, seq), b(c, seq);
  const Assignment all0(c.nodes(), 0);
  EXPECT_DOUBLE_EQ(a.makespanUpTo(all0, 0), b.makespan(all0));
}

TEST(Simulator, ValidateAssignmentNamesTheProblem) {
  auto g = fixedGraph({{"a", 1}, {"b", 1}}, {{"a", "b", 1}});
  CostTable c(g, DeviceSet::uniform(2));
  EXPECT_THROW(validateAssignment({0}, c), InputError);
  try {
    validateAssignment({0, 2}, c, "a.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a.json: assignment[1]"), std::string::npos) << e.what();
  }
}

TEST(LowerBound, HandChecked) {
  auto g =
      fixedGraph({{"a", 10}, {"b", 20}, {"c", 30}, {"d", 40}}, {{"a", "b", 100}, {"c", "d", 100}});
  CostTable c(g, DeviceSet::uniform(4));
  LowerBound lb = lowerBound(c);
  EXPECT_DOUBLE_EQ(lb.critical_path_us, 70);
  EXPECT_DOUBLE_EQ(lb.work_us, 25);
  EXPECT_DOUBLE_EQ(lb.value(), 70);
  CostTable c1(g, DeviceSet::uniform(1));
  EXPECT_DOUBLE_EQ(lowerBound(c1).value(), 100);
}

}  // namespace
}  // namespace doppler

// Invariants on every simulated schedule, over the shipped paper graphs and the generators,
// with random assignments, both cost models, with and without noise.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "schedule_invariants.h"

namespace doppler {
namespace {

struct Case {
  std::string name;
  DataflowGraph graph;
};

std::vector<Case> allGraphs() {
  std::vector<Case> out;
  const std::string dir = std::string(DOPPLER_SHARED_DATA) + "/doppler-graphs";
  if (std::filesystem::exists(dir))
    for (auto& f : std::filesystem::directory_iterator(dir))
      out.push_back({f.path().filename().string(), readGraphFile(f.path().string())});
  for (auto& info : generatorKinds()) out.push_back({info.kind, generateGraph(info.kind)});
  return out;
}

class Invariants : public ::testing::TestWithParam<int> {};

TEST_P(Invariants, HoldOnRandomAssignments) {
  const int devices = GetParam();
  auto graphs = allGraphs();
  ASSERT_GE(graphs.size(), 4u);
  std::mt19937 rng(7);
  for (const Case& cs : graphs) {
    DeviceSet d = DeviceSet::uniform(devices);
    CostTable c(cs.graph, d);
    const double lb = lowerBound(c).value();
    for (int trial = 0; trial < 4; ++trial) {
      Assignment a(c.nodes());
      std::uniform_int_distribution<int> pick(0, devices - 1);
      for (int& x : a) x = trial == 0 ? 0 : pick(rng);
      for (CostModel model : {CostModel::Reference, CostModel::Links})
        for (double noise : {0.0, 0.3}) {
          SimOptions o;
          o.model = model;
          o.noise = noise;
          o.seed = 11 + trial;
          Simulator sim(c, o);
          SimResult r = sim.run(a);
          auto bad = testing::scheduleViolations(c, a, r, model);
          EXPECT_TRUE(bad.empty())
              << cs.name << " " << toString(model) << " noise " << noise << ": " << bad.front();
          if (noise == 0) {
            EXPECT_GE(r.schedule.makespan_us, lb * (1 - 1e-12)) << cs.name;
            // The makespan-only path agrees with the recording path.
            EXPECT_DOUBLE_EQ(sim.makespan(a), r.schedule.makespan_us);
          }
          // (Contention need not lengthen the makespan: a delayed transfer can reorder a
          // device's queue for the better, one of Graham's scheduling anomalies.)
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, Invariants, ::testing::Values(1, 2, 4, 8));

TEST(FastPath, MatchesTheEventLoopExactly) {
  std::mt19937 rng(3);
  for (const Case& cs : allGraphs()) {
    CostTable c(cs.graph, DeviceSet::uniform(4));
    for (double noise : {0.0, 0.25}) {
      SimOptions fast, slow;
      fast.noise = slow.noise = noise;
      fast.seed = slow.seed = 5;
      slow.event_loop = true;
      Simulator a(c, fast), b(c, slow);
      for (int trial = 0; trial < 5; ++trial) {
        Assignment as(c.nodes());
        for (int& x : as) x = static_cast<int>(rng() % 4);
        SimResult ra = a.run(as), rb = b.run(as);
        ASSERT_EQ(ra.schedule.makespan_us, rb.schedule.makespan_us) << cs.name;
        for (int v = 0; v < c.nodes(); ++v)
          ASSERT_EQ(ra.schedule.nodes[v].start_us, rb.schedule.nodes[v].start_us)
              << cs.name << " node " << v;
        ASSERT_EQ(ra.order, rb.order);
        ASSERT_EQ(ra.schedule.transfers.size(), rb.schedule.transfers.size());
      }
    }
  }
}

TEST(Simulator, SingleDeviceMakespanIsTotalWork) {
  for (const Case& cs : allGraphs()) {
    CostTable c(cs.graph, DeviceSet::uniform(1));
    double total = 0;
    for (int v = 0; v < c.nodes(); ++v) total += c.compute(v, 0);
    EXPECT_NEAR(Simulator(c).makespan(Assignment(c.nodes(), 0)), total, total * 1e-12) << cs.name;
  }
}

TEST(Simulator, NoiseChangesExecutionOrderButNotValidity) {
  auto g = generateGraph("llama-layer");
  CostTable c(g, DeviceSet::uniform(4));
  Assignment a(c.nodes());
  for (int v = 0; v < c.nodes(); ++v) a[v] = v % 4;
  SimOptions o;
  o.noise = 0.5;
  Simulator noisy(c, o);
  auto base = Simulator(c).run(a).order;
  bool differs = false;
  for (int i = 0; i < 20 && !differs; ++i) differs = noisy.run(a).order != base;
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace doppler

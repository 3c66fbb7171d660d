// Invariants on every simulated schedule, over the repository's text graphs (tests/data), the
// generators and, when present, the paper graphs, with random assignments, both cost models, with
// and without noise.
#include <gtest/gtest.h>

#include <random>

#include "core/graph/generators.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "schedule_invariants.h"
#include "tests/support/data.h"

namespace doppler {
namespace {

using Case = testing::NamedGraph;

// Two sets of graphs: the repository's text graphs (tests/data) and the generated workloads,
// always there; and the paper's six, when the data folder holds them (else the test is skipped).
enum class GraphSet { Local, Paper };

std::vector<Case> graphsOf(GraphSet set) {
  if (set == GraphSet::Paper) return testing::readPaperGraphs();
  std::vector<Case> out = testing::readTestGraphs();
  for (auto& info : generatorKinds()) out.push_back({info.kind, generateGraph(info.kind)});
  EXPECT_EQ(out.size(), 3 + generatorKinds().size());
  return out;
}

std::string setName(GraphSet set) {
  return set == GraphSet::Paper ? "Paper" : "Local";
}
void PrintTo(GraphSet set, std::ostream* os) {
  *os << setName(set);
}

class Invariants : public ::testing::TestWithParam<std::tuple<GraphSet, int>> {};

TEST_P(Invariants, HoldOnRandomAssignments) {
  const auto [set, devices] = GetParam();
  const std::vector<Case> graphs = graphsOf(set);
  if (graphs.empty()) return;  // skipped: no paper graphs
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

INSTANTIATE_TEST_SUITE_P(Graphs, Invariants,
                         ::testing::Combine(::testing::Values(GraphSet::Local, GraphSet::Paper),
                                            ::testing::Values(1, 2, 4, 8)),
                         [](const auto& info) {
                           return setName(std::get<0>(info.param)) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "devices";
                         });

class OnGraphs : public ::testing::TestWithParam<GraphSet> {};

TEST_P(OnGraphs, FastPathMatchesTheEventLoopExactly) {
  const std::vector<Case> graphs = graphsOf(GetParam());
  if (graphs.empty()) return;
  std::mt19937 rng(3);
  for (const Case& cs : graphs) {
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

TEST_P(OnGraphs, SingleDeviceMakespanIsTotalWork) {
  const std::vector<Case> graphs = graphsOf(GetParam());
  if (graphs.empty()) return;
  for (const Case& cs : graphs) {
    CostTable c(cs.graph, DeviceSet::uniform(1));
    double total = 0;
    for (int v = 0; v < c.nodes(); ++v) total += c.compute(v, 0);
    EXPECT_NEAR(Simulator(c).makespan(Assignment(c.nodes(), 0)), total, total * 1e-12) << cs.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, OnGraphs, ::testing::Values(GraphSet::Local, GraphSet::Paper),
                         [](const auto& info) { return setName(info.param); });

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

// Disciplines through the pipeline: under the reference cost model and `sequence`, every list
// scheduler's simulated timeline is its planned one, exactly; fifo is what it always was; the
// execution order comes from the plan, the method, a given order or the topological order; a
// given assignment without an order, or an order that deadlocks, is an InputError.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/common/input_error.h"
#include "core/common/numbered.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/pipeline/place_and_simulate.h"
#include "tests/support/data.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

// A random DAG with one compute time per device (some zero) and fixed transfer times (some
// zero). `integers`: whole microseconds, so that many priorities, starts and finishes tie.
DataflowGraph randomDag(uint32_t seed, int n, int devices, bool integers) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> time(0.5, 100);
  auto draw = [&](double zeroChance) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < zeroChance) return 0.0;
    const double t = time(rng);
    return integers ? std::round(t) : t;
  };
  std::vector<testing::NodeSpec> nodes;
  std::vector<testing::EdgeSpec> edges;
  for (int v = 0; v < n; ++v) {
    testing::NodeSpec node{numbered("n", v), {}};
    for (int d = 0; d < devices; ++d) node.compute_us.push_back(draw(0.05));
    nodes.push_back(node);
    // Up to three inputs among the previous twelve nodes.
    const int inputs = v == 0 ? 0 : static_cast<int>(rng() % 4);
    for (int k = 0; k < inputs; ++k) {
      const int u = v - 1 - static_cast<int>(rng() % std::min(v, 12));
      const std::string src = numbered("n", u), dst = node.id;
      bool dup = false;
      for (const auto& e : edges) dup = dup || (std::get<0>(e) == src && std::get<1>(e) == dst);
      if (!dup) edges.emplace_back(src, dst, draw(0.1));
    }
  }
  return testing::graphOf(nodes, edges, "random" + std::to_string(seed));
}

// Four devices of different speeds, so the FLOP-based workloads cost differently on each.
DeviceSet mixedDevices() {
  DeviceSet d = DeviceSet::uniform(4);
  d.devices[1].tflops = 4.5;
  d.devices[3].tflops = 15.7;
  return d;
}

const std::vector<std::string> kListMethods{"critical-path", "heft", "cpop", "etf"};

PlaceOutcome place(const DataflowGraph& g, const DeviceSet& d, const std::string& method,
                   Discipline discipline, const ParamValues& params = {}) {
  PlaceRequest request;
  request.graph = &g;
  request.devices = &d;
  request.settings.method = method;
  request.settings.params = params;
  request.settings.discipline = discipline;
  return placeAndSimulate(request);
}

// The simulated timeline under sequence is the planned one: every start, finish and the
// makespan, compared exactly.
void expectSequenceIsThePlan(const DataflowGraph& g, const DeviceSet& d, const std::string& what) {
  for (const std::string& method : kListMethods)
    for (const char* insertion : {"false", "true"}) {
      const PlaceOutcome out =
          place(g, d, method, Discipline::Sequence, {{"insertion", insertion}});
      const std::string label = what + " " + method + " insertion=" + insertion;
      ASSERT_TRUE(out.placement.planned) << label;
      EXPECT_EQ(out.order_source, OrderSource::Planned) << label;
      const Schedule& plan = *out.placement.planned;
      EXPECT_EQ(out.makespan(), plan.makespan_us) << label;
      for (int v = 0; v < g.nodeCount(); ++v) {
        ASSERT_EQ(out.sim.schedule.nodes[v].start_us, plan.nodes[v].start_us)
            << label << " node " << g.node(v).id;
        ASSERT_EQ(out.sim.schedule.nodes[v].finish_us, plan.nodes[v].finish_us)
            << label << " node " << g.node(v).id;
      }
    }
}

TEST(DisciplinePipeline, SequenceRunsEveryListSchedulersPlanExactlyOnThePaperWorkloads) {
  for (const auto& info : generatorKinds()) {
    const DataflowGraph g = generateGraph(info.kind);
    expectSequenceIsThePlan(g, DeviceSet::uniform(4), info.kind + " on 4 uniform");
    expectSequenceIsThePlan(g, mixedDevices(), info.kind + " on 4 mixed");
  }
}

TEST(DisciplinePipeline, SequenceRunsEveryListSchedulersPlanExactlyOnRandomDags) {
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    const int devices = 2 + static_cast<int>(seed % 4);
    const DataflowGraph g = randomDag(seed, 30 + static_cast<int>(seed) * 5, devices, seed % 2);
    expectSequenceIsThePlan(g, DeviceSet::uniform(devices), g.name);
  }
}

TEST(DisciplinePipeline, SequenceRunsEveryListSchedulersPlanExactlyOnThePaperGraphs) {
  const auto graphs = testing::readPaperGraphs();
  for (const auto& named : graphs)
    for (int devices : {4, 8}) {
      const DeviceSet d = DeviceSet::uniform(devices);
      expectSequenceIsThePlan(named.graph, d, named.name + " on " + std::to_string(devices));
    }
}

// The fifo discipline is the simulator as it always was: the same timeline as simulating the
// assignment with default options and no order.
TEST(DisciplinePipeline, FifoIsTheDefaultAndIgnoresTheOrder) {
  EXPECT_EQ(PlaceSettings{}.discipline, Discipline::Fifo);
  const DataflowGraph g = generateGraph("llama-block");
  const DeviceSet d = DeviceSet::uniform(4);
  const CostTable c(g, d);
  for (const char* method : {"heft", "etf", "round-robin", "local-search"}) {
    const PlaceOutcome out = place(g, d, method, Discipline::Fifo);
    const SimResult plain = Simulator(c).run(out.placement.assignment);
    EXPECT_EQ(out.makespan(), plain.schedule.makespan_us) << method;
    EXPECT_EQ(out.sim.order, plain.order) << method;
  }
}

TEST(DisciplinePipeline, TheExecutionOrderComesFromThePlanTheMethodOrTheTopologicalOrder) {
  const DataflowGraph g = generateGraph("ffnn");
  const DeviceSet d = DeviceSet::uniform(3);
  const CostTable c(g, d);
  // The simple baselines carry their topological assignment order.
  const PlaceOutcome rr = place(g, d, "round-robin", Discipline::Sequence);
  EXPECT_EQ(rr.order_source, OrderSource::Method);
  EXPECT_EQ(rr.execution_order, c.topoOrder());
  // Local search keeps its start's planned order and is judged under the discipline, so it is
  // never worse than its start run the same way.
  const PlaceOutcome ls = place(g, d, "local-search", Discipline::Sequence);
  const PlaceOutcome cp = place(g, d, "critical-path", Discipline::Sequence);
  EXPECT_EQ(ls.order_source, OrderSource::Method);
  EXPECT_EQ(ls.execution_order, cp.execution_order);
  EXPECT_LE(ls.makespan(), cp.makespan());
  // A given assignment without an order: the topological order under fifo, an error otherwise.
  PlaceRequest request;
  request.graph = &g;
  request.devices = &d;
  request.given = cp.placement.assignment;
  EXPECT_EQ(placeAndSimulate(request).order_source, OrderSource::Topological);
  for (Discipline discipline : {Discipline::Priority, Discipline::Sequence}) {
    request.settings.discipline = discipline;
    try {
      placeAndSimulate(request);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "order");
      EXPECT_NE(e.problem().find(toString(discipline)), std::string::npos) << e.what();
    }
  }
  // With the placement's order, the given assignment simulates as the placement did.
  request.given_order = cp.execution_order;
  request.settings.discipline = Discipline::Sequence;
  const PlaceOutcome again = placeAndSimulate(request);
  EXPECT_EQ(again.order_source, OrderSource::Given);
  EXPECT_EQ(again.makespan(), cp.makespan());
}

TEST(DisciplinePipeline, AGivenOrderThatDeadlocksNamesTheWaitingNode) {
  auto g = testing::fixedGraph({{"a", 10}, {"b", 10}}, {{"a", "b", 5}});
  const DeviceSet d = DeviceSet::uniform(2);
  PlaceRequest request;
  request.graph = &g;
  request.devices = &d;
  request.given = Assignment{0, 0};
  request.given_order = {1, 0};
  request.settings.discipline = Discipline::Priority;
  EXPECT_EQ(placeAndSimulate(request).makespan(), 20);
  request.settings.discipline = Discipline::Sequence;
  try {
    placeAndSimulate(request);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "order");
    EXPECT_NE(e.problem().find("waits forever for node 'b'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace doppler

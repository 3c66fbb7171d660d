// DecisionStep traces of the list schedulers and their replay with overrides: HEFT on the classic
// example of Topcuoglu, Hariri and Wu (2002), traces against plain runs, overrides that change
// nothing and overrides that change something, and every bad override.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/heuristics/list_scheduler.h"
#include "core/heuristics/method.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/simulator.h"
#include "tests/support/data.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

using testing::graphOf;

// Topcuoglu, Hariri and Wu, "Performance-effective and low-complexity task scheduling for
// heterogeneous computing", IEEE TPDS 13(3), 2002: Fig. 2, the sample DAG (edge weights are
// communication costs between different processors) and its table of computation costs on
// processors P1, P2, P3.
DataflowGraph topcuoglu() {
  return graphOf({{"n1", {14, 16, 9}},
                  {"n2", {13, 19, 18}},
                  {"n3", {11, 13, 19}},
                  {"n4", {13, 8, 17}},
                  {"n5", {12, 13, 10}},
                  {"n6", {13, 16, 9}},
                  {"n7", {7, 15, 11}},
                  {"n8", {5, 11, 14}},
                  {"n9", {18, 12, 20}},
                  {"n10", {21, 7, 16}}},
                 {{"n1", "n2", 18},
                  {"n1", "n3", 12},
                  {"n1", "n4", 9},
                  {"n1", "n5", 11},
                  {"n1", "n6", 14},
                  {"n2", "n8", 19},
                  {"n2", "n9", 16},
                  {"n3", "n7", 23},
                  {"n4", "n8", 27},
                  {"n4", "n9", 23},
                  {"n5", "n9", 13},
                  {"n6", "n8", 15},
                  {"n7", "n10", 17},
                  {"n8", "n10", 11},
                  {"n9", "n10", 13}},
                 "topcuoglu2002");
}

const Method& method(const std::string& name) {
  return findMethod(name);
}

Placement runTraced(const std::string& name, const CostTable& c, const DataflowGraph& g,
                    std::vector<DecisionOverride> overrides = {}) {
  DecisionControl control{true, std::move(overrides), &g};
  PlaceContext ctx{c, SimOptions{}, 1, 100, ProgressFn{}, CancelToken{}};
  ctx.decisions = &control;
  const Method& m = method(name);
  return m.place(ctx, Params(m.params(), {}));
}

Placement runPlain(const std::string& name, const CostTable& c) {
  PlaceContext ctx{c, SimOptions{}, 1, 100, ProgressFn{}, CancelToken{}};
  const Method& m = method(name);
  return m.place(ctx, Params(m.params(), {}));
}

std::vector<std::string> ids(const DataflowGraph& g, const std::vector<int>& order) {
  std::vector<std::string> out;
  for (int v : order) out.push_back(g.node(v).id);
  return out;
}

const std::vector<std::string> kSequential = {"critical-path", "heft", "cpop", "etf"};

TEST(DecisionTrace, HeftOnTheTopcuogluExampleEndsAt80) {
  const DataflowGraph g = topcuoglu();
  const DeviceSet d = DeviceSet::uniform(3);
  const CostTable c(g, d);
  const Placement p = runTraced("heft", c, g);
  // The paper's order (Table 1's upward ranks; n3 and n4 tie at 80, taken by index).
  EXPECT_EQ(ids(g, p.order), (std::vector<std::string>{"n1", "n3", "n4", "n2", "n5", "n6", "n9",
                                                       "n7", "n8", "n10"}));
  ASSERT_TRUE(p.planned);
  EXPECT_DOUBLE_EQ(p.planned->makespan_us, 80);
  // The paper's Fig. 4(a): where and when each task runs (P1..P3 are devices 0..2).
  const std::vector<std::tuple<std::string, int, double, double>> paper = {
      {"n1", 2, 0, 9},   {"n3", 2, 9, 28},  {"n4", 1, 18, 26}, {"n2", 0, 27, 40},
      {"n5", 2, 28, 38}, {"n6", 1, 26, 42}, {"n9", 1, 56, 68}, {"n7", 2, 38, 49},
      {"n8", 0, 57, 62}, {"n10", 1, 73, 80}};
  for (const auto& [id, dev, start, finish] : paper) {
    int v = 0;
    while (g.node(v).id != id) ++v;
    EXPECT_EQ(p.assignment[v], dev) << id;
    EXPECT_DOUBLE_EQ(p.planned->nodes[v].start_us, start) << id;
    EXPECT_DOUBLE_EQ(p.planned->nodes[v].finish_us, finish) << id;
  }
  // The trace: upward ranks as the paper's Table 1 gives them, the chosen node the highest of the
  // ready set, the chosen device the earliest finish, and the plan's makespan growing to 80.
  const DecisionTrace& t = p.decisions;
  ASSERT_EQ(t.steps.size(), 10u);
  EXPECT_EQ(t.node_score, "upward rank (us)");
  EXPECT_TRUE(t.node_higher_better);
  EXPECT_EQ(t.device_score, "earliest finish (us)");
  const std::vector<double> rank = {108, 77, 80, 80, 69, 63.333, 42.667, 35.667, 44.333, 14.667};
  double last = 0;
  for (size_t k = 0; k < t.steps.size(); ++k) {
    const DecisionStep& s = t.steps[k];
    EXPECT_EQ(s.node, p.order[k]);
    EXPECT_EQ(s.device, p.assignment[s.node]);
    double chosen = -1;
    for (const CandidateScore& cand : s.ready)
      if (cand.node == s.node) chosen = cand.score;
    for (const CandidateScore& cand : s.ready) {
      EXPECT_NEAR(cand.score, rank[cand.node], 1e-3) << g.node(cand.node).id;
      EXPECT_LE(cand.score, chosen + 1e-9);
    }
    ASSERT_EQ(s.devices.size(), 3u);
    for (const DeviceScore& x : s.devices) {
      EXPECT_DOUBLE_EQ(x.score, x.est_finish_us);
      EXPECT_NEAR(x.est_finish_us - x.est_start_us, c.compute(s.node, x.device),
                  1e-9 * x.est_finish_us);
      EXPECT_GE(x.est_finish_us, s.devices[s.device].est_finish_us);
    }
    EXPECT_DOUBLE_EQ(s.devices[s.device].est_start_us, p.planned->nodes[s.node].start_us);
    EXPECT_GE(s.partial_makespan_us, last);
    last = s.partial_makespan_us;
    EXPECT_FALSE(s.node_overridden || s.device_overridden);
  }
  EXPECT_DOUBLE_EQ(last, 80);
}

// The join look-ahead in every device row: never before the node's finish there, equal to it for
// a node without successors (n10) or whose successors' other inputs are not placed yet (n1).
TEST(DecisionTrace, TheJoinLookaheadIsRecordedForEveryDevice) {
  const DataflowGraph g = topcuoglu();
  const DeviceSet d = DeviceSet::uniform(3);
  const CostTable c(g, d);
  for (const std::string& name : kSequential) {
    const Placement p = runTraced(name, c, g);
    bool waits = false;
    for (const DecisionStep& s : p.decisions.steps)
      for (const DeviceScore& x : s.devices) {
        EXPECT_GE(x.join_us, x.est_finish_us) << name << " " << g.node(s.node).id;
        if (s.node == 0 || s.node == 9) {
          EXPECT_DOUBLE_EQ(x.join_us, x.est_finish_us) << name;
        }
        waits = waits || x.join_us > x.est_finish_us;
      }
    EXPECT_TRUE(waits) << name;  // the example's joins (n8, n9, n10) split somewhere
  }
}

// a and b (200 us each) feed the join j; their data takes 800 us to move. Critical-path puts a on
// P1, then b on P2, where it starts sooner, and the join waits for a transfer: the look-ahead
// shows it (join at 1,000 us on P2 against 400 on P1).
TEST(DecisionTrace, TheJoinLookaheadShowsASplitJoin) {
  const DataflowGraph g = testing::splitJoin();
  const DeviceSet d = DeviceSet::uniform(2);
  const CostTable c(g, d);
  const Placement p = runTraced("critical-path", c, g);
  ASSERT_EQ(p.decisions.steps.size(), 3u);
  const DecisionStep& b = p.decisions.steps[1];
  ASSERT_EQ(g.node(b.node).id, "b");
  EXPECT_EQ(b.device, 1);
  EXPECT_DOUBLE_EQ(b.devices[0].est_finish_us, 400);
  EXPECT_DOUBLE_EQ(b.devices[0].join_us, 400);
  EXPECT_DOUBLE_EQ(b.devices[1].est_finish_us, 200);
  EXPECT_DOUBLE_EQ(b.devices[1].join_us, 1000);
  // a alone: nothing placed beside it yet.
  EXPECT_DOUBLE_EQ(p.decisions.steps[0].devices[0].join_us, 200);
  // The earliest-join rule scores the devices by it and takes P1.
  const Method& m = method("critical-path");
  DecisionControl control{true, {}, &g};
  PlaceContext ctx{c, SimOptions{}, 1, 100, ProgressFn{}, CancelToken{}};
  ctx.decisions = &control;
  const Placement j = m.place(ctx, Params(m.params(), {{"device_rule", "earliest-join"}}));
  EXPECT_EQ(j.decisions.device_score, "earliest join (us)");
  EXPECT_FALSE(j.decisions.device_higher_better);
  EXPECT_EQ(j.decisions.steps[1].device, 0);
  EXPECT_DOUBLE_EQ(j.decisions.steps[1].devices[0].score, 400);
  EXPECT_DOUBLE_EQ(j.decisions.steps[1].devices[1].score, 1000);
}

TEST(DecisionTrace, TracedRunEqualsThePlainRun) {
  auto graphs = testing::readTestGraphs();
  graphs.push_back({"llama-block", generateGraph("llama-block")});
  for (const auto& [name, g] : graphs)
    for (int devices : {2, 4}) {
      const DeviceSet d = DeviceSet::uniform(devices);
      const CostTable c(g, d);
      for (const std::string& m : kSequential) {
        const Placement plain = runPlain(m, c), traced = runTraced(m, c, g);
        EXPECT_EQ(traced.assignment, plain.assignment) << m << " on " << name;
        EXPECT_EQ(traced.order, plain.order) << m << " on " << name;
        EXPECT_TRUE(plain.decisions.steps.empty()) << "recorded without being asked";
        ASSERT_EQ(static_cast<int>(traced.decisions.steps.size()), g.nodeCount());
        EXPECT_DOUBLE_EQ(traced.decisions.steps.back().partial_makespan_us,
                         traced.planned->makespan_us);
      }
    }
}

TEST(DecisionTrace, OverridingWithTheChoiceMadeChangesNothing) {
  const DataflowGraph g = generateGraph("ffnn");
  const DeviceSet d = DeviceSet::uniform(4);
  const CostTable c(g, d);
  for (const std::string& m : kSequential) {
    const Placement base = runTraced(m, c, g);
    for (int step : {0, 7, g.nodeCount() / 2, g.nodeCount() - 1}) {
      const DecisionStep& s = base.decisions.steps[step];
      const Placement same = runTraced(m, c, g, {{step, s.node, -1}, {step, -1, s.device}});
      EXPECT_EQ(same.assignment, base.assignment) << m << " step " << step;
      EXPECT_EQ(same.order, base.order) << m << " step " << step;
      EXPECT_TRUE(same.decisions.steps[step].node_overridden);
      EXPECT_TRUE(same.decisions.steps[step].device_overridden);
    }
  }
}

TEST(DecisionTrace, AnOverrideKeepsThePrefixAndReplaysTheRest) {
  const DataflowGraph g = generateGraph("llama-block");
  const DeviceSet d = DeviceSet::uniform(4);
  const CostTable c(g, d);
  for (const std::string& m : kSequential) {
    const Placement base = runTraced(m, c, g);
    // A step with a choice to change: at least two ready nodes.
    int step = 1;
    while (base.decisions.steps[step].ready.size() < 2) ++step;
    const DecisionStep& s = base.decisions.steps[step];
    const int other = s.ready[0].node == s.node ? s.ready[1].node : s.ready[0].node;
    const int otherDevice = (s.device + 1) % d.size();
    for (const DecisionOverride& o :
         {DecisionOverride{step, other, -1}, DecisionOverride{step, -1, otherDevice}}) {
      const Placement alt = runTraced(m, c, g, {o});
      for (int k = 0; k < step; ++k) {
        EXPECT_EQ(alt.decisions.steps[k].node, base.decisions.steps[k].node) << m << " " << k;
        EXPECT_EQ(alt.decisions.steps[k].device, base.decisions.steps[k].device) << m << " " << k;
      }
      const DecisionStep& a = alt.decisions.steps[step];
      if (o.node >= 0) {
        EXPECT_EQ(a.node, other) << m;
        EXPECT_TRUE(a.node_overridden && !a.device_overridden);
      } else {
        EXPECT_EQ(a.node, s.node) << m;
        EXPECT_EQ(a.device, otherDevice) << m;
        EXPECT_EQ(alt.assignment[s.node], otherDevice) << m;
      }
      // A complete, valid placement whose plan agrees with the trace.
      validateAssignment(alt.assignment, c);
      EXPECT_DOUBLE_EQ(alt.decisions.steps.back().partial_makespan_us, alt.planned->makespan_us);
    }
  }
}

TEST(DecisionTrace, PipelineOverrideMatchesSimulatingItsAssignment) {
  const DataflowGraph g = generateGraph("chainmm");
  const DeviceSet d = DeviceSet::uniform(4);
  PlaceRequest r;
  r.graph = &g;
  r.devices = &d;
  r.settings.method = "heft";
  r.record_decisions = true;
  r.overrides = {{5, -1, 3}};
  const PlaceOutcome o = placeAndSimulate(r);
  EXPECT_EQ(o.placement.decisions.steps[5].device, 3);
  PlaceRequest s;
  s.graph = &g;
  s.devices = &d;
  s.given = o.placement.assignment;
  EXPECT_DOUBLE_EQ(placeAndSimulate(s).makespan(), o.makespan());
}

// The field and the words of an InputError, for EXPECT_THROW-like checks.
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.where() + " | " + e.problem();
  }
  return "no error";
}

TEST(DecisionTrace, BadOverridesAreInputErrors) {
  const DataflowGraph g = topcuoglu();
  const DeviceSet d = DeviceSet::uniform(3);
  const CostTable c(g, d);
  auto with = [&](std::vector<DecisionOverride> o) {
    return errorOf([&] { runTraced("heft", c, g, std::move(o)); });
  };
  EXPECT_EQ(with({{10, 1, -1}}),
            "--override 10:node | step 10 is out of range: the graph has 10 nodes, so steps run "
            "from 0 to 9");
  EXPECT_EQ(with({{-1, -1, 0}}).substr(0, 12), "--override -");
  EXPECT_EQ(with({{2, -1, 3}}), "--override 2:device | no device 3: the device set has 3 (0 to 2)");
  // n10 (index 9) is not ready at step 1: only n1's successors are.
  EXPECT_EQ(with({{1, 9, -1}}),
            "--override 1:node | node 'n10' is not ready at step 1 (ready: 'n2', 'n3', 'n4', "
            "'n5', 'n6')");
  EXPECT_EQ(with({{1, 2, -1}, {1, 3, -1}}), "--override 1:node | step 1 is overridden twice");
  EXPECT_EQ(with({{1, 2, 0}}),
            "--override 1:node | an override changes either the node or the "
            "device");
  // Methods that do not place node by node refuse, through the pipeline.
  PlaceRequest r;
  r.graph = &g;
  r.devices = &d;
  r.settings.method = "local-search";
  r.record_decisions = true;
  EXPECT_NE(errorOf([&] { placeAndSimulate(r); })
                .find("--decisions | method local-search does "
                      "not place node by node"),
            std::string::npos);
}

}  // namespace
}  // namespace doppler

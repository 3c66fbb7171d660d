// Placement methods: parameters, the registry, hand-checked list schedules, validity of every
// method on every generated and shipped graph, reproducibility and the local search's contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/heuristics/list_scheduler.h"
#include "core/heuristics/local_search.h"
#include "core/heuristics/method.h"
#include "core/heuristics/search_start.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "tests/sim/schedule_invariants.h"
#include "tests/support/data.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

// ---------------------------------------------------------------------------------------------
// Helpers

PlaceContext makeContext(const CostTable& c) {
  return PlaceContext{c, SimOptions{}, 1, 5000, ProgressFn{}, CancelToken{}};
}

Placement run(const std::string& method, const CostTable& c, const ParamValues& values = {},
              uint64_t seed = 1, long budget = 200) {
  const Method& m = findMethod(method);
  PlaceContext ctx = makeContext(c);
  ctx.seed = seed;
  ctx.budget = budget;
  return m.place(ctx, Params(m.params(), values));
}

using testing::NamedGraph;

// The repository's text graphs (tests/data) and the four generated workloads.
std::vector<NamedGraph> allGraphs() {
  auto out = testing::readTestGraphs();
  for (const char* kind : {"chainmm", "ffnn", "llama-block", "llama-layer"})
    out.push_back({kind, generateGraph(kind)});
  return out;
}

// Checks a planned schedule under the reference cost model: spans match the assignment and the
// costs, inputs arrive before a node starts, no two nodes overlap on a device, the makespan is
// the last finish, transfers are exactly the cross-device edges.
std::vector<std::string> planViolations(const CostTable& c, const Placement& p) {
  std::vector<std::string> bad;
  if (!p.planned) return {"no planned schedule"};
  const Schedule& s = *p.planned;
  const double eps = 1e-9 * std::max(1.0, s.makespan_us);
  if (static_cast<int>(s.nodes.size()) != c.nodes()) return {"planned nodes: wrong size"};
  double last = 0;
  for (int v = 0; v < c.nodes(); ++v) {
    const NodeSpan& n = s.nodes[v];
    if (n.node != v || n.device != p.assignment[v])
      bad.push_back("node " + std::to_string(v) + ": wrong node or device");
    if (std::abs(n.finish_us - n.start_us - c.compute(v, n.device)) > eps)
      bad.push_back("node " + std::to_string(v) + ": duration differs from its compute");
    if (n.start_us < -eps) bad.push_back("node " + std::to_string(v) + ": negative start");
    for (const int* e = c.inBegin(v); e != c.inEnd(v); ++e) {
      const int u = c.edgeSrc(*e);
      const double arrive = s.nodes[u].finish_us + c.transfer(*e, p.assignment[u], n.device);
      if (n.start_us < arrive - eps)
        bad.push_back("node " + std::to_string(v) + " starts before input from " +
                      std::to_string(u) + " arrives");
    }
    last = std::max(last, n.finish_us);
  }
  if (std::abs(last - s.makespan_us) > eps) bad.push_back("makespan is not the last finish");
  for (int d = 0; d < c.devices(); ++d) {
    std::vector<std::pair<double, double>> spans;
    for (int v = 0; v < c.nodes(); ++v)
      if (p.assignment[v] == d) spans.push_back({s.nodes[v].start_us, s.nodes[v].finish_us});
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
      if (spans[i].first < spans[i - 1].second - eps)
        bad.push_back("overlap on device " + std::to_string(d));
  }
  size_t cross = 0;
  for (int e = 0; e < c.edges(); ++e)
    if (p.assignment[c.edgeSrc(e)] != p.assignment[c.edgeDst(e)]) ++cross;
  if (s.transfers.size() != cross) bad.push_back("transfers are not the cross-device edges");
  return bad;
}

// Per-device node order (by start time, ties by node index).
std::vector<std::vector<int>> deviceOrders(const Schedule& s, int devices) {
  std::vector<std::vector<int>> out(devices);
  std::vector<int> idx(s.nodes.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int a, int b) { return s.nodes[a].start_us < s.nodes[b].start_us; });
  for (int v : idx) out[s.nodes[v].device].push_back(v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Params

std::vector<ParamSpec> sampleSpecs() {
  return {{"x", ParamSpec::Type::Number, "0.5", 0, 1, {}, ""},
          {"k", ParamSpec::Type::Integer, "3", 1, 10, {}, ""},
          {"mode", ParamSpec::Type::Choice, "a", 0, 0, {"a", "b"}, ""},
          {"on", ParamSpec::Type::Bool, "false", 0, 0, {}, ""}};
}

void expectParamError(const ParamValues& v, const std::string& where) {
  try {
    Params p(sampleSpecs(), v);
    ADD_FAILURE() << "accepted a bad value for " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), where);
    EXPECT_EQ(e.file(), "");
    EXPECT_FALSE(e.problem().empty());
  }
}

TEST(Params, DefaultsAndValues) {
  Params d(sampleSpecs(), {});
  EXPECT_DOUBLE_EQ(d.number("x"), 0.5);
  EXPECT_EQ(d.integer("k"), 3);
  EXPECT_EQ(d.choice("mode"), "a");
  EXPECT_FALSE(d.flag("on"));
  EXPECT_EQ(d.values().size(), 4u);

  Params p(sampleSpecs(), {{"x", "1"}, {"k", "10"}, {"mode", "b"}, {"on", "1"}});
  EXPECT_DOUBLE_EQ(p.number("x"), 1.0);
  EXPECT_EQ(p.integer("k"), 10);
  EXPECT_EQ(p.choice("mode"), "b");
  EXPECT_TRUE(p.flag("on"));
  EXPECT_EQ(p.values().at("on"), "true");
  EXPECT_TRUE(Params(sampleSpecs(), {{"on", "true"}}).flag("on"));
  EXPECT_FALSE(Params(sampleSpecs(), {{"on", "0"}}).flag("on"));
  EXPECT_EQ(Params(sampleSpecs(), {{"k", "4.0"}}).integer("k"), 4);
}

TEST(Params, RejectsBadValues) {
  expectParamError({{"nope", "1"}}, "--param nope");
  expectParamError({{"x", "abc"}}, "--param x");
  expectParamError({{"x", ""}}, "--param x");
  expectParamError({{"x", "1.5"}}, "--param x");
  expectParamError({{"x", "-0.1"}}, "--param x");
  expectParamError({{"x", "nan"}}, "--param x");
  expectParamError({{"x", "0.5abc"}}, "--param x");
  expectParamError({{"k", "2.5"}}, "--param k");
  expectParamError({{"k", "0"}}, "--param k");
  expectParamError({{"k", "11"}}, "--param k");
  expectParamError({{"mode", "c"}}, "--param mode");
  expectParamError({{"on", "yes"}}, "--param on");
  try {
    Params p(sampleSpecs(), {{"nope", "1"}});
  } catch (const InputError& e) {
    EXPECT_NE(e.problem().find("x, k, mode, on"), std::string::npos) << e.problem();
  }
}

TEST(Params, EveryMethodsDefaultsResolve) {
  for (const auto& m : methods()) {
    EXPECT_NO_THROW(Params(m->params(), {})) << m->name();
    for (const auto& spec : m->params()) EXPECT_FALSE(spec.description.empty()) << spec.name;
  }
}

// ---------------------------------------------------------------------------------------------
// Registry

TEST(Registry, OrderAndLookup) {
  std::vector<std::string> names;
  for (const auto& m : methods()) names.push_back(m->name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"critical-path", "heft", "cpop", "etf", "round-robin",
                                      "random", "load-balance", "single-device", "local-search"}));
  EXPECT_EQ(findMethod("heft").name(), "heft");
  EXPECT_TRUE(findMethod("local-search").isSearch());
  EXPECT_FALSE(findMethod("critical-path").isSearch());
  try {
    findMethod("magic");
    ADD_FAILURE() << "unknown method accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--method");
    EXPECT_NE(e.problem().find("unknown method 'magic'"), std::string::npos);
    EXPECT_NE(e.problem().find("critical-path, heft, cpop"), std::string::npos) << e.problem();
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-checked list schedules

// Fork-join a -> {b, c} -> d on 2 devices; device 1 is slow for b and c.
// Transfers: a->b 5, a->c 5, b->d 8, c->d 2. Mean compute a 10, b 50, c 45, d 10.
// Bottom levels: d 10, b 50+8+10 = 68, c 45+2+10 = 57, a 10+5+68 = 83.
DataflowGraph forkJoin() {
  return testing::graphOf({{"a", {10, 10}}, {"b", {20, 80}}, {"c", {30, 60}}, {"d", {10, 10}}},
                          {{"a", "b", 5}, {"a", "c", 5}, {"b", "d", 8}, {"c", "d", 2}});
}

TEST(ListScheduler, BottomAndTopLevelsByHand) {
  auto g = forkJoin();
  CostTable c(g, DeviceSet::uniform(2));
  EXPECT_EQ(bottomLevels(c), (std::vector<double>{83, 68, 57, 10}));
  EXPECT_EQ(topLevels(c), (std::vector<double>{0, 15, 15, 73}));
  EXPECT_EQ(bottomLevels(c, 1, 0), (std::vector<double>{70, 60, 55, 10}));
}

TEST(ListScheduler, CriticalPathByHand) {
  auto g = forkJoin();
  CostTable c(g, DeviceSet::uniform(2));
  // a: starts at 0 on both -> d0 [0,10]. Ready b(68), c(57): b; starts d0 10, d1 15 -> d0
  // [10,30]. c: d0 30, d1 15 -> d1 [15,75]. d: d0 max(30, 75+2) = 77, d1 max(75, 30+8) = 75 ->
  // d1 [75,85].
  Placement p = run("critical-path", c);
  EXPECT_EQ(p.assignment, (Assignment{0, 0, 1, 1}));
  EXPECT_EQ(p.order, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_TRUE(p.planned);
  EXPECT_DOUBLE_EQ(p.planned->makespan_us, 85);
  EXPECT_DOUBLE_EQ(p.planned->nodes[2].start_us, 15);
  EXPECT_DOUBLE_EQ(p.planned->nodes[3].start_us, 75);
  ASSERT_EQ(p.planned->transfers.size(), 2u);
  EXPECT_EQ(p.planned->transfers[0].edge, 1);
  EXPECT_DOUBLE_EQ(p.planned->transfers[0].finish_us, 15);
  EXPECT_DOUBLE_EQ(p.planned->transfers[1].start_us, 30);
  EXPECT_DOUBLE_EQ(p.planned->transfers[1].finish_us, 38);
  // The simulator agrees: every device runs its nodes in the planned order.
  EXPECT_DOUBLE_EQ(Simulator(c).makespan(p.assignment), 85);
  // ETF makes the same choices here: (b, d0) starts at 10, tied with (c, d0), b has the larger
  // bottom level; then c starts earliest on d1 (15), d on d1 (75).
  Placement e = run("etf", c);
  EXPECT_EQ(e.assignment, (Assignment{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(e.planned->makespan_us, 85);
}

TEST(ListScheduler, HeftAndCpopByHand) {
  auto g = forkJoin();
  CostTable c(g, DeviceSet::uniform(2));
  // HEFT: a d0 [0,10]; b: finish d0 30, d1 95 -> d0 [10,30]; c: finish d0 60, d1 15+60 = 75 ->
  // d0 [30,60]; d: finish d0 70, d1 max(38, 62)+10 = 72 -> d0 [60,70].
  Placement h = run("heft", c);
  EXPECT_EQ(h.assignment, (Assignment{0, 0, 0, 0}));
  ASSERT_TRUE(h.planned);
  EXPECT_DOUBLE_EQ(h.planned->makespan_us, 70);
  EXPECT_DOUBLE_EQ(h.planned->nodes[2].start_us, 30);
  EXPECT_TRUE(h.planned->transfers.empty());
  EXPECT_DOUBLE_EQ(Simulator(c).makespan(h.assignment), 70);
  // The same with earliest-finish as the critical-path device rule.
  Placement cf = run("critical-path", c, {{"device_rule", "earliest-finish"}});
  EXPECT_EQ(cf.assignment, h.assignment);
  // CPOP: priorities a 83, b 15+68 = 83, c 15+57 = 72, d 73+10 = 83: the critical path is a, b, d
  // and costs 40 on d0, 100 on d1; c's finish on d0 is 60 < 75 on d1: all on d0, makespan 70.
  Placement cp = run("cpop", c);
  EXPECT_EQ(cp.assignment, (Assignment{0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(cp.planned->makespan_us, 70);
}

TEST(ListScheduler, InsertionFillsIdleGaps) {
  // a (10) -> b (100, transfer 200 keeps it with a) and a -> c (30, transfer 5); f (4) is an
  // independent node of the lowest rank. HEFT: a d0 [0,10], b d0 [10,110], c d1 [15,45]; f fits
  // the idle gap [0,15] of d1 with insertion, else goes after c at 45.
  auto g = testing::graphOf({{"a", {10}}, {"b", {100}}, {"c", {30}}, {"f", {4}}},
                            {{"a", "b", 200}, {"a", "c", 5}});
  CostTable c(g, DeviceSet::uniform(2));
  Placement with = run("heft", c);
  EXPECT_EQ(with.assignment, (Assignment{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(with.planned->nodes[3].start_us, 0);
  EXPECT_DOUBLE_EQ(with.planned->nodes[2].start_us, 15);
  EXPECT_DOUBLE_EQ(with.planned->makespan_us, 110);
  EXPECT_EQ(with.order, (std::vector<int>{0, 1, 2, 3}));
  Placement without = run("heft", c, {{"insertion", "false"}});
  EXPECT_EQ(without.assignment, (Assignment{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(without.planned->nodes[3].start_us, 45);
  // The simulator runs f first on d1 (ready at 0): the insertion plan is what happens.
  SimResult r = Simulator(c).run(with.assignment);
  EXPECT_DOUBLE_EQ(r.schedule.nodes[3].start_us, 0);
  EXPECT_DOUBLE_EQ(r.schedule.makespan_us, 110);
}

TEST(ListScheduler, TieBreakRules) {
  // Three independent sources; x has two successors. Equal bottom levels (10 + 0 + 1).
  auto g =
      testing::graphOf({{"p", {10}}, {"q", {10}}, {"x", {10}}, {"y", {1}}, {"z", {1}}, {"w", {1}}},
                       {{"p", "w", 0}, {"q", "w", 0}, {"x", "y", 0}, {"x", "z", 0}});
  CostTable c(g, DeviceSet::uniform(1));
  EXPECT_EQ(run("critical-path", c).order.front(), 0);
  EXPECT_EQ(run("critical-path", c, {{"tie_break", "most-successors"}}).order.front(), 2);
  // Random: seeded, and over many seeds each source comes first sometimes.
  std::vector<int> firsts(6, 0);
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    auto a = run("critical-path", c, {{"tie_break", "random"}}, seed);
    auto b = run("critical-path", c, {{"tie_break", "random"}}, seed);
    EXPECT_EQ(a.order, b.order);
    ++firsts[a.order.front()];
  }
  EXPECT_GT(firsts[0], 0);
  EXPECT_GT(firsts[1], 0);
  EXPECT_GT(firsts[2], 0);
}

TEST(ListScheduler, CriticalPathOnChainMatchesSimulator) {
  auto g = testing::graphOf({{"a", {10}}, {"b", {20}}, {"c", {5}}, {"d", {7}}},
                            {{"a", "b", 3}, {"b", "c", 3}, {"c", "d", 3}});
  CostTable c(g, DeviceSet::uniform(3));
  Placement p = run("critical-path", c);
  EXPECT_EQ(p.assignment, (Assignment{0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(p.planned->makespan_us, 42);
  EXPECT_DOUBLE_EQ(Simulator(c).makespan(p.assignment), 42);
  // Generated chains too (the chainmm generator with one tile is a chain of matmuls).
  for (const auto& gc : allGraphs()) {
    CostTable ct(gc.graph, DeviceSet::uniform(1));
    Placement q = run("critical-path", ct);
    EXPECT_NEAR(q.planned->makespan_us, Simulator(ct).makespan(q.assignment),
                1e-9 * q.planned->makespan_us)
        << gc.name;
  }
}

TEST(ListScheduler, LeastLoadedRule) {
  // Four equal independent nodes on two devices: least-loaded alternates.
  auto g = testing::graphOf({{"a", {5}}, {"b", {5}}, {"c", {5}}, {"d", {5}}}, {});
  CostTable c(g, DeviceSet::uniform(2));
  Placement p = run("critical-path", c, {{"device_rule", "least-loaded"}});
  EXPECT_EQ(p.assignment, (Assignment{0, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(p.planned->makespan_us, 10);
}

TEST(ListScheduler, EarliestJoinRuleKeepsAJoinsInputsTogether) {
  // a and b (200 each) feed the zero-compute join j; their data takes 800 to move. Earliest
  // start puts b on d1 (start 0) and j waits for a transfer: 1,000. Earliest join sees that j
  // could start at 400 with b beside a on d0, against 1,000 on d1.
  auto g = testing::splitJoin();
  CostTable c(g, DeviceSet::uniform(2));
  Placement start = run("critical-path", c);
  EXPECT_EQ(start.assignment[1], 1);
  EXPECT_DOUBLE_EQ(start.planned->makespan_us, 1000);
  Placement join = run("critical-path", c, {{"device_rule", "earliest-join"}});
  EXPECT_EQ(join.assignment, (Assignment{0, 0, 0}));
  EXPECT_DOUBLE_EQ(join.planned->makespan_us, 400);
  EXPECT_DOUBLE_EQ(Simulator(c).makespan(join.assignment), 400);
  // On the fork-join graph the device that finishes c first also joins it with b first, so the
  // rule decides as earliest finish.
  auto fj = forkJoin();
  CostTable cf(fj, DeviceSet::uniform(2));
  EXPECT_EQ(run("critical-path", cf, {{"device_rule", "earliest-join"}}).assignment,
            run("critical-path", cf, {{"device_rule", "earliest-finish"}}).assignment);
}

// ---------------------------------------------------------------------------------------------
// Every method on every graph

// On 2 and 4 devices: valid assignments and orders, valid simulated
// schedules under both cost models, valid plans that agree with the simulator, never below the
// lower bound.
void expectEveryMethodValid(const std::vector<NamedGraph>& graphs) {
  for (const auto& gc : graphs) {
    for (int devices : {2, 4}) {
      CostTable c(gc.graph, DeviceSet::uniform(devices));
      const double lb = lowerBound(c).value();
      for (const auto& m : methods()) {
        const std::string what = gc.name + " / " + m->name() + " / " + std::to_string(devices);
        PlaceContext ctx = makeContext(c);
        ctx.seed = 3;
        ctx.budget = 300;
        Placement p = m->place(ctx, Params(m->params(), {}));
        ASSERT_EQ(static_cast<int>(p.assignment.size()), c.nodes()) << what;
        for (int dev : p.assignment) ASSERT_TRUE(dev >= 0 && dev < devices) << what;
        EXPECT_NO_THROW(validateAssignment(p.assignment, c)) << what;
        if (!p.order.empty()) {
          auto sorted = p.order;
          std::sort(sorted.begin(), sorted.end());
          for (int v = 0; v < c.nodes(); ++v) ASSERT_EQ(sorted[v], v) << what;
        }
        for (CostModel model : {CostModel::Reference, CostModel::Links}) {
          SimOptions o;
          o.model = model;
          SimResult r = Simulator(c, o).run(p.assignment);
          auto bad = testing::scheduleViolations(c, p.assignment, r, model);
          EXPECT_TRUE(bad.empty()) << what << " " << toString(model) << ": " << bad.front();
          EXPECT_GE(r.schedule.makespan_us, lb * (1 - 1e-12)) << what;
        }
        if (p.planned) {
          auto bad = planViolations(c, p);
          EXPECT_TRUE(bad.empty()) << what << ": " << bad.front();
          EXPECT_GE(p.planned->makespan_us, lb * (1 - 1e-12)) << what;
          // The plan and the simulator agree whenever every device runs its nodes in the
          // planned order.
          SimResult r = Simulator(c).run(p.assignment);
          if (deviceOrders(*p.planned, devices) == deviceOrders(r.schedule, devices)) {
            EXPECT_NEAR(p.planned->makespan_us, r.schedule.makespan_us,
                        1e-9 * r.schedule.makespan_us)
                << what;
          }
        }
        if (m->name() == "critical-path" || m->name() == "heft" || m->name() == "cpop" ||
            m->name() == "etf") {
          EXPECT_TRUE(p.planned.has_value()) << what;
        }
        if (m->name() == "local-search") {
          // The whole budget, unless the search reached the lower bound first (then it is
          // there, simulated).
          if (p.reached_lower_bound) {
            EXPECT_LE(p.evaluations, 300) << what;
            EXPECT_LE(Simulator(c).makespan(p.assignment), lb * (1 + 1e-9)) << what;
          } else {
            EXPECT_EQ(p.evaluations, 300) << what;
          }
        }
      }
    }
  }
}

TEST(Methods, ValidOnEveryGraph) {
  auto graphs = allGraphs();
  ASSERT_EQ(graphs.size(), 7u);
  expectEveryMethodValid(graphs);
}

TEST(Methods, ValidOnThePaperGraphs) {
  const auto graphs = testing::readPaperGraphs();
  if (graphs.empty()) return;
  expectEveryMethodValid(graphs);
}

TEST(Methods, SimpleBaselinesByHand) {
  auto g = testing::graphOf({{"a", {1}}, {"b", {2}}, {"c", {3}}, {"d", {4}}, {"e", {5}}},
                            {{"a", "b", 1}, {"a", "c", 1}});
  CostTable c(g, DeviceSet::uniform(2));
  // Topological order with ties by index: a b c d e.
  EXPECT_EQ(run("round-robin", c).assignment, (Assignment{0, 1, 0, 1, 0}));
  EXPECT_EQ(run("single-device", c, {{"device", "1"}}).assignment, (Assignment{1, 1, 1, 1, 1}));
  // Loads: a->d0 (1), b->d1 (2), c->d0 (4), d->d1 (6), e->d0 (9).
  EXPECT_EQ(run("load-balance", c).assignment, (Assignment{0, 1, 0, 1, 0}));
  // By count: alternate.
  EXPECT_EQ(run("load-balance", c, {{"weight", "count"}}).assignment, (Assignment{0, 1, 0, 1, 0}));
  auto r1 = run("random", c, {}, 5), r2 = run("random", c, {}, 5);
  EXPECT_EQ(r1.assignment, r2.assignment);
  EXPECT_FALSE(r1.planned);
  try {
    run("single-device", c, {{"device", "2"}});
    ADD_FAILURE() << "device 2 of 2 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--param device");
  }
}

TEST(Methods, RandomUsesEveryDeviceAndTheSeed) {
  DataflowGraph g = generateGraph("ffnn");
  CostTable c(g, DeviceSet::uniform(4));
  auto a = run("random", c, {}, 1).assignment, b = run("random", c, {}, 2).assignment;
  EXPECT_NE(a, b);
  std::vector<int> count(4, 0);
  for (int d : a) ++count[d];
  for (int k : count) EXPECT_GT(k, 0);
}

// A priority given from elsewhere (the general policy's SEL logits, for its hybrid decode)
// replaces the bottom levels: of two independent nodes on one device, the higher goes first,
// and a decision trace names the priority.
TEST(ListScheduler, AGivenPriorityReplacesTheBottomLevels) {
  auto g = testing::fixedGraph({{"a", 30}, {"b", 10}}, {});
  CostTable c(g, DeviceSet::uniform(1));
  ListConfig lc;
  EXPECT_EQ(listSchedule(c, lc).order, (std::vector<int>{0, 1}));  // a's bottom level is larger
  lc.priority = {1.0, 2.0};
  lc.priority_name = "SEL logit";
  DecisionControl record{true, {}, nullptr};
  const Placement p = listSchedule(c, lc, &record);
  EXPECT_EQ(p.order, (std::vector<int>{1, 0}));
  EXPECT_EQ(p.decisions.node_score, "SEL logit");
  EXPECT_DOUBLE_EQ(p.decisions.steps[0].ready[1].score, 2.0);
}

// ---------------------------------------------------------------------------------------------
// Local search

// The repository's FFNN-like graph: four identical shards a layer leave room to improve on
// critical-path.
DataflowGraph searchGraph() {
  return testing::readTestGraph("ffnn_60nodes.txt");
}

TEST(LocalSearch, ExactBudgetReproducibleNeverWorse) {
  DataflowGraph g = searchGraph();
  CostTable c(g, DeviceSet::uniform(4));
  Simulator sim(c);
  const double startMs = sim.makespan(run("critical-path", c).assignment);
  for (long budget : {1L, 2L, 7L, 500L}) {
    Placement p = run("local-search", c, {}, 9, budget);
    EXPECT_EQ(p.evaluations, budget);
    EXPECT_FALSE(p.cancelled);
    EXPECT_LE(sim.makespan(p.assignment), startMs) << budget;
    EXPECT_FALSE(p.planned);
  }
  Placement a = run("local-search", c, {}, 4, 800);
  Placement b = run("local-search", c, {}, 4, 800);
  EXPECT_EQ(a.assignment, b.assignment);
  EXPECT_EQ(run("local-search", c, {{"start", "random"}}, 4, 300).assignment,
            run("local-search", c, {{"start", "random"}}, 4, 300).assignment);
  // Budget 0: the start, unevaluated.
  Placement z = run("local-search", c, {}, 4, 0);
  EXPECT_EQ(z.evaluations, 0);
  EXPECT_EQ(z.assignment, run("critical-path", c).assignment);
}

TEST(LocalSearch, ImprovesOnItsStart) {
  DataflowGraph g = searchGraph();
  CostTable c(g, DeviceSet::uniform(4));
  Simulator sim(c);
  const double cp = sim.makespan(run("critical-path", c).assignment);
  const double ls = sim.makespan(run("local-search", c, {}, 1, 3000).assignment);
  EXPECT_LT(ls, cp * 0.95) << "critical-path " << cp << ", local-search " << ls;
  // From a random start it must also make progress.
  const double rnd = sim.makespan(run("random", c, {}, 1).assignment);
  const double lsr =
      sim.makespan(run("local-search", c, {{"start", "random"}}, 1, 3000).assignment);
  EXPECT_LT(lsr, rnd);
}

// A budget that cannot be spent usefully is not spent: 3 nodes on 4 devices have 64 placements,
// and a budget of 10^12 (which ran for days) searches them all and stops with the optimum; a
// search that reaches the lower bound stops there.
TEST(LocalSearch, AnExhaustibleSpaceIsSearchedWholeAndTheBoundStopsTheSearch) {
  DataflowGraph g;
  for (const char* id : {"a", "b", "c"}) g.addNode(Node{id, "op", 0, 0, {10}, 0});
  g.addEdge(Edge{0, 1, 0, 100.0});
  g.addEdge(Edge{0, 2, 0, 100.0});
  const CostTable c(g, DeviceSet::uniform(4));
  const Placement p = run("local-search", c, {}, 1, 1'000'000'000'000L);
  EXPECT_TRUE(p.exhaustive);
  EXPECT_EQ(p.evaluations, 1 + 64);
  // The optimum, by brute force: all on one device (30 us); the bound (20 us) is not reachable.
  double best = 1e300;
  Simulator sim(c);
  for (int k = 0; k < 64; ++k) best = std::min(best, sim.makespan({k % 4, k / 4 % 4, k / 16}));
  EXPECT_DOUBLE_EQ(sim.makespan(p.assignment), best);
  EXPECT_DOUBLE_EQ(best, 30.0);
  EXPECT_FALSE(p.reached_lower_bound);
  // A chain on 2 devices: all on one is the bound; a large budget stops there.
  DataflowGraph chain;
  for (const char* id : {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
                         "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x"})
    chain.addNode(Node{id, "op", 0, 0, {10}, 0});
  for (int v = 1; v < chain.nodeCount(); ++v) chain.addEdge(Edge{v - 1, v, 0, 5.0});
  const CostTable cc(chain, DeviceSet::uniform(2));
  const Placement q = run("local-search", cc, {{"start", "random"}}, 1, 1'000'000L);
  EXPECT_FALSE(q.exhaustive);  // 2^24 placements, more than the budget
  EXPECT_TRUE(q.reached_lower_bound);
  EXPECT_LT(q.evaluations, 1'000'000);
  EXPECT_DOUBLE_EQ(Simulator(cc).makespan(q.assignment), 240.0);
}

// A time limit stops a search whose budget would run for days; what it returns is still never
// worse than its start.
TEST(LocalSearch, ATimeLimitStopsItNeverWorseThanItsStart) {
  DataflowGraph g = searchGraph();
  CostTable c(g, DeviceSet::uniform(4));
  Simulator sim(c);
  const double startMs = sim.makespan(run("critical-path", c).assignment);
  const Placement p = run("local-search", c, {{"time_ms", "1"}}, 3, 1'000'000'000'000L);
  EXPECT_LT(p.evaluations, 1'000'000'000'000L);
  EXPECT_GT(p.evaluations, 0);
  EXPECT_FALSE(p.cancelled);
  EXPECT_LE(sim.makespan(p.assignment), startMs);
}

// Guided moves go where the hints send them: with every node's weight on device 3 and only
// single-node moves, every node the search moved is on device 3; with node weights on one node,
// only that node moves.
TEST(LocalSearch, GuidedMovesFollowTheHints) {
  DataflowGraph g = searchGraph();
  CostTable c(g, DeviceSet::uniform(4));
  const int n = c.nodes();
  const Assignment start(n, 0);
  PlaceContext ctx = makeContext(c);
  ctx.budget = 400;
  AnnealConfig cfg;
  cfg.p_neighbour = cfg.p_cluster = cfg.p_swap = 0;
  cfg.t0 = 10;  // hot: most moves are taken, so many nodes move
  MoveHints hints;
  hints.device_weight.assign(static_cast<size_t>(n) * 4, 0.0);
  for (int v = 0; v < n; ++v) hints.device_weight[static_cast<size_t>(v) * 4 + 3] = 1;
  cfg.hints = &hints;
  const Placement p = anneal(ctx, start, cfg);
  int moved = 0;
  for (int v = 0; v < n; ++v)
    if (p.assignment[v] != 0) {
      ++moved;
      EXPECT_EQ(p.assignment[v], 3) << "node " << v;
    }
  EXPECT_GT(moved, 0);
  hints.device_weight.clear();
  hints.node_weight.assign(n, 0.0);
  hints.node_weight[5] = 1;
  const Placement q = anneal(ctx, start, cfg);
  for (int v = 0; v < n; ++v) {
    if (v != 5) {
      EXPECT_EQ(q.assignment[v], 0) << "node " << v;
    }
  }
}

TEST(LocalSearch, ReportsProgressAndHonoursCancellation) {
  DataflowGraph g = searchGraph();
  CostTable c(g, DeviceSet::uniform(4));
  const Method& m = findMethod("local-search");
  CancelToken cancel;
  long calls = 0, lastDone = 0;
  PlaceContext ctx = makeContext(c);
  ctx.budget = 1000000;
  ctx.cancel = cancel;
  ctx.progress = [&](const Progress& pr) {
    ++calls;
    EXPECT_EQ(pr.total, 1000000);
    EXPECT_GE(pr.done, lastDone);
    EXPECT_GT(pr.best_makespan_us, 0);
    lastDone = pr.done;
    if (calls == 2) cancel.cancel();
  };
  Placement p = m.place(ctx, Params(m.params(), {}));
  EXPECT_TRUE(p.cancelled);
  EXPECT_GT(p.evaluations, 0);
  EXPECT_LT(p.evaluations, 1000000);
  EXPECT_EQ(static_cast<int>(p.assignment.size()), c.nodes());
  EXPECT_GE(calls, 2);
  // Cancelled before it starts: no evaluation at all, the start comes back.
  cancel.cancel();
  Placement q = m.place(ctx, Params(m.params(), {}));
  EXPECT_TRUE(q.cancelled);
  EXPECT_EQ(q.evaluations, 0);
  EXPECT_EQ(q.assignment, run("critical-path", c).assignment);
}

// start=critical-path-join begins from critical-path with the earliest-join device rule: with no
// budget the search returns exactly that placement, which differs from critical-path's here.
TEST(LocalSearch, StartsFromCriticalPathWithTheJoinRule) {
  auto g = testing::splitJoin();
  CostTable c(g, DeviceSet::uniform(2));
  const Placement join = run("critical-path", c, {{"device_rule", "earliest-join"}});
  const Placement z = run("local-search", c, {{"start", "critical-path-join"}}, 1, 0);
  EXPECT_EQ(z.assignment, join.assignment);
  EXPECT_NE(z.assignment, run("local-search", c, {}, 1, 0).assignment);
}

// A start registered by the program (search_start.h; the CLI registers the general policy) is
// one more choice of "start": the search begins from exactly that assignment and follows its
// order. A start that does not place every node on a device is refused, naming it.
TEST(LocalSearch, StartsFromARegisteredStart) {
  DataflowGraph g = searchGraph();
  CostTable c(g, DeviceSet::uniform(4));
  Simulator sim(c);
  const Placement rr = run("round-robin", c);
  // The registry outlives this test: the starts hold copies, not references to its locals.
  auto built = std::make_shared<int>(0);
  registerSearchStart("test-round-robin", "round-robin, for this test",
                      [rr, built](const PlaceContext&) {
                        ++*built;
                        return rr;
                      });
  const Method& m = findMethod("local-search");
  const auto specs = m.params();
  const auto start = std::find_if(specs.begin(), specs.end(),
                                  [](const ParamSpec& p) { return p.name == "start"; });
  ASSERT_NE(start, specs.end());
  EXPECT_NE(std::find(start->choices.begin(), start->choices.end(), "test-round-robin"),
            start->choices.end());
  EXPECT_NE(start->description.find("round-robin, for this test"), std::string::npos);

  const Placement z = run("local-search", c, {{"start", "test-round-robin"}}, 1, 0);
  EXPECT_EQ(z.assignment, rr.assignment);
  EXPECT_EQ(z.order, executionOrder(rr));
  EXPECT_FALSE(z.start_makespan_us);  // nothing evaluated
  EXPECT_NE(z.assignment, run("critical-path", c).assignment);
  const Placement p = run("local-search", c, {{"start", "test-round-robin"}}, 1, 2000);
  EXPECT_EQ(p.evaluations, 2000);
  EXPECT_LT(sim.makespan(p.assignment), sim.makespan(rr.assignment));
  ASSERT_TRUE(p.start_makespan_us);
  EXPECT_DOUBLE_EQ(*p.start_makespan_us, sim.makespan(rr.assignment, executionOrder(rr)));
  EXPECT_EQ(*built, 2);

  registerSearchStart("test-short", "too few nodes", [rr](const PlaceContext&) {
    Placement bad = rr;
    bad.assignment.pop_back();
    return bad;
  });
  registerSearchStart("test-off", "a device out of range", [rr](const PlaceContext& ctx) {
    Placement bad = rr;
    bad.assignment[3] = ctx.costs.devices();
    return bad;
  });
  for (const char* bad : {"test-short", "test-off"}) {
    try {
      run("local-search", c, {{"start", bad}}, 1, 10);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("start=") + bad), std::string::npos)
          << e.what();
    }
  }
}

TEST(LocalSearch, SingleDeviceAndBadParams) {
  auto g = testing::graphOf({{"a", {1}}, {"b", {2}}}, {{"a", "b", 1}});
  CostTable c(g, DeviceSet::uniform(1));
  Placement p = run("local-search", c, {}, 1, 50);
  EXPECT_EQ(p.assignment, (Assignment{0, 0}));
  EXPECT_LE(p.evaluations, 50);
  CostTable c2(g, DeviceSet::uniform(2));
  EXPECT_THROW(run("local-search", c2, {{"p_swap", "0.6"}, {"p_neighbour", "0.6"}}), InputError);
  EXPECT_THROW(run("local-search", c2, {{"start", "etf"}}), InputError);
}

}  // namespace
}  // namespace doppler

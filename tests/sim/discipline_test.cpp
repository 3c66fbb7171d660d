// Execution disciplines (core/sim/discipline.h, docs/simulator.md#disciplines): names, orders,
// hand-checked fifo / priority / sequence timelines, the sequence fast path against the event
// loop, and deadlocking orders.
#include "core/sim/discipline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/sim/simulator.h"
#include "schedule_invariants.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

using testing::fixedGraph;

SimOptions withDiscipline(Discipline d, CostModel model = CostModel::Reference,
                          bool eventLoop = false) {
  SimOptions o;
  o.discipline = d;
  o.model = model;
  o.event_loop = eventLoop;
  return o;
}

// Every way of simulating one discipline: the reference fast path (where there is one), the
// event loop, and the links model (which, without two transfers on one link, agrees).
std::vector<SimOptions> everyPath(Discipline d) {
  return {withDiscipline(d), withDiscipline(d, CostModel::Reference, true),
          withDiscipline(d, CostModel::Links)};
}

// The violations of scheduleViolations that apply to a discipline: priority is work-conserving
// but not first-ready-first-served; sequence is neither.
std::vector<std::string> violations(const CostTable& c, const Assignment& a, const SimResult& r,
                                    CostModel model, Discipline d) {
  std::vector<std::string> out;
  for (std::string& v : testing::scheduleViolations(c, a, r, model)) {
    if (d != Discipline::Fifo && v.starts_with("FIFO:")) continue;
    if (d == Discipline::Sequence && v.starts_with("work conservation:")) continue;
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<double> starts(const SimResult& r) {
  std::vector<double> out;
  for (const NodeSpan& s : r.schedule.nodes) out.push_back(s.start_us);
  return out;
}

TEST(Discipline, NamesRoundTripAndUnknownNamesListTheKnownOnes) {
  for (Discipline d : {Discipline::Fifo, Discipline::Priority, Discipline::Sequence})
    EXPECT_EQ(disciplineFromName(toString(d)), d);
  EXPECT_FALSE(usesOrder(Discipline::Fifo));
  EXPECT_TRUE(usesOrder(Discipline::Priority));
  EXPECT_TRUE(usesOrder(Discipline::Sequence));
  try {
    disciplineFromName("lifo");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--discipline");
    EXPECT_EQ(e.problem(), "unknown discipline 'lifo' (known: fifo, priority, sequence)");
  }
}

TEST(Discipline, OrdersMustListEveryNodeOnce) {
  EXPECT_NO_THROW(validateOrder(std::vector<int>{2, 0, 1}, 3));
  EXPECT_THROW(validateOrder(std::vector<int>{0, 1}, 3), InputError);
  EXPECT_THROW(validateOrder(std::vector<int>{0, 1, 1}, 3), InputError);
  EXPECT_THROW(validateOrder(std::vector<int>{0, 1, 3}, 3), InputError);
  EXPECT_EQ(orderRanks(std::vector<int>{2, 0, 1}, 3), (std::vector<int>{1, 2, 0}));
  const Assignment a{1, 0, 1, 0};
  EXPECT_EQ(deviceSequences(a, std::vector<int>{3, 2, 1, 0}, 2),
            (std::vector<std::vector<int>>{{3, 1}, {2, 0}}));
}

// d1 runs z (0-20) while x (ready at 15, from r on d0) and y (ready at 13, from s on d2) wait
// for it. Fifo then takes y, the first ready; priority takes x, which the order ranks higher.
// (The two transfers use different links, so the links model agrees.)
TEST(Discipline, PriorityFollowsTheOrderWhereFifoFollowsReadiness) {
  auto g = fixedGraph({{"r", 10}, {"s", 10}, {"z", 20}, {"x", 10}, {"y", 10}},
                      {{"r", "x", 5}, {"s", "y", 3}});
  CostTable c(g, DeviceSet::uniform(3));
  const Assignment a{0, 2, 1, 1, 1};
  const std::vector<int> order{0, 1, 2, 3, 4};  // r, s, z, x, y
  for (const SimOptions& o : everyPath(Discipline::Fifo)) {
    SimResult r = Simulator(c, o).run(a, order);  // fifo ignores the order
    EXPECT_EQ(starts(r), (std::vector<double>{0, 0, 0, 30, 20})) << toString(o.model);
  }
  for (const SimOptions& o : everyPath(Discipline::Priority)) {
    SimResult r = Simulator(c, o).run(a, order);
    EXPECT_EQ(starts(r), (std::vector<double>{0, 0, 0, 20, 30})) << toString(o.model);
    EXPECT_EQ(r.schedule.makespan_us, 40);
    const auto bad = violations(c, a, r, o.model, Discipline::Priority);
    EXPECT_TRUE(bad.empty()) << bad.front();
  }
  // With y ranked above x, priority agrees with fifo.
  SimResult r =
      Simulator(c, withDiscipline(Discipline::Priority)).run(a, std::vector<int>{0, 1, 2, 4, 3});
  EXPECT_EQ(starts(r), (std::vector<double>{0, 0, 0, 30, 20}));
}

// d1's sequence is x then y. y is ready at 13 and x only at 15: priority (work-conserving) runs
// y at once; sequence leaves d1 idle until x is ready, although y is.
TEST(Discipline, SequenceWaitsForTheNextPlannedNode) {
  auto g = fixedGraph({{"r", 10}, {"s", 10}, {"x", 10}, {"y", 10}}, {{"r", "x", 5}, {"s", "y", 3}});
  CostTable c(g, DeviceSet::uniform(3));
  const Assignment a{0, 2, 1, 1};
  const std::vector<int> order{0, 1, 2, 3};
  for (const SimOptions& o : everyPath(Discipline::Priority))
    EXPECT_EQ(starts(Simulator(c, o).run(a, order)), (std::vector<double>{0, 0, 23, 13}))
        << toString(o.model);
  for (const SimOptions& o : everyPath(Discipline::Sequence)) {
    Simulator sim(c, o);
    SimResult r = sim.run(a, order);
    EXPECT_EQ(starts(r), (std::vector<double>{0, 0, 15, 25})) << toString(o.model);
    EXPECT_EQ(r.schedule.makespan_us, 35);
    EXPECT_EQ(sim.makespan(a, order), 35);
    ASSERT_EQ(r.idle_gaps.size(), 3u);  // d0 after r, d1 before x, d2 after s
    EXPECT_EQ(r.idle_gaps[1].device, 1);
    EXPECT_EQ(r.idle_gaps[1].start_us, 0);
    EXPECT_EQ(r.idle_gaps[1].finish_us, 15);
    const auto bad = violations(c, a, r, o.model, Discipline::Sequence);
    EXPECT_TRUE(bad.empty()) << bad.front();
  }
}

TEST(Discipline, AnEmptyOrderMeansTheTopologicalOrder) {
  auto g = fixedGraph({{"r", 10}, {"x", 10}, {"y", 10}}, {{"r", "x", 5}, {"r", "y", 3}});
  CostTable c(g, DeviceSet::uniform(2));
  const Assignment a{0, 1, 1};
  for (Discipline d : {Discipline::Priority, Discipline::Sequence}) {
    Simulator sim(c, withDiscipline(d));
    EXPECT_EQ(starts(sim.run(a)), starts(sim.run(a, c.topoOrder()))) << toString(d);
  }
}

TEST(Discipline, ASequenceThatWaitsForeverIsAnError) {
  // b needs a, both on d0, and the order puts b first.
  auto g = fixedGraph({{"a", 10}, {"b", 10}}, {{"a", "b", 5}});
  CostTable c(g, DeviceSet::uniform(2));
  const std::vector<int> order{1, 0};
  EXPECT_EQ(findSequenceDeadlock(c, {0, 0}, order), 1);
  EXPECT_EQ(findSequenceDeadlock(c, {0, 1}, order), -1);  // on two devices it runs
  for (const SimOptions& o : everyPath(Discipline::Sequence)) {
    Simulator sim(c, o);
    try {
      sim.run({0, 0}, order);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "order");
      EXPECT_NE(e.problem().find("waits forever for node 1"), std::string::npos) << e.what();
    }
    EXPECT_THROW(sim.makespan({0, 0}, order), InputError);
    EXPECT_EQ(sim.makespan({0, 1}, order), 25);
  }
  // Priority is work-conserving: the same order only ranks b above a.
  EXPECT_EQ(Simulator(c, withDiscipline(Discipline::Priority)).makespan({0, 0}, order), 20);
  // A cycle through two devices: d0 runs c then a, d1 runs b then d; a -> b and d -> c.
  auto g2 = fixedGraph({{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}}, {{"a", "b", 0}, {"d", "c", 0}});
  CostTable c2(g2, DeviceSet::uniform(2));
  EXPECT_GE(findSequenceDeadlock(c2, {0, 1, 0, 1}, std::vector<int>{2, 1, 0, 3}), 0);
  EXPECT_THROW(Simulator(c2, withDiscipline(Discipline::Sequence))
                   .makespan({0, 1, 0, 1}, std::vector<int>{2, 1, 0, 3}),
               InputError);
}

// A random topological order: Kahn's algorithm taking a random ready node each time.
std::vector<int> randomTopologicalOrder(const CostTable& c, std::mt19937& rng) {
  std::vector<int> pending(c.nodes()), ready, order;
  for (int v = 0; v < c.nodes(); ++v)
    if ((pending[v] = c.inDegree(v)) == 0) ready.push_back(v);
  while (!ready.empty()) {
    const size_t k = rng() % ready.size();
    const int v = ready[k];
    ready[k] = ready.back();
    ready.pop_back();
    order.push_back(v);
    for (const int* e = c.outBegin(v); e != c.outEnd(v); ++e)
      if (--pending[c.edgeDst(*e)] == 0) ready.push_back(c.edgeDst(*e));
  }
  return order;
}

// The generated workloads on four devices, random assignments and random topological orders,
// with and without noise: the sequence fast path computes exactly the event loop's timeline, and
// priority timelines keep every invariant of a work-conserving schedule.
TEST(Discipline, SequenceFastPathMatchesTheEventLoopExactly) {
  std::mt19937 rng(17);
  for (const auto& info : generatorKinds()) {
    const DataflowGraph g = generateGraph(info.kind);
    CostTable c(g, DeviceSet::uniform(4));
    for (double noise : {0.0, 0.25}) {
      SimOptions fast = withDiscipline(Discipline::Sequence), slow = fast;
      fast.noise = slow.noise = noise;
      fast.seed = slow.seed = 5;
      slow.event_loop = true;
      Simulator a(c, fast), b(c, slow);
      SimOptions prio = withDiscipline(Discipline::Priority);
      prio.noise = noise;
      Simulator p(c, prio);
      for (int trial = 0; trial < 4; ++trial) {
        Assignment as(c.nodes());
        for (int& x : as) x = static_cast<int>(rng() % 4);
        const std::vector<int> order = randomTopologicalOrder(c, rng);
        SimResult ra = a.run(as, order), rb = b.run(as, order);
        ASSERT_EQ(ra.schedule.makespan_us, rb.schedule.makespan_us) << info.kind;
        for (int v = 0; v < c.nodes(); ++v)
          ASSERT_EQ(ra.schedule.nodes[v].start_us, rb.schedule.nodes[v].start_us)
              << info.kind << " node " << v;
        ASSERT_EQ(ra.order, rb.order);
        ASSERT_EQ(ra.schedule.transfers.size(), rb.schedule.transfers.size());
        // Each device runs its nodes in the order's sequence.
        const auto seq = deviceSequences(as, order, 4);
        for (const auto& s : seq)
          for (size_t k = 1; k < s.size(); ++k)
            ASSERT_LE(ra.schedule.nodes[s[k - 1]].finish_us, ra.schedule.nodes[s[k]].start_us);
        auto bad = violations(c, as, ra, CostModel::Reference, Discipline::Sequence);
        EXPECT_TRUE(bad.empty()) << info.kind << ": " << bad.front();
        SimResult rp = p.run(as, order);
        bad = violations(c, as, rp, CostModel::Reference, Discipline::Priority);
        EXPECT_TRUE(bad.empty()) << info.kind << ": " << bad.front();
      }
    }
  }
}

// Without noise, a fifo timeline's own start order makes priority and sequence replay it exactly.
// The order is by (start, finish, topological position): a zero-length node goes before a node
// that starts when it does, as it ran.
TEST(Discipline, FifosStartOrderReplaysTheFifoTimeline) {
  std::mt19937 rng(23);
  for (const auto& info : generatorKinds()) {
    const DataflowGraph g = generateGraph(info.kind);
    CostTable c(g, DeviceSet::uniform(3));
    std::vector<int> topoRank = orderRanks(c.topoOrder(), c.nodes());
    Assignment as(c.nodes());
    for (int& x : as) x = static_cast<int>(rng() % 3);
    for (CostModel model : {CostModel::Reference, CostModel::Links}) {
      SimResult fifo = Simulator(c, withDiscipline(Discipline::Fifo, model)).run(as);
      std::vector<int> order = c.topoOrder();
      const auto& spans = fifo.schedule.nodes;
      std::sort(order.begin(), order.end(), [&](int x, int y) {
        if (spans[x].start_us != spans[y].start_us) return spans[x].start_us < spans[y].start_us;
        if (spans[x].finish_us != spans[y].finish_us)
          return spans[x].finish_us < spans[y].finish_us;
        return topoRank[x] < topoRank[y];
      });
      for (Discipline d : {Discipline::Priority, Discipline::Sequence}) {
        SimResult r = Simulator(c, withDiscipline(d, model)).run(as, order);
        EXPECT_EQ(starts(r), starts(fifo)) << info.kind << " " << toString(d);
      }
    }
  }
}

}  // namespace
}  // namespace doppler

// Decision traces of the dual policy's episodes without a network: the critical-path teacher
// (both components heuristic) and replays of a recorded decision sequence, with overrides. The
// learned components are checked end to end by `doppler eval --decisions` (train_cli_test.cpp).
#include "core/policy/episode_trace.h"

#include <gtest/gtest.h>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/heuristics/list_scheduler.h"
#include "core/policy/rollout.h"
#include "core/sim/simulator.h"

namespace doppler::policy {
namespace {

struct Fixture {
  DataflowGraph g = generateGraph("llama-block");
  DeviceSet d = DeviceSet::uniform(4);
  CostTable c{g, d};
  GraphFeatures f = graphFeatures(c);
};

TEST(EpisodeTrace, TheTeachersTraceIsItsGreedyEpisode) {
  Fixture x;
  DecisionControl control{true, {}, &x.g};
  const TracedEpisode t =
      traceEpisode(nullptr, x.c, x.f, &control, Component::Heuristic, Component::Heuristic);
  EpisodeOptions o;
  o.sel = o.plc = Component::Heuristic;
  const EpisodeResult e = runEpisode(PolicyScores{}, x.c, x.f, o);
  EXPECT_EQ(t.assignment, e.assignment);
  EXPECT_EQ(t.order, e.order);
  EXPECT_DOUBLE_EQ(t.planned_makespan_us, e.planned_makespan_us);
  ASSERT_EQ(static_cast<int>(t.trace.steps.size()), x.g.nodeCount());
  for (size_t k = 0; k < t.trace.steps.size(); ++k) {
    const DecisionStep& s = t.trace.steps[k];
    EXPECT_EQ(s.node, t.order[k]);
    double sum = 0;
    for (const CandidateScore& r : s.ready) sum += r.score;
    EXPECT_DOUBLE_EQ(sum, 1.0) << "the teacher puts all its weight on its pick";
    EXPECT_DOUBLE_EQ(s.devices[s.device].score, 1.0);
    for (const DeviceScore& dv : s.devices)
      EXPECT_NEAR(dv.est_finish_us - dv.est_start_us, x.c.compute(s.node, dv.device),
                  1e-9 * dv.est_finish_us);
  }
  EXPECT_DOUBLE_EQ(t.trace.steps.back().partial_makespan_us, t.planned_makespan_us);
}

TEST(EpisodeTrace, OverridesReplayFromTheChangedStep) {
  Fixture x;
  DecisionControl record{true, {}, &x.g};
  const TracedEpisode base =
      traceEpisode(nullptr, x.c, x.f, &record, Component::Heuristic, Component::Heuristic);
  const int step = 10;
  const int other = (base.trace.steps[step].device + 1) % 4;
  DecisionControl moved{true, {{step, -1, other}}, &x.g};
  const TracedEpisode alt =
      traceEpisode(nullptr, x.c, x.f, &moved, Component::Heuristic, Component::Heuristic);
  for (int k = 0; k < step; ++k) EXPECT_EQ(alt.order[k], base.order[k]);
  EXPECT_EQ(alt.assignment[base.order[step]], other);
  EXPECT_TRUE(alt.trace.steps[step].device_overridden);
  // Overriding with the choices made reproduces the episode.
  DecisionControl same{
      false, {{step, base.order[step], -1}, {step, -1, base.trace.steps[step].device}}, &x.g};
  EXPECT_EQ(
      traceEpisode(nullptr, x.c, x.f, &same, Component::Heuristic, Component::Heuristic).assignment,
      base.assignment);
}

TEST(EpisodeTrace, ARecordedSequenceReplaysAndBranches) {
  Fixture x;
  // HEFT's decisions (with insertion, which the episode never plans) as a stored run keeps them.
  const Placement heft = listSchedule(x.c, ListConfig{ListConfig::Selection::ReadyPriority,
                                                      ListConfig::DeviceRule::EarliestFinish});
  DecisionControl record{true, {}, &x.g};
  const TracedEpisode t = traceRecorded(x.c, x.f, heft.order, heft.assignment, &record);
  EXPECT_EQ(t.assignment, heft.assignment);
  EXPECT_EQ(t.order, heft.order);
  EXPECT_EQ(t.trace.node_score, "recorded pick");
  for (const DecisionStep& s : t.trace.steps)
    for (const CandidateScore& r : s.ready) EXPECT_EQ(r.score, r.node == s.node ? 1.0 : 0.0);
  // A changed device at step 5: steps before it on record, the step itself overridden, the rest
  // decided by the teacher (a complete, valid assignment).
  DecisionControl branch{true, {{5, -1, (heft.assignment[heft.order[5]] + 1) % 4}}, &x.g};
  const TracedEpisode b = traceRecorded(x.c, x.f, heft.order, heft.assignment, &branch);
  for (int k = 0; k <= 5; ++k) EXPECT_EQ(b.order[k], heft.order[k]);
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(b.assignment[heft.order[k]], heft.assignment[heft.order[k]]);
  EXPECT_NE(b.assignment[heft.order[5]], heft.assignment[heft.order[5]]);
  validateAssignment(b.assignment, x.c);
  // A record that is not a sequence of ready nodes is refused with the step.
  std::vector<int> reversed(heft.order.rbegin(), heft.order.rend());
  EXPECT_THROW(traceRecorded(x.c, x.f, reversed, heft.assignment, &record), InputError);
  EXPECT_THROW(traceRecorded(x.c, x.f, {0, 1}, heft.assignment, &record), InputError);
}

}  // namespace
}  // namespace doppler::policy

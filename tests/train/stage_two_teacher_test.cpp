// Stage II's teacher (core/train/stage_two_teacher.h): started from the policy's own placement it
// is never worse than that placement and can be far better than a fixed teacher from
// critical-path; what it returns replays to its makespan; an unknown start is an input error.
#include "core/train/stage_two_teacher.h"

#include <gtest/gtest.h>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"
#include "core/graph/generators.h"
#include "core/heuristics/method.h"
#include "core/sim/simulator.h"
#include "tests/support/graphs.h"

namespace doppler::train {
namespace {

class StageTwoTeacher : public ::testing::Test {
 protected:
  StageTwoTeacher() : graph_(generateGraph("ffnn")), costs_(graph_, DeviceSet::uniform(4)) {}
  Assignment search(long budget, uint64_t seed) const {
    const Method& ls = findMethod("local-search");
    PlaceContext ctx{costs_, SimOptions{}, seed, budget, {}, {}, nullptr};
    return ls.place(ctx, Params(ls.params(), {})).assignment;
  }
  double makespan(const Assignment& a) const {
    return Simulator(costs_).run(a).schedule.makespan_us;
  }
  DataflowGraph graph_;
  CostTable costs_;
};

TEST_F(StageTwoTeacher, FromItsOwnPlacementItIsNeverWorseAndBeatsAFixedTeacher) {
  // A placement far better than a short search from critical-path finds: what a good policy's
  // best episode would be.
  const Assignment good = search(100000, 3);
  const Teacher fixed = teacherOf(costs_, 50, "critical-path", 1, good);
  const Teacher own = teacherOf(costs_, 50, "own", 1, good);
  const Teacher both = teacherOf(costs_, 50, "both", 1, good);
  ASSERT_LT(makespan(good), 0.95 * fixed.makespan) << "the test needs a start the fixed teacher "
                                                      "cannot reach";
  EXPECT_LE(own.makespan, makespan(good) + 1e-6);
  EXPECT_LE(both.makespan, std::min(own.makespan, fixed.makespan) + 1e-6);
  // The fixed teacher ignores the own placement.
  const Teacher fixedFromBad =
      teacherOf(costs_, 50, "critical-path", 1, Assignment(costs_.nodes(), 0));
  EXPECT_EQ(fixedFromBad.assignment, fixed.assignment);
}

TEST_F(StageTwoTeacher, ItsDecisionsReplayToItsMakespan) {
  const Teacher t = teacherOf(costs_, 200, "both", 5, search(200, 9));
  ASSERT_EQ(static_cast<int>(t.assignment.size()), costs_.nodes());
  ASSERT_EQ(static_cast<int>(t.order.size()), costs_.nodes());
  EXPECT_DOUBLE_EQ(makespan(t.assignment), t.makespan);
  // The order is topological: every node after its inputs.
  std::vector<int> position(costs_.nodes());
  for (int k = 0; k < costs_.nodes(); ++k) position[t.order[k]] = k;
  for (int e = 0; e < costs_.edges(); ++e)
    EXPECT_LT(position[costs_.edgeSrc(e)], position[costs_.edgeDst(e)]);
  // Interchangeable devices come relabelled in order of first use.
  int next = 0;
  std::vector<int> seen(costs_.devices(), 0);
  for (const int v : t.order) {
    const int d = t.assignment[v];
    if (seen[d]++) continue;
    EXPECT_EQ(d, next++);
  }
}

// With `join`, critical-path's earliest-join placement competes: on a join whose inputs' data
// takes 4x their compute to move, it keeps them together (400 us) where HEFT and critical-path
// split them (1,000 us; a one-evaluation search stays at its start).
TEST(StageTwoTeacherJoin, TheEarliestJoinPlacementCompetes) {
  const DataflowGraph g = testing::splitJoin();
  const CostTable c(g, DeviceSet::uniform(2));
  const Assignment split = {0, 1, 0};
  EXPECT_DOUBLE_EQ(teacherOf(c, 1, "critical-path", 1, split).makespan, 1000);
  const Teacher t = teacherOf(c, 1, "critical-path", 1, split, true);
  EXPECT_DOUBLE_EQ(t.makespan, 400);
  EXPECT_EQ(t.assignment, (Assignment{0, 0, 0}));
}

TEST_F(StageTwoTeacher, AnUnknownStartIsAnInputError) {
  EXPECT_THROW(teacherOf(costs_, 10, "heft", 1, Assignment(costs_.nodes(), 0)), InputError);
  EXPECT_FALSE(isTeacherStart("random"));
  EXPECT_TRUE(isTeacherStart("own"));
}

}  // namespace
}  // namespace doppler::train

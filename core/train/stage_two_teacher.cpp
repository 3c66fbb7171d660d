#include "core/train/stage_two_teacher.h"

#include <limits>

#include "core/common/input_error.h"
#include "core/heuristics/local_search.h"
#include "core/heuristics/method.h"
#include "core/sim/simulator.h"
#include "core/train/device_labels.h"

namespace doppler::train {

bool isTeacherStart(const std::string& start) {
  return start == "critical-path" || start == "own" || start == "both";
}

void checkTeacherStart(const std::string& start) {
  if (!isTeacherStart(start))
    throw InputError("", "--teacher-start", start + " is not one of critical-path, own, both");
}

Teacher teacherOf(const CostTable& costs, long budget, const std::string& start, uint64_t seed,
                  const Assignment& own, bool join) {
  checkTeacherStart(start);
  Teacher best;
  best.makespan = std::numeric_limits<double>::infinity();
  auto consider = [&](const Assignment& a) {
    const SimResult r = Simulator(costs).run(a);
    if (r.schedule.makespan_us >= best.makespan) return;
    Placement timed;
    timed.assignment = a;
    timed.planned = r.schedule;
    best.assignment = a;
    best.order = executionOrder(timed);
    best.makespan = r.schedule.makespan_us;
  };
  PlaceContext ctx{costs, SimOptions{}, seed, budget, {}, {}, nullptr};
  const Method& heft = findMethod("heft");
  consider(heft.place(ctx, Params(heft.params(), {})).assignment);
  if (join) {
    const Method& cp = findMethod("critical-path");
    consider(cp.place(ctx, Params(cp.params(), {{"device_rule", "earliest-join"}})).assignment);
  }
  if (start != "own") {
    const Method& ls = findMethod("local-search");
    consider(ls.place(ctx, Params(ls.params(), {})).assignment);
  }
  if (start != "critical-path") {
    // The same search from the policy's own best: what it would have found had it gone on.
    if (static_cast<int>(own.size()) != costs.nodes())
      throw InputError("", "teacher", "the own placement does not cover the graph");
    Placement timed;
    timed.assignment = own;
    timed.planned = Simulator(costs).run(own).schedule;
    ctx.seed = seed ^ 0x0ddba11ULL;
    consider(anneal(ctx, own, AnnealConfig{}, executionOrder(timed)).assignment);
  }
  if (devicesInterchangeable(costs)) canonicalDevices(best.order, costs.devices(), best.assignment);
  return best;
}

}  // namespace doppler::train

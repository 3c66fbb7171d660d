#pragma once
// The teacher the general trainer's stage II imitates on each sampled graph (plain C++, no
// LibTorch): the best of HEFT, a short local search from critical-path and one from the sample's
// best own placement (and, on request, critical-path with the earliest-join device rule), as a
// decision sequence the policy can replay.
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"

namespace doppler::train {

struct Teacher {
  Assignment assignment;
  std::vector<int> order;  // by simulated start: a topological order the policy can replay
  double makespan = 0;     // simulated, default options
};

// `start` says which local searches run, each with `budget` evaluations: "critical-path" (a
// fixed teacher), "own" (from `own`: expert iteration, a teacher that improves as the policy
// does and stays close to placements it can express) or "both". HEFT always competes, and with
// `join` critical-path with the earliest-join device rule too. On interchangeable devices the
// winner's devices are relabelled in order of first use, as a greedy policy breaks ties.
// InputError for any other `start`.
Teacher teacherOf(const CostTable& costs, long budget, const std::string& start, uint64_t seed,
                  const Assignment& own, bool join = false);

// Whether `start` names a teacher teacherOf knows.
bool isTeacherStart(const std::string& start);
// InputError (--teacher-start) unless isTeacherStart(start).
void checkTeacherStart(const std::string& start);

}  // namespace doppler::train

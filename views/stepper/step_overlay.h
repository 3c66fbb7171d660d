#pragma once
// What the graph view and the timeline show while the decision stepper is at a step: plain data,
// built by the studio's stepper session and shared (immutable) by the views.
#include <memory>
#include <string>
#include <vector>

#include "core/heuristics/decision_trace.h"
#include "core/sim/schedule.h"

namespace doppler::views {

struct StepOverlay {
  std::string source;  // what is stepped through, as the stepper names it ("critical-path
                       // (tuner settings)", "best episode of training run 3 (31.1 ms)")
  int step = 0;        // the decision about to be taken (0..steps); steps = the episode is complete
  int steps = 0;       // decisions in the episode (the graph's node count)
  // The ready set at `step`, each candidate with its score (empty once the episode is complete).
  std::vector<CandidateScore> ready;
  std::string node_score;  // what the scores mean ("upward rank (us)", "SEL probability", ...)
  bool node_higher_better = true;
  bool node_scored = true;  // false: a recorded order, no scores to show
  int chosen = -1;          // the node picked at `step` (emphasised); -1 once complete
  // The branch's whole plan (reference cost model): nodes placed before `step` are drawn solid,
  // the rest faintly, where they will land if the episode goes on unchanged.
  Schedule plan;
  std::vector<char> placed;        // per node: placed before `step`
  double partial_makespan_us = 0;  // the plan's makespan over the placed nodes
};

using StepOverlayPtr = std::shared_ptr<const StepOverlay>;

}  // namespace doppler::views

#pragma once
// What a training run reports as it goes and when it ends, as plain data: progress arrives
// through a callback on the thread that runs the training, the result is returned by value.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/policy/policy_config.h"
#include "core/sim/schedule.h"
#include "core/train/train_config.h"

namespace doppler::train {

struct TrainProgress {
  Stage stage = Stage::Imitation;
  long episode = 0, episodes = 0;   // done, planned
  double makespan_us = NAN;         // the last episode's simulated makespan
  double best_makespan_us = NAN;    // best simulated makespan of any episode so far
  double greedy_makespan_us = NAN;  // latest greedy evaluation (NaN before the first)
  double best_greedy_makespan_us = NAN;
  double baseline_us = NAN;  // running mean of the makespan (stage II)
  double loss = 0, sel_loss = 0, plc_loss = 0;
  double entropy = 0;  // mean per-step entropy of SEL plus PLC
  double agreement = NAN, sel_agreement = NAN, plc_agreement = NAN;  // with the teacher
  double lr = 0;  // as read back from the optimiser
  double epsilon = 0;
  double episodes_per_s = 0, elapsed_s = 0;
  bool evaluated = false;  // this report follows a greedy evaluation
  // Distillation (after the episodes): its update count; `episode` then continues the step axis
  // as episodes + updates so that every report has its own step.
  long distill_update = 0;
  // The best episode's placement, only in the first report after it improved (empty otherwise),
  // so a dashboard can show it while training goes on without a copy per report.
  Assignment best_assignment;
  std::vector<int> best_order;
  // Stage III: what the run's log should say about this report (a rollback, an early stop),
  // empty otherwise; and the rollbacks so far.
  std::string event;
  long rollbacks = 0;
};
using TrainProgressFn = std::function<void(const TrainProgress&)>;

struct TrainResult {
  long episodes_done = 0;  // in total, including those of a resumed run
  long episodes_run = 0;   // by this call
  bool cancelled = false;
  bool resumed = false;
  double seconds = 0;
  double best_makespan_us = NAN;    // best episode seen (any decision mode)
  Assignment best_assignment;       // on interchangeable devices, labelled in order of first use
  std::vector<int> best_order;      // the order its nodes were decided in
  double greedy_makespan_us = NAN;  // the final policy, greedy
  policy::EpisodeResult greedy;
  std::vector<TrainProgress> evaluations;  // every greedy evaluation, in order (training curve)
  long distill_updates = 0;                // updates the distillation phase ran
  // Stage III: rollbacks to the best parameters, whether patience ended the run, and the run's
  // log (one line per rollback or stop, as the progress events said).
  long rollbacks = 0;
  bool stopped_early = false;
  std::vector<std::string> log;
};

}  // namespace doppler::train

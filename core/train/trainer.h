#pragma once
// Training Doppler's dual policy: stage I (imitation), stage II (REINFORCE in the simulator) and
// stage III (the same, rewarded by real executions, with rollback and early stopping);
// train_config.h describes them. No LibTorch header here, but the implementation (trainer.cpp)
// is tensor code: it lives in the LibTorch module, which runs it through runTraining
// (train_job.h); the tests and benchmarks drive a Trainer directly.
//
// A Trainer runs on whichever thread calls run(). Progress arrives through a callback on that
// thread, as plain data. Cancellation is honoured between updates. Seeded runs are reproducible
// (episode seeds derive from the seed and the episode index, so a resumed run continues exactly
// as an uninterrupted one would).
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/policy/policy.h"
#include "core/sim/cost_table.h"
#include "core/train/device_labels.h"
#include "core/train/train_config.h"
#include "core/train/train_progress.h"

namespace doppler::train {

// What an episode's placement is worth in stage III: a real execution (real_judge.h) instead of
// the simulator. Rewards divide by the simulated time scale times scale(), so that stage III's
// advantages have the size stage II's had.
class EpisodeJudge {
 public:
  virtual ~EpisodeJudge() = default;
  // The placement's makespan in microseconds (the median of its executions). Throws
  // EpisodeCancelled when the run's cancel token stops it, anything else when it fails.
  virtual double makespan(const Assignment& a, const std::vector<int>& order) = 0;
  // Measured microseconds per simulated microsecond, roughly (kernels are sized, not equal).
  virtual double scale() const = 0;
  // What judges, for the run's log ("cpu-torch, 2 devices, median of 3").
  virtual std::string describe() const = 0;
};

struct EpisodeCancelled : std::runtime_error {
  EpisodeCancelled() : std::runtime_error("cancelled") {}
};

class Trainer {
 public:
  // Trains `policy` in place; `costs` and `policy` must outlive the trainer, and so must
  // `judge`, which stage III needs (InputError without it) and the other stages ignore.
  Trainer(const CostTable& costs, policy::Policy& policy, TrainConfig config,
          EpisodeJudge* judge = nullptr);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Continues a run from its checkpoint when it is for the same stage, graph and device set and
  // unfinished (optimiser state, counters, baseline, best so far); otherwise only the weights are
  // taken (the next stage, or fine-tuning on another graph). Returns whether it resumed. Throws
  // InputError for an unreadable checkpoint or another architecture.
  bool resumeFrom(const std::string& checkpoint);

  // Trains to the configured number of episodes (greedy evaluations, checkpoints, progress),
  // stopping early once `cancel` is cancelled (between updates).
  TrainResult run(const TrainProgressFn& progress = {}, const CancelToken& cancel = {});
  // One update (config().rollouts episodes) without evaluation or checkpoint; benchmarks and
  // tests drive it directly.
  TrainProgress step();
  // The distillation phase (see TrainConfig::distill_updates); returns the updates it ran.
  // Its greedy evaluations are appended to `curve` when given.
  long distill(const TrainProgressFn& progress = {}, const CancelToken& cancel = {},
               std::vector<TrainProgress>* curve = nullptr);
  // The greedy policy's simulated makespan now (updates the best-so-far and keep_best state).
  double evaluateGreedy(policy::EpisodeResult* episode = nullptr);
  void saveCheckpoint(const std::string& path) const;

  const TrainConfig& config() const;
  const std::string& fingerprint() const;

  // Per-parameter gradient norms of the last update (tests: gradients reach every parameter).
  std::vector<std::pair<std::string, double>> lastGradientNorms() const;

 private:
  // Stage III, after a greedy measurement: rolls back when the recent measurements regressed
  // (train_config.h); returns the log line, or an empty string.
  std::string checkSafety();

  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace doppler::train

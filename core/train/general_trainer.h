#pragma once
// Training one placement policy across many graphs (issue "general policy"): stage I (imitation
// of critical-path) or stage II (REINFORCE on the simulator's makespan) on samples of the
// training distribution (training_distribution.h), with a per-graph normalised reward: the
// makespan over critical-path's on the same graph, so large and small graphs weigh alike.
//
// Each update takes `batch` episodes: stage I one per sample, stage II `group` per sample, on
// samples update * graphs + k (graphs = batch / group). With a data-parallel group
// (distributed.h) worker r rolls out its share of the samples (split by size, the same on every
// worker) and the gradients are averaged
// by all-reduce before the step, so W workers compute exactly the update one process would.
// Plain declarations; the implementation is LibTorch (core/train, inside the module).
#include <functional>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/train/train_config.h"
#include "core/train/training_distribution.h"

namespace doppler::train {

class DataParallelGroup;

struct GeneralTrainConfig {
  Stage stage = Stage::Imitation;  // Imitation or Simulation
  long updates = 100;
  int batch = 8;          // samples per update, over all workers
  double lr = 1e-3;       // Adam
  double entropy = 1e-3;  // stage II entropy bonus
  double clip_grad = 1.0;
  uint64_t seed = 1;  // network initialisation and episode draws
  TrainingDistribution distribution;
  long checkpoint_every = 10;  // updates
  // Stage II: episodes per graph. Each update takes batch / group graphs and samples `group`
  // placements of each; an episode's advantage is its graph's mean ratio minus its own, so a
  // graph that is easy or hard for every placement teaches nothing by itself (across graphs the
  // ratio's spread is far larger than any one policy change). batch must be a multiple of it.
  int group = 4;
  // Stage II self-imitation weight (0: none) of each sample's best placement among its episodes
  // and a teacher (the better of HEFT and local search with teacher_budget evaluations).
  double imitate = 1.0;
  long teacher_budget = 2000;
  // Where the teacher's local search starts: "critical-path" (a fixed teacher), "own" (the
  // sample's best episode: expert iteration, a teacher that improves as the policy does, and
  // whose placements stay close to what the policy can express) or "both" (twice the budget).
  std::string teacher_start = "critical-path";
  // Whether critical-path with the earliest-join device rule competes in the teacher as well: a
  // list schedule, no search, and on the paper's graphs far better than either start alone.
  bool teacher_join = false;
  // Decay per update of an exponential moving average of the weights (0: none). The checkpoint
  // then places with the average and keeps the raw weights to resume from: a greedy policy's
  // placements swing from one update to the next (a near-tie flips and the rest of the episode
  // follows), and the average smooths that parameter noise away.
  double average = 0;
  // Device features PLC reads (policy::PolicyConfig::device_features); 0: the start's own, or
  // the default for a fresh policy. More than the start's widens it (Policy::widened): the run
  // then starts afresh from its weights (a new optimiser, no earlier average).
  int device_features = 0;
};

struct GeneralTrainProgress {
  long update = 0, updates = 0, episodes = 0;
  double loss = 0;
  // The batch's mean makespan over critical-path's on the same graphs: greedy episodes in stage
  // I, sampled ones in stage II.
  double mean_ratio = 0;
  double elapsed_s = 0;
};
using GeneralTrainProgressFn = std::function<void(const GeneralTrainProgress&)>;

struct GeneralTrainResult {
  long updates_done = 0;
  bool cancelled = false;
  double train_s = 0;
  std::vector<GeneralTrainProgress> curve;
};

// Trains the checkpoint at `from` (or a fresh policy) and writes `out` every checkpoint_every
// updates and at the end (rank 0 only when `group` is given). Throws InputError for bad settings
// or files, DistributedError when a worker fails (the last checkpoint written stays).
GeneralTrainResult trainGeneral(const GeneralTrainConfig& config, const std::string& from,
                                const std::string& out, DataParallelGroup* group,
                                const CancelToken& cancel, const GeneralTrainProgressFn& progress);

}  // namespace doppler::train

#pragma once
// Training Doppler's dual policy (no LibTorch header here; see trainer.cpp).
//
// Stage I (imitation): cross-entropy of both policies against the critical-path teacher along
// the policy's own trajectories (DAgger-style: the teacher's choices are computed in the states the
// behaviour policy visits; ties count as equally right: the loss is -log of the probability of
// the whole tie set).
// Stage II (simulation): REINFORCE on the simulator's makespan with a running-mean baseline,
// entropy bonus, epsilon schedule, a learning-rate schedule applied to the optimiser's parameter
// groups, and gradient clipping.
//
// A Trainer runs on whichever thread calls run(); TrainJob runs one on a worker thread. Progress
// arrives through a callback on that thread, as plain data. Cancellation is honoured between
// updates. Seeded runs are reproducible (episode seeds derive from the seed and the episode
// index, so a resumed run continues exactly as an uninterrupted one would).
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/policy/policy.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"

namespace doppler::train {

enum class Stage { Imitation, Simulation };
Stage parseStage(const std::string& s);  // "imitation" | "sim"; throws InputError
const char* toString(Stage s);           // "imitation" | "sim"

struct TrainConfig {
  Stage stage = Stage::Imitation;
  long episodes = 300;
  // Linear schedules from the first value to the *_final value over the stage's episodes.
  double lr = 3e-3, lr_final = 3e-4;      // applied to Adam's parameter groups every update
  double epsilon = 0, epsilon_final = 0;  // exploration: a uniform choice with this probability
  double entropy = 1e-3, entropy_final = 1e-3;        // entropy bonus weight
  double teacher_mix = 0.5, teacher_mix_final = 0.0;  // imitation: follow the teacher at a step
  // Behaviour policy: Greedy (with epsilon: epsilon-greedy as well), Sample, EpsilonGreedy.
  policy::DecisionMode explore = policy::DecisionMode::Greedy;
  int rollouts = 1;              // episodes per update (the encoder runs once per update)
  double baseline_decay = 0.95;  // running mean (and variance) of the reward, exponential
  // Baseline of stage II: the running mean, or (rollouts > 1) the mean of the update's other
  // episodes (leave-one-out).
  enum class Baseline { RunningMean, Batch } baseline = Baseline::RunningMean;
  bool normalize_advantage = true;  // divide by the running standard deviation
  // Stage II self-imitation: weight of the log-likelihood of the best episode so far, replayed
  // (its decisions in its own states) under the current network; 0 = plain REINFORCE.
  double imitate_best = 0;
  // Stage II exploration around the best episode so far: this fraction of each update's episodes
  // keep the best episode's device for every node except, with probability guide_deviate each, a
  // device drawn from PLC's distribution over the others (policy-guided mutations of the elite).
  double guided = 0, guide_deviate = 0.03, guide_deviate_final = 0.03;
  // Stage II ends by distilling the best episode into the policy: up to distill_updates updates
  // of pure self-imitation at distill_lr, evaluated greedily every 10, stopping once the greedy
  // policy reaches the best episode's makespan (0 = no distillation). Not resumable: a cancelled
  // distillation keeps the parameters it reached (and keep_best's choice).
  long distill_updates = 0;
  double distill_lr = 3e-3;
  double clip_grad_norm = 1.0;  // 0 disables
  // The dual-policy ablation: train one half while the other follows the heuristic.
  policy::Component sel = policy::Component::Learned, plc = policy::Component::Learned;
  SimOptions sim;  // the simulator that judges stage II episodes
  uint64_t seed = 1;
  int threads = 1;       // LibTorch and OpenBLAS threads for this run
  long eval_every = 50;  // greedy evaluation every N episodes (and at the end); 0 = at the end only
  bool keep_best = false;       // end with the parameters of the best greedy evaluation
  std::string checkpoint_path;  // written at the end (and every checkpoint_every episodes)
  long checkpoint_every = 0;
  std::string graph_name;  // for the fingerprint

  // The defaults of each stage (see trainer.cpp for the measurements behind them):
  // imitation: 500 episodes, greedy DAgger with teacher mix 0.5 -> 0, lr 3e-3 -> 3e-4;
  // sim: 12000 episodes, epsilon-greedy 0.2 -> 0, lr 3e-4 -> 1e-6, entropy 1e-2 -> 0, 4 episodes
  // per update, running-mean baseline, self-imitation weight 1, keep_best, half the episodes
  // guided by the best (deviation 0.03), distillation of the best (1500 updates at 3e-3).
  static TrainConfig defaults(Stage stage);
  nlohmann::json toJson() const;
  void validate() const;  // throws InputError
};

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
};

class Trainer {
 public:
  // Trains `policy` in place; `costs` and `policy` must outlive the trainer.
  Trainer(const CostTable& costs, policy::Policy& policy, TrainConfig config);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Continues a run from its checkpoint when it is for the same stage, graph and device set and
  // unfinished (optimiser state, counters, baseline, best so far); otherwise only the weights are
  // taken (the next stage, or fine-tuning on another graph). Returns whether it resumed. Throws
  // InputError for an unreadable checkpoint or another architecture.
  bool resumeFrom(const std::string& checkpoint);

  // Trains to the configured number of episodes (greedy evaluations, checkpoints, progress),
  // stopping early when *cancel becomes true (between updates).
  TrainResult run(const TrainProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr);
  // One update (config().rollouts episodes) without evaluation or checkpoint; benchmarks and
  // tests drive it directly.
  TrainProgress step();
  // The distillation phase (see TrainConfig::distill_updates); returns the updates it ran.
  // Its greedy evaluations are appended to `curve` when given.
  long distill(const TrainProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr,
               std::vector<TrainProgress>* curve = nullptr);
  // The greedy policy's simulated makespan now (updates the best-so-far and keep_best state).
  double evaluateGreedy(policy::EpisodeResult* episode = nullptr);
  void saveCheckpoint(const std::string& path) const;

  const TrainConfig& config() const;
  const std::string& fingerprint() const;

  // Per-parameter gradient norms of the last update (tests: gradients reach every parameter).
  std::vector<std::pair<std::string, double>> lastGradientNorms() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Whether relabelling devices changes no cost: identical compute on every device and one transfer
// cost per edge between any two different devices.
bool devicesInterchangeable(const CostTable& costs);
// Relabels the devices of an episode in the order of their first use along `order` (unused
// devices last, in index order).
void canonicalDevices(const std::vector<int>& order, int devices, Assignment& assignment);

// A training run on its own worker thread, owning its inputs. The progress callback runs on the
// worker thread.
class TrainJob {
 public:
  TrainJob(DataflowGraph graph, DeviceSet devices, policy::Policy policy, TrainConfig config,
           std::string resume_from = {});
  ~TrainJob();  // cancels and joins
  void start(TrainProgressFn progress = {});
  void cancel() { cancel_ = true; }
  bool finished() const { return finished_; }
  // Joins the worker; rethrows what it threw.
  TrainResult wait();
  policy::Policy& policy() { return policy_; }

 private:
  DataflowGraph graph_;
  DeviceSet devices_;
  policy::Policy policy_;
  TrainConfig config_;
  std::string resume_;
  std::atomic<bool> cancel_{false}, finished_{false};
  std::thread worker_;
  TrainResult result_;
  std::exception_ptr error_;
};

// Simulated makespan of the best of `samples` episodes (the first greedy, the rest sampled with
// seeds derived from `seed`).
struct EvalResult {
  policy::EpisodeResult episode;
  double makespan_us = 0;
  int best_sample = 0;
};
EvalResult evaluatePolicy(const policy::Policy& policy, const CostTable& costs, int samples = 1,
                          uint64_t seed = 1, const SimOptions& sim = {},
                          policy::Component sel = policy::Component::Learned,
                          policy::Component plc = policy::Component::Learned);

}  // namespace doppler::train

#pragma once
// The configuration of a training run of Doppler's dual policy, as plain data (no LibTorch): the
// stages' defaults, the tunable parameters described as ParamSpecs (for the CLI's help and a
// training form in the studio) and their validation.
//
// Stage I (imitation): cross-entropy of both policies against the critical-path teacher along
// the policy's own trajectories (DAgger-style: the teacher's choices are computed in the states the
// behaviour policy visits; ties count as equally right: the loss is -log of the probability of
// the whole tie set).
// Stage II (simulation): REINFORCE on the simulator's makespan with a running-mean baseline,
// entropy bonus, epsilon schedule, a learning-rate schedule applied to the optimiser's parameter
// groups, and gradient clipping.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/heuristics/method.h"
#include "core/policy/policy_config.h"
#include "core/sim/simulator.h"

namespace doppler::train {

// Stage III (Real) is stage II's trainer rewarded by real executions (core/exec) instead of the
// simulator, with the safe continual learning below.
enum class Stage { Imitation, Simulation, Real };
Stage parseStage(const std::string& s);  // "imitation" | "sim" | "real"; throws InputError
const char* toString(Stage s);           // "imitation" | "sim" | "real"

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

  // Stage III: how each judged placement runs (core/exec, CPU cores standing in for GPUs).
  std::string exec_kernels = "auto";  // torch (LibTorch ops shaped by the graph), synthetic, auto
  double exec_target_ms = 50;   // kernels sized so the graph's work takes about this long here
  long exec_repeat = 3;         // executions per judged placement; the median is its makespan
  double exec_timeout_s = 120;  // per judged placement
  // Safe continual learning. The best measured placement is kept (and served: the checkpoint and
  // the run store hold it). When the median of the last rollback_window greedy measurements is
  // more than rollback_threshold over the best greedy measurement, the parameters go back to
  // those that measured best (the run's log says so). patience: stop once the best measured
  // makespan has not improved for this many episodes (0: never).
  double rollback_threshold = 0.10;
  long rollback_window = 3;
  long patience = 0;
  // Torch kernels: FLOPs and bytes times this (0: sized so the work takes exec_target_ms).
  double exec_size_factor = 0;

  // The defaults of each stage (scripts/experiments/policy_note.md has the measurements behind
  // them): imitation: 500 episodes, greedy DAgger with teacher mix 0.5 -> 0, lr 3e-3 -> 3e-4;
  // sim: 12000 episodes, epsilon-greedy 0.05, lr 3e-4 -> 1e-6, entropy 1e-3, 4 episodes per
  // update, running-mean baseline, self-imitation weight 1, keep_best, three quarters of the
  // episodes guided by the best (deviation 0.03), distillation of the best (1500 updates at
  // 3e-3). real: 200 episodes (each is exec_repeat real executions), stage II's method with its
  // own schedule (epsilon 0.1 -> 0, lr 1e-4 -> 1e-5, entropy 1e-3 -> 0, half the episodes
  // guided), greedy measurements every 8 episodes, and a distillation of the best measured
  // placement (up to 300 updates).
  static TrainConfig defaults(Stage stage);
  nlohmann::json toJson() const;
  void validate() const;  // throws InputError naming the option (--lr, ...)
};

// The tunable parameters of a run, named as `doppler train` options without the dashes ("lr",
// "guide-deviate", ...), with the ranges validate() enforces, a description, and the stage's
// default as text. Dependent parameters (lr-final, ...) default to the stage's schedule end.
std::vector<ParamSpec> trainParamSpecs(Stage stage);
// One of them by name; throws std::out_of_range for an unknown name.
const ParamSpec& trainParamSpec(const std::string& name);

// Stage II's episode budget when none is given: it follows the graph's depth (the longest chain
// of decisions that must come in order). The experiments (scripts/experiments/policy_note.md)
// found 12,000 episodes enough for CHAINMM and FFNN (depth 6 and 12) and 32,000 needed for the
// LLaMA block and layer (depth 49 and 63): 12,000 up to depth 16, 32,000 from depth 40, linear
// between. Stage I keeps its fixed default.
long defaultEpisodes(Stage stage, const DataflowGraph& g);

// The configuration of a run on `g` with these parameters (names as trainParamSpecs gives them,
// values as text) and the stage's defaults for the rest, as `doppler train` builds it from its
// options: a base value alone holds for the whole run ("lr" sets lr and lr-final), a *-final
// value ends its schedule, and without "episodes" the budget follows the graph. InputError names
// a bad parameter. The studio's training dashboard starts runs from this.
TrainConfig trainConfigFor(Stage stage, const DataflowGraph& g, const ParamValues& values);

// The network's architecture as `doppler train`'s options set it for a new policy ("hidden",
// "mp-steps", "edge-hidden", "head-hidden", "device-hidden"), with PolicyConfig's defaults and
// the ranges its validate() enforces.
std::vector<ParamSpec> architectureParamSpecs();
bool isArchitectureParam(const std::string& name);
// The architecture with these of `values` set (other names are ignored); InputError on a bad one.
policy::PolicyConfig architectureFor(const ParamValues& values);
int graphDepth(const DataflowGraph& g);  // nodes on the longest path

}  // namespace doppler::train

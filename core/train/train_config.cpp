#include "core/train/train_config.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/common/input_error.h"
#include "core/policy/features.h"
#include "core/sim/discipline.h"

namespace doppler::train {

using policy::Component;
using policy::DecisionMode;

Stage parseStage(const std::string& s) {
  if (s == "imitation") return Stage::Imitation;
  if (s == "sim") return Stage::Simulation;
  if (s == "real") return Stage::Real;
  throw InputError("", "--stage", "unknown stage '" + s + "' (known: imitation, sim, real)");
}

const char* toString(Stage s) {
  switch (s) {
    case Stage::Imitation:
      return "imitation";
    case Stage::Simulation:
      return "sim";
    case Stage::Real:
      return "real";
  }
  return "?";
}

TrainConfig TrainConfig::defaults(Stage stage) {
  TrainConfig c;
  c.stage = stage;
  if (stage == Stage::Imitation) {
    // DAgger with the greedy policy, following the teacher's decisions half of the time at first:
    // sampled behaviour and slower rates left the greedy policy further from the teacher.
    c.episodes = 500;
    c.explore = DecisionMode::Greedy;
    c.lr = 3e-3;
    c.lr_final = 3e-4;
    c.epsilon = c.epsilon_final = 0;
    c.entropy = c.entropy_final = 1e-3;
    c.teacher_mix = 0.5;
    c.teacher_mix_final = 0;
  } else {
    // Epsilon-greedy behaviour and an entropy bonus, as the paper's, but gentler: a constant
    // 0.05 and 1e-3 (the paper's 0.2 and 1e-2, decayed to 0, explored less well around the best
    // episode: on LLAMA-BLOCK local-search-5000 was reached at 11,400 and 18,100 episodes
    // against never in 32,000). Four episodes per update, lr 3e-4 decayed linearly to 1e-6, and
    // self-imitation of the best episode so far (weight 1). Long enough for CHAINMM and FFNN;
    // the LLAMA graphs need more episodes.
    c.episodes = 12000;
    c.explore = DecisionMode::EpsilonGreedy;
    c.lr = 3e-4;
    c.lr_final = 1e-6;
    c.epsilon = c.epsilon_final = 0.05;
    c.entropy = c.entropy_final = 1e-3;
    c.teacher_mix = c.teacher_mix_final = 0;
    c.rollouts = 4;
    c.imitate_best = 1;
    c.keep_best = true;
    // Three quarters of each update's episodes explore around the best episode so far (each node
    // leaves its device with probability 0.03, to one PLC prefers), and ties replace the best:
    // makespans are flat over many placements. Then the best episode is distilled into the
    // policy, because the greedy policy alone ends above the best episode it found.
    c.guided = 0.75;
    c.guide_deviate = c.guide_deviate_final = 0.03;
    c.distill_updates = 1500;
    c.distill_lr = 3e-3;
  }
  if (stage == Stage::Real) {
    // Real executions cost milliseconds each, so the budget is small and the policy (from stage
    // II) is refined rather than retrained: less exploration, a lower learning rate, and the
    // greedy policy measured often enough for the rollback window to see a regression quickly.
    c.episodes = 200;
    c.epsilon = 0.1;
    c.epsilon_final = 0;
    c.lr = 1e-4;
    c.lr_final = 1e-5;
    c.entropy = 1e-3;
    c.entropy_final = 0;
    c.guided = 0.5;
    c.eval_every = 8;
    c.distill_updates = 300;
  }
  return c;
}

namespace {

const char* componentName(Component c) {
  return c == Component::Learned ? "learned" : "heuristic";
}

std::string text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// Each tunable parameter with the field it shows (for the stage's defaults).
struct Entry {
  ParamSpec spec;
  std::function<std::string(const TrainConfig&)> value;
};

Entry number(const char* name, double TrainConfig::*field, double lo, double hi, const char* help) {
  return {{name, ParamSpec::Type::Number, "", lo, hi, {}, help},
          [field](const TrainConfig& c) { return text(c.*field); }};
}

template <class T>
Entry count(const char* name, T TrainConfig::*field, double lo, double hi, const char* help) {
  return {{name, ParamSpec::Type::Integer, "", lo, hi, {}, help},
          [field](const TrainConfig& c) { return std::to_string(c.*field); }};
}

Entry choice(const char* name, std::vector<std::string> choices,
             std::string (*value)(const TrainConfig&), const char* help) {
  return {{name, ParamSpec::Type::Choice, "", 0, 0, std::move(choices), help}, value};
}

const std::vector<Entry>& entries() {
  using C = TrainConfig;
  constexpr double kMany = 1e15;  // no practical upper bound
  static const std::vector<Entry> table = {
      count(
          "episodes", &C::episodes, 1, kMany,
          "Episodes (default: imitation 500; sim follows the graph's depth, 12000 up to depth 16, "
          "32000 from depth 40, as the paper graphs needed)"),
      number("lr", &C::lr, 0, 10,
             "Learning rate (constant unless --lr-final; default: imitation 3e-3 -> 3e-4, sim "
             "3e-4 -> 1e-6)"),
      number("lr-final", &C::lr_final, 0, 10,
             "Learning rate at the last episode (linear schedule)"),
      number(
          "epsilon", &C::epsilon, 0, 1,
          "Probability of a uniform exploratory choice (default: imitation 0, sim 0.05, real 0.1 "
          "-> 0)"),
      number("epsilon-final", &C::epsilon_final, 0, 1, "Epsilon at the last episode"),
      number("entropy", &C::entropy, 0, 100,
             "Entropy bonus weight (default: imitation and sim 1e-3, real 1e-3 -> 0)"),
      number("entropy-final", &C::entropy_final, 0, 100, "Entropy weight at the last episode"),
      number("teacher-mix", &C::teacher_mix, 0, 1,
             "Imitation: probability of following the teacher at a step (default 0.5 -> 0)"),
      number("teacher-mix-final", &C::teacher_mix_final, 0, 1, "Teacher mix at the last episode"),
      number("clip-grad", &C::clip_grad_norm, 0, 1e9, "Gradient norm clip (0: none; default 1)"),
      number("baseline-decay", &C::baseline_decay, 0, 1,
             "Decay of the running-mean reward baseline (default 0.95)"),
      count("eval-every", &C::eval_every, 0, kMany,
            "Greedy evaluation every N episodes (default 50)"),
      number("imitate-best", &C::imitate_best, 0, 1e6,
             "Stage II: weight of self-imitation of the best episode so far (default 1; 0 = "
             "plain REINFORCE)"),
      number("guided", &C::guided, 0, 1,
             "Stage II: fraction of each update's episodes that explore around the best episode "
             "so far (default: sim 0.75, real 0.5)"),
      number("guide-deviate", &C::guide_deviate, 0, 1,
             "Stage II, guided episodes: probability that a node leaves the best episode's "
             "device (default 0.03)"),
      number("guide-deviate-final", &C::guide_deviate_final, 0, 1,
             "Stage II: the deviation probability at the last episode (linear schedule)"),
      count("distill", &C::distill_updates, 0, 1000000,
            "Stage II: at most this many final updates of pure imitation of the best episode, "
            "until the greedy policy reaches it (default 1500)"),
      number("distill-lr", &C::distill_lr, 0, 10,
             "Learning rate of the distillation updates (default 3e-3)"),
      choice(
          "baseline", {"running-mean", "batch"},
          [](const C& c) {
            return std::string(c.baseline == C::Baseline::Batch ? "batch" : "running-mean");
          },
          "Stage II baseline: running-mean, or batch (mean of the update's other episodes)"),
      count("rollouts", &C::rollouts, 1, 4096,
            "Episodes per update; the encoder runs once per update (default: imitation 1, sim "
            "4)"),
      choice(
          "explore", {"greedy", "epsilon-greedy", "sample"},
          [](const C& c) { return std::string(policy::toString(c.explore)); },
          "Behaviour policy: greedy, epsilon-greedy or sample (default: imitation greedy, sim "
          "epsilon-greedy)"),
      choice(
          "sel", {"learned", "heuristic"},
          [](const C& c) { return std::string(componentName(c.sel)); },
          "SEL: learned, or heuristic (the ablation: bottom-level order)"),
      choice(
          "plc", {"learned", "heuristic"},
          [](const C& c) { return std::string(componentName(c.plc)); },
          "PLC: learned, or heuristic (the ablation: earliest-start device)"),
      choice(
          "discipline", {"fifo", "priority", "sequence"},
          [](const C& c) { return std::string(doppler::toString(c.sim.discipline)); },
          "How a device picks its next node, in the simulator (stages I and II) and the real "
          "executions (stage III): fifo (first ready), priority (the policy's order, "
          "work-conserving) or sequence (the planned order, waiting for each)"),
      choice(
          "cost-model", {"reference", "links"},
          [](const C& c) { return std::string(doppler::toString(c.sim.model)); },
          "Simulator cost model for stage II: reference or links"),
      count("seed", &C::seed, 0, static_cast<double>(std::numeric_limits<uint64_t>::max()),
            "Seed (initial weights and every episode)"),
      count("threads", &C::threads, 0, 1024, "LibTorch and OpenBLAS threads"),
      // Not checked by validate(): 0 or a negative value means no checkpoints along the way.
      count("checkpoint-every", &C::checkpoint_every, 0, kMany,
            "Also write the checkpoint every N episodes"),
      choice(
          "kernels", {"auto", "torch", "synthetic"}, [](const C& c) { return c.exec_kernels; },
          "Stage III: kernels of the real executions: torch (LibTorch ops shaped by the graph), "
          "synthetic (work sized by cost), auto (torch when the graph has op kinds)"),
      number("target-ms", &C::exec_target_ms, 1e-3, 1e7,
             "Stage III: size the kernels so the graph's work takes about this long here "
             "(default 50)"),
      number("size-factor", &C::exec_size_factor, 0, 1e12,
             "Stage III, torch kernels: multiply FLOPs and bytes by this (default 0: sized for "
             "--target-ms)"),
      count("repeat", &C::exec_repeat, 1, 1000,
            "Stage III: executions per judged placement; the median rewards it (default 3)"),
      number("exec-timeout", &C::exec_timeout_s, 1e-3, 1e7,
             "Stage III: seconds one judged placement may take before the run fails"),
      number("rollback-threshold", &C::rollback_threshold, 0, 100,
             "Stage III: roll back to the best parameters when the recent greedy measurements' "
             "median is this fraction over the best (default 0.1)"),
      count("rollback-window", &C::rollback_window, 1, 1000,
            "Stage III: greedy measurements in the rollback window (default 3)"),
      count("patience", &C::patience, 0, kMany,
            "Stage III: stop once the best measured makespan has not improved for this many "
            "episodes (0: never)"),
  };
  return table;
}

void checkRange(double v, const char* name) {
  const ParamSpec& s = trainParamSpec(name);
  if (!std::isfinite(v) || v < s.min || v > s.max)
    throw InputError("", std::string("--") + name,
                     "must be between " + std::to_string(s.min) + " and " + std::to_string(s.max) +
                         ", got " + std::to_string(v));
}

void checkCount(long v, const char* name) {
  const ParamSpec& s = trainParamSpec(name);
  if (v < s.min || v > s.max)
    throw InputError("", std::string("--") + name,
                     "must be between " + std::to_string(static_cast<long>(s.min)) + " and " +
                         std::to_string(static_cast<long>(s.max)));
}

// Params names a bad value "--param NAME", the methods' option; a training parameter is an option
// of its own, "--NAME", in `doppler train` and in the studio's messages alike.
Params paramsNamedAsOptions(const std::vector<ParamSpec>& specs, const ParamValues& values) {
  try {
    return Params(specs, values);
  } catch (const InputError& e) {
    const std::string prefix = "--param ";
    if (e.where().rfind(prefix, 0) != 0) throw;
    throw InputError(e.file(), "--" + e.where().substr(prefix.size()), e.problem());
  }
}

}  // namespace

std::vector<ParamSpec> trainParamSpecs(Stage stage) {
  const TrainConfig defaults = TrainConfig::defaults(stage);
  std::vector<ParamSpec> out;
  for (const Entry& e : entries()) {
    out.push_back(e.spec);
    out.back().default_value = e.value(defaults);
  }
  return out;
}

const ParamSpec& trainParamSpec(const std::string& name) {
  for (const Entry& e : entries())
    if (e.spec.name == name) return e.spec;
  throw std::out_of_range("no training parameter '" + name + "'");
}

nlohmann::json TrainConfig::toJson() const {
  return {{"stage", toString(stage)},
          {"episodes", episodes},
          {"lr", lr},
          {"lr_final", lr_final},
          {"epsilon", epsilon},
          {"epsilon_final", epsilon_final},
          {"entropy", entropy},
          {"entropy_final", entropy_final},
          {"teacher_mix", teacher_mix},
          {"teacher_mix_final", teacher_mix_final},
          {"explore", policy::toString(explore)},
          {"rollouts", rollouts},
          {"baseline_decay", baseline_decay},
          {"normalize_advantage", normalize_advantage},
          {"baseline", baseline == Baseline::Batch ? "batch" : "running-mean"},
          {"imitate_best", imitate_best},
          {"guided", guided},
          {"guide_deviate", guide_deviate},
          {"guide_deviate_final", guide_deviate_final},
          {"distill_updates", distill_updates},
          {"distill_lr", distill_lr},
          {"clip_grad_norm", clip_grad_norm},
          {"sel", componentName(sel)},
          {"plc", componentName(plc)},
          {"cost_model", doppler::toString(sim.model)},
          {"noise", sim.noise},
          {"seed", seed},
          {"threads", threads},
          {"eval_every", eval_every},
          {"keep_best", keep_best},
          {"discipline", doppler::toString(sim.discipline)},
          {"kernels", exec_kernels},
          {"target_ms", exec_target_ms},
          {"repeat", exec_repeat},
          {"exec_timeout_s", exec_timeout_s},
          {"rollback_threshold", rollback_threshold},
          {"rollback_window", rollback_window},
          {"patience", patience},
          {"size_factor", exec_size_factor}};
}

void TrainConfig::validate() const {
  if (episodes < trainParamSpec("episodes").min)
    throw InputError("", "--episodes", "must be at least 1");
  checkRange(lr, "lr");
  checkRange(lr_final, "lr-final");
  checkRange(epsilon, "epsilon");
  checkRange(epsilon_final, "epsilon-final");
  checkRange(entropy, "entropy");
  checkRange(entropy_final, "entropy-final");
  checkRange(teacher_mix, "teacher-mix");
  checkRange(teacher_mix_final, "teacher-mix-final");
  checkRange(baseline_decay, "baseline-decay");
  checkRange(clip_grad_norm, "clip-grad");
  checkRange(imitate_best, "imitate-best");
  checkRange(guided, "guided");
  checkRange(guide_deviate, "guide-deviate");
  checkRange(guide_deviate_final, "guide-deviate-final");
  checkCount(distill_updates, "distill");
  checkRange(distill_lr, "distill-lr");
  checkCount(rollouts, "rollouts");
  checkCount(threads, "threads");
  if (eval_every < trainParamSpec("eval-every").min)
    throw InputError("", "--eval-every", "must not be negative");
  if (exec_kernels != "auto" && exec_kernels != "torch" && exec_kernels != "synthetic")
    throw InputError("", "--kernels", "must be auto, torch or synthetic");
  checkRange(exec_target_ms, "target-ms");
  checkCount(exec_repeat, "repeat");
  checkRange(exec_size_factor, "size-factor");
  checkRange(exec_timeout_s, "exec-timeout");
  checkRange(rollback_threshold, "rollback-threshold");
  checkCount(rollback_window, "rollback-window");
  checkCount(patience, "patience");
  if (sel == Component::Heuristic && plc == Component::Heuristic)
    throw InputError("", "components", "nothing to train: both SEL and PLC follow the heuristic");
}

int graphDepth(const DataflowGraph& g) {
  // Kahn's order; a cycle leaves nodes unvisited and is the graph reader's error, not ours.
  const int n = g.nodeCount();
  std::vector<int> pending(n, 0), depth(n, 1), ready;
  for (int e = 0; e < g.edgeCount(); ++e) ++pending[g.edge(e).dst];
  for (int v = 0; v < n; ++v)
    if (pending[v] == 0) ready.push_back(v);
  int longest = n > 0 ? 1 : 0;
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    for (int e : g.outEdges(v)) {
      const int w = g.edge(e).dst;
      depth[w] = std::max(depth[w], depth[v] + 1);
      longest = std::max(longest, depth[w]);
      if (--pending[w] == 0) ready.push_back(w);
    }
  }
  return longest;
}

long defaultEpisodes(Stage stage, const DataflowGraph& g) {
  const long fixed = TrainConfig::defaults(stage).episodes;
  if (stage != Stage::Simulation) return fixed;
  constexpr int kShallow = 16, kDeep = 40;
  constexpr long kFew = 12000, kLots = 32000;
  const int depth = graphDepth(g);
  if (depth <= kShallow) return kFew;
  if (depth >= kDeep) return kLots;
  const long episodes = kFew + (kLots - kFew) * (depth - kShallow) / (kDeep - kShallow);
  return (episodes + 500) / 1000 * 1000;  // a round number, as a user would type it
}

TrainConfig trainConfigFor(Stage stage, const DataflowGraph& g, const ParamValues& values) {
  const Params p = paramsNamedAsOptions(trainParamSpecs(stage), values);  // types and ranges
  auto given = [&](const char* name) { return values.count(name) > 0; };
  TrainConfig c = TrainConfig::defaults(stage);
  c.episodes = given("episodes") ? p.integer("episodes") : defaultEpisodes(stage, g);
  auto schedule = [&](const char* base, const char* last, double& from, double& to) {
    if (given(base)) from = to = p.number(base);
    if (given(last)) to = p.number(last);
  };
  schedule("lr", "lr-final", c.lr, c.lr_final);
  schedule("epsilon", "epsilon-final", c.epsilon, c.epsilon_final);
  schedule("entropy", "entropy-final", c.entropy, c.entropy_final);
  schedule("teacher-mix", "teacher-mix-final", c.teacher_mix, c.teacher_mix_final);
  schedule("guide-deviate", "guide-deviate-final", c.guide_deviate, c.guide_deviate_final);
  if (given("clip-grad")) c.clip_grad_norm = p.number("clip-grad");
  if (given("baseline-decay")) c.baseline_decay = p.number("baseline-decay");
  if (given("eval-every")) c.eval_every = p.integer("eval-every");
  if (given("imitate-best")) c.imitate_best = p.number("imitate-best");
  if (given("guided")) c.guided = p.number("guided");
  if (given("distill")) c.distill_updates = p.integer("distill");
  if (given("distill-lr")) c.distill_lr = p.number("distill-lr");
  if (given("baseline"))
    c.baseline = p.choice("baseline") == "batch" ? TrainConfig::Baseline::Batch
                                                 : TrainConfig::Baseline::RunningMean;
  if (given("rollouts")) c.rollouts = static_cast<int>(p.integer("rollouts"));
  if (given("explore")) c.explore = policy::parseDecisionMode(p.choice("explore"));
  auto component = [&](const char* name) {
    return p.choice(name) == "heuristic" ? Component::Heuristic : Component::Learned;
  };
  if (given("sel")) c.sel = component("sel");
  if (given("plc")) c.plc = component("plc");
  if (given("cost-model")) c.sim.model = parseCostModel(p.choice("cost-model"));
  if (given("discipline")) c.sim.discipline = disciplineFromName(p.choice("discipline"));
  if (given("seed")) c.seed = static_cast<uint64_t>(p.integer("seed"));
  if (given("threads")) c.threads = static_cast<int>(p.integer("threads"));
  if (given("checkpoint-every")) c.checkpoint_every = p.integer("checkpoint-every");
  if (given("kernels")) c.exec_kernels = p.choice("kernels");
  if (given("target-ms")) c.exec_target_ms = p.number("target-ms");
  if (given("repeat")) c.exec_repeat = p.integer("repeat");
  if (given("size-factor")) c.exec_size_factor = p.number("size-factor");
  if (given("exec-timeout")) c.exec_timeout_s = p.number("exec-timeout");
  if (given("rollback-threshold")) c.rollback_threshold = p.number("rollback-threshold");
  if (given("rollback-window")) c.rollback_window = p.integer("rollback-window");
  if (given("patience")) c.patience = p.integer("patience");
  c.graph_name = g.name;
  c.validate();
  return c;
}

std::vector<ParamSpec> architectureParamSpecs() {
  const policy::PolicyConfig d;
  auto width = [](const char* name, int value, double lo, double hi, const char* help) {
    return ParamSpec{name, ParamSpec::Type::Integer, std::to_string(value), lo, hi, {}, help};
  };
  return {width("hidden", d.hidden, 1, 4096, "Node embedding width (new policies)"),
          width("mp-steps", d.mp_steps, 0, 64, "Message-passing steps"),
          width("edge-hidden", d.edge_hidden, 1, 4096, "Edge network width"),
          width("head-hidden", d.head_hidden, 1, 4096, "SEL and PLC decoder width"),
          width("device-hidden", d.device_hidden, 1, 4096, "PLC's device embedding width"),
          {"device-features",
           ParamSpec::Type::Choice,
           std::to_string(d.device_features),
           0,
           0,
           {std::to_string(policy::kDeviceFeaturesV2), std::to_string(policy::kDeviceFeatures)},
           "PLC's device features: 16 (architecture 2) or 18 (3, with the join look-ahead; "
           "--general widens a 16-feature start to it)"}};
}

bool isArchitectureParam(const std::string& name) {
  for (const ParamSpec& s : architectureParamSpecs())
    if (s.name == name) return true;
  return false;
}

policy::PolicyConfig architectureFor(const ParamValues& values) {
  ParamValues mine;
  for (const auto& [name, value] : values)
    if (isArchitectureParam(name)) mine[name] = value;
  const Params p = paramsNamedAsOptions(architectureParamSpecs(), mine);
  policy::PolicyConfig a;
  a.hidden = static_cast<int>(p.integer("hidden"));
  a.mp_steps = static_cast<int>(p.integer("mp-steps"));
  a.edge_hidden = static_cast<int>(p.integer("edge-hidden"));
  a.head_hidden = static_cast<int>(p.integer("head-hidden"));
  a.device_hidden = static_cast<int>(p.integer("device-hidden"));
  a.device_features = std::stoi(p.choice("device-features"));
  a.validate();
  return a;
}

}  // namespace doppler::train

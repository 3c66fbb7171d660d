// Stage I (imitation), stage II (REINFORCE in the simulator) and stage III (REINFORCE on real
// executions) for the dual policy: the updates, greedy evaluations, checkpoints with the run's
// state, the distillation of the best episode, and stage III's rollback and early stop.
#include "core/train/trainer.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/policy/policy_impl.h"

namespace doppler::train {

using policy::DecisionMode;

namespace {

double lerp(double a, double b, double f) {
  return a + (b - a) * f;
}

uint64_t episodeSeed(uint64_t seed, long episode) {
  return seedFor(seed, static_cast<uint64_t>(episode), 1);
}

// The most (node, member) path pairs a graph may have for training: the batched recompute
// gathers a hidden-wide row per pair, with its gradient and the sums (about 12 bytes per hidden
// unit per pair), and that must stay within 8 GiB or half this machine's memory.
int64_t maxTrainingPathPairs(int hidden) {
  double budget = 8.0 * (1ull << 30);
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0) budget = std::min(budget, 0.5 * pages * pageSize);
  return static_cast<int64_t>(budget / (12.0 * std::max(1, hidden)));
}

}  // namespace

struct Trainer::State {
  State(const CostTable& c, policy::Policy& p, TrainConfig cfg, EpisodeJudge* j)
      : costs(c),
        pol(p),
        config(std::move(cfg)),
        features(
            policy::graphFeatures(c, config.graph_name, maxTrainingPathPairs(p.config().hidden))),
        tensors(policy::toTensors(features)),
        sim(c, config.sim),
        interchangeable(devicesInterchangeable(c)),
        real(config.stage == Stage::Real),
        judge(real ? j : nullptr) {
    config.validate();
    if (real && !judge)
      throw InputError("", "--stage", "stage real needs an executor to judge its episodes");
    rewardScale = features.time_scale * (judge ? judge->scale() : 1.0);
    resetOptimizer(config.lr);
  }

  void resetOptimizer(double lr) {
    optimizer = std::make_unique<torch::optim::Adam>(pol.impl().net->parameters(),
                                                     torch::optim::AdamOptions(lr));
  }

  const CostTable& costs;
  policy::Policy& pol;
  TrainConfig config;
  policy::GraphFeatures features;
  policy::GraphTensors tensors;
  Simulator sim;
  bool interchangeable;  // devices can be relabelled freely (see canonicalDevices)
  std::unique_ptr<torch::optim::Adam> optimizer;
  bool real;                  // stage III: episodes are judged by real executions
  EpisodeJudge* judge;        // stage III only
  double rewardScale;         // rewards are -makespan / rewardScale
  long bestImprovedAt = 0;    // the episode count when the best makespan last went down
  std::deque<double> recent;  // stage III: the last greedy measurements (rollback window)
  long rollbacks = 0;
  std::vector<std::string> log;  // stage III: rollbacks and stops, as reported

  long done = 0;  // episodes done in this stage (resumed runs start above 0)
  double baseMean = 0, baseVar = 0;
  long baseCount = 0;
  double bestMakespan = NAN, bestGreedy = NAN;
  Assignment bestAssignment;
  std::vector<int> bestOrder;                 // the best episode's decisions, for self-imitation
  std::optional<policy::Rollout> bestReplay;  // ... replayed (cached until a better one)
  std::vector<torch::Tensor> bestParams;
  std::vector<std::pair<std::string, double>> gradNorms;
  double lastGreedy = NAN;
  bool threadsSet = false;

  nlohmann::json meta() const {
    return {{"stage", toString(config.stage)},
            {"episodes_done", done},
            {"episodes", config.episodes},
            {"fingerprint", features.fingerprint},
            {"graph", config.graph_name},
            {"nodes", costs.nodes()},
            {"devices", costs.devices()},
            {"train_config", config.toJson()},
            {"baseline", {{"mean", baseMean}, {"var", baseVar}, {"count", baseCount}}},
            {"best_makespan_us",
             std::isnan(bestMakespan) ? nlohmann::json() : nlohmann::json(bestMakespan)},
            {"best_greedy_makespan_us",
             std::isnan(bestGreedy) ? nlohmann::json() : nlohmann::json(bestGreedy)},
            {"best_assignment", bestAssignment},
            {"best_order", bestOrder}};
  }

  void setLearningRate(double lr) {
    for (auto& group : optimizer->param_groups())
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  }
  double learningRate() const {
    return static_cast<const torch::optim::AdamOptions&>(
               optimizer->param_groups().front().options())
        .lr();
  }

  // The makespan that rewards an episode: simulated (stages I, II) or measured (stage III, which
  // follows the episode's decision order under the priority and sequence disciplines).
  // Stage III confirms a measurement that would beat the best by measuring again and taking the
  // mean of the two medians: the minimum of many noisy measurements is biased low, and a lucky
  // one would otherwise become the served placement (and the rollback's yardstick).
  double judged(const policy::EpisodeResult& e) {
    if (!judge) return sim.makespan(e.assignment);
    const double ms = judge->makespan(e.assignment, e.order);
    if (!std::isnan(bestMakespan) && ms < bestMakespan)
      return 0.5 * (ms + judge->makespan(e.assignment, e.order));
    return ms;
  }

  void recordBest(const policy::EpisodeResult& e, double ms) {
    if (std::isnan(bestMakespan) || ms < bestMakespan) bestImprovedAt = done;
    bestMakespan = ms;
    bestAssignment = e.assignment;
    bestOrder = e.order;
    if (interchangeable) canonicalDevices(bestOrder, costs.devices(), bestAssignment);
    bestReplay.reset();
  }

  // The best episode's decisions replayed through the episode state (cached until a better one).
  const policy::Rollout& replayBest() {
    if (!bestReplay) {
      policy::EpisodeOptions eo;
      eo.sel = config.sel;
      eo.plc = config.plc;
      bestReplay = policy::replay(costs, features, bestOrder, bestAssignment, eo,
                                  pol.config().device_features);
    }
    return *bestReplay;
  }

  policy::Rollout greedyRollout(bool recordProbs) {
    const policy::Prepared p = policy::prepare(pol.impl().net, tensors, false);
    policy::RolloutOptions o;
    o.episode.mode = DecisionMode::Greedy;
    o.episode.sel = config.sel;
    o.episode.plc = config.plc;
    o.episode.record_probs = recordProbs;
    return policy::rollout(p, costs, features, o);
  }

  // Whether the greedy policy now places every node as the best episode did (up to relabelling
  // interchangeable devices); decided without judging, so stage III's distillation can stop
  // without an execution per check.
  bool greedyIsBest() {
    if (bestAssignment.empty()) return false;
    policy::Rollout r = greedyRollout(false);
    if (interchangeable) canonicalDevices(r.result.order, costs.devices(), r.result.assignment);
    return r.result.assignment == bestAssignment;
  }

  double greedyMakespan(policy::EpisodeResult* out) {
    policy::Rollout r = greedyRollout(out != nullptr);
    const double ms = judged(r.result);
    if (std::isnan(bestMakespan) || ms < bestMakespan)  // a greedy episode is an episode too
      recordBest(r.result, ms);
    if (out) *out = std::move(r.result);
    return ms;
  }

  void rememberBest() {
    torch::NoGradGuard g;
    bestParams.clear();
    for (const auto& t : pol.impl().net->parameters()) bestParams.push_back(t.detach().clone());
  }
  void restoreBest() {
    torch::NoGradGuard g;
    auto params = pol.impl().net->parameters();
    for (size_t i = 0; i < params.size() && i < bestParams.size(); ++i)
      params[i].copy_(bestParams[i]);
  }
};

Trainer::Trainer(const CostTable& costs, policy::Policy& policy, TrainConfig config,
                 EpisodeJudge* judge)
    : s_(std::make_unique<State>(costs, policy, std::move(config), judge)) {}
Trainer::~Trainer() = default;

const TrainConfig& Trainer::config() const {
  return s_->config;
}
const std::string& Trainer::fingerprint() const {
  return s_->features.fingerprint;
}
std::vector<std::pair<std::string, double>> Trainer::lastGradientNorms() const {
  return s_->gradNorms;
}

void Trainer::saveCheckpoint(const std::string& path) const {
  policy::writeCheckpoint(path, s_->pol.impl(), s_->meta(), s_->optimizer.get(), &s_->bestParams);
}

bool Trainer::resumeFrom(const std::string& checkpoint) {
  State& s = *s_;
  const nlohmann::json meta = policy::Policy::readMeta(checkpoint);
  // The fingerprint's name part is informational: the costs decide whether it is the same graph.
  auto costsPart = [](const std::string& fp) {
    const auto last = fp.rfind(':');
    const auto mid =
        last == std::string::npos || last == 0 ? std::string::npos : fp.rfind(':', last - 1);
    return mid == std::string::npos ? fp : fp.substr(mid);
  };
  const bool same = meta.value("stage", "") == toString(s.config.stage) &&
                    costsPart(meta.value("fingerprint", "")) == costsPart(s.features.fingerprint) &&
                    meta.value("episodes_done", 0L) < s.config.episodes &&
                    meta.contains("baseline");
  if (!same) {
    s.pol.loadWeights(checkpoint);
    return false;
  }
  bool hadOptimizer = false;
  std::vector<torch::Tensor> best;
  policy::readCheckpoint(checkpoint, nullptr, &s.pol.impl(), s.optimizer.get(), &hadOptimizer,
                         &best);
  s.done = meta.value("episodes_done", 0L);
  const auto& b = meta["baseline"];
  s.baseMean = b.value("mean", 0.0);
  s.baseVar = b.value("var", 0.0);
  s.baseCount = b.value("count", 0L);
  auto num = [&](const char* key) {
    return meta.contains(key) && meta[key].is_number() ? meta[key].get<double>() : NAN;
  };
  s.bestMakespan = num("best_makespan_us");
  s.bestGreedy = num("best_greedy_makespan_us");
  if (meta.contains("best_assignment"))
    s.bestAssignment = meta["best_assignment"].get<Assignment>();
  if (meta.contains("best_order")) s.bestOrder = meta["best_order"].get<std::vector<int>>();
  s.bestReplay.reset();
  s.bestParams = std::move(best);
  return true;
}

TrainProgress Trainer::step() {
  State& s = *s_;
  const TrainConfig& cfg = s.config;
  policy::Net& net = s.pol.impl().net;
  const bool imitation = cfg.stage == Stage::Imitation;
  const int D = s.costs.devices();
  const double scale = s.rewardScale;
  const long total = cfg.episodes;
  if (!s.threadsSet) {
    policy::setComputeThreads(cfg.threads);
    s.threadsSet = true;
  }
  net->train();

  const double frac =
      total > 1 ? std::min(1.0, static_cast<double>(s.done) / static_cast<double>(total)) : 0.0;
  s.setLearningRate(lerp(cfg.lr, cfg.lr_final, frac));
  const double eps = lerp(cfg.epsilon, cfg.epsilon_final, frac);
  const double entW = lerp(cfg.entropy, cfg.entropy_final, frac);
  const double mix = imitation ? lerp(cfg.teacher_mix, cfg.teacher_mix_final, frac) : 0.0;
  const int K = static_cast<int>(std::max<long>(1, std::min<long>(cfg.rollouts, total - s.done)));

  const policy::Prepared prep = policy::prepare(net, s.tensors, true);
  torch::Tensor loss = torch::zeros({});
  double selLoss = 0, plcLoss = 0, entropySum = 0, lastMakespan = 0;
  int selAgree = 0, plcAgree = 0, bothAgree = 0;
  std::vector<double> rewards;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> pending;  // stage II: mean log-probs
  for (int k = 0; k < K; ++k) {
    policy::RolloutOptions o;
    o.episode.mode = cfg.explore;
    o.episode.epsilon = eps;
    o.episode.seed = episodeSeed(cfg.seed, s.done + k);
    o.episode.sel = cfg.sel;
    o.episode.plc = cfg.plc;
    o.episode.record_probs = false;
    o.keep_batch = true;
    o.teacher_targets = imitation;
    o.teacher_mix = mix;
    // The first round(guided * K) episodes of the update explore around the best so far.
    if (!imitation && !s.bestAssignment.empty() && k < std::lround(cfg.guided * K)) {
      o.guide = &s.bestAssignment;
      o.guide_deviate = lerp(cfg.guide_deviate, cfg.guide_deviate_final, frac);
    }
    const policy::Rollout r = policy::rollout(prep, s.costs, s.features, o);
    const double ms = s.judged(r.result);
    lastMakespan = ms;
    // Ties replace the best too: makespans are flat over many placements, and moving along such
    // a plateau is how exploration around the best reaches the next improvement.
    if (std::isnan(s.bestMakespan) || ms <= s.bestMakespan) s.recordBest(r.result, ms);
    const policy::StepTerms terms = policy::recompute(net, prep, r, D, imitation);
    const torch::Tensor entropy = (terms.sel_entropy + terms.plc_entropy).mean();
    entropySum += entropy.item<double>();
    if (imitation) {
      const torch::Tensor ls = -terms.sel_target.mean(), lp = -terms.plc_target.mean();
      selLoss += ls.item<double>();
      plcLoss += lp.item<double>();
      loss = loss + (ls + lp) / K;
      selAgree += r.sel_agree;
      plcAgree += r.plc_agree;
      bothAgree += r.both_agree;
    } else {
      rewards.push_back(-ms / scale);
      pending.push_back({terms.sel_logp.mean(), terms.plc_logp.mean()});
    }
    loss = loss - entW * entropy / K;
  }
  // Stage II: advantages against the baseline (running mean, or the update's other episodes).
  for (int k = 0; k < static_cast<int>(pending.size()); ++k) {
    double base = s.baseMean;
    bool have = s.baseCount > 0;
    if (cfg.baseline == TrainConfig::Baseline::Batch && K > 1) {
      base = 0;
      for (int j = 0; j < K; ++j)
        if (j != k) base += rewards[j];
      base /= K - 1;
      have = true;
    }
    double adv = have ? rewards[k] - base : 0.0;
    if (have && cfg.normalize_advantage) adv /= std::max(std::sqrt(s.baseVar), 1e-2);
    adv = std::clamp(adv, -5.0, 5.0);
    const torch::Tensor ls = -pending[k].first * adv, lp = -pending[k].second * adv;
    selLoss += ls.item<double>();
    plcLoss += lp.item<double>();
    loss = loss + (ls + lp) / K;
  }
  // Self-imitation: the best episode so far, replayed, scored under the current network.
  if (!imitation && cfg.imitate_best > 0 && !s.bestOrder.empty()) {
    const policy::StepTerms terms = policy::recompute(net, prep, s.replayBest(), D, false);
    loss = loss - cfg.imitate_best * (terms.sel_logp.mean() + terms.plc_logp.mean());
  }

  s.optimizer->zero_grad();
  loss.backward();
  s.gradNorms.clear();
  for (const auto& np : net->named_parameters())
    s.gradNorms.emplace_back(
        np.key(), np.value().grad().defined() ? np.value().grad().norm().item<double>() : 0.0);
  if (cfg.clip_grad_norm > 0)
    torch::nn::utils::clip_grad_norm_(net->parameters(), cfg.clip_grad_norm);
  s.optimizer->step();

  for (double reward : rewards) {
    if (s.baseCount == 0) {
      s.baseMean = reward;
      s.baseVar = 0;
    } else {
      const double d = cfg.baseline_decay, diff = reward - s.baseMean;
      s.baseMean = d * s.baseMean + (1 - d) * reward;
      s.baseVar = d * (s.baseVar + (1 - d) * diff * diff);
    }
    ++s.baseCount;
  }
  s.done += K;

  TrainProgress p;
  p.stage = cfg.stage;
  p.episode = s.done;
  p.episodes = total;
  p.makespan_us = lastMakespan;
  p.best_makespan_us = s.bestMakespan;
  p.baseline_us = imitation ? NAN : -s.baseMean * scale;
  p.sel_loss = selLoss / K;
  p.plc_loss = plcLoss / K;
  p.loss = loss.item<double>();
  p.entropy = entropySum / K;
  if (imitation) {
    const double steps = static_cast<double>(K) * s.costs.nodes();
    p.sel_agreement = selAgree / steps;
    p.plc_agreement = plcAgree / steps;
    p.agreement = bothAgree / steps;
  }
  p.lr = s.learningRate();
  p.epsilon = eps;
  p.greedy_makespan_us = s.lastGreedy;
  p.best_greedy_makespan_us = s.bestGreedy;
  return p;
}

long Trainer::distill(const TrainProgressFn& progress, const CancelToken& cancel,
                      std::vector<TrainProgress>* curve) {
  State& s = *s_;
  const TrainConfig& cfg = s.config;
  policy::Net& net = s.pol.impl().net;
  if (s.bestOrder.empty()) return 0;
  // Stage III's measurements are noisy, so the greedy policy has reached the best when it makes
  // the best placement, checked without executing; it is measured once it does.
  bool matched = s.real && s.greedyIsBest();
  const auto reached = [&] {
    if (s.real) return matched;
    return !std::isnan(s.lastGreedy) && s.lastGreedy <= s.bestMakespan * (1 + 1e-9);
  };
  if (std::isnan(s.lastGreedy)) evaluateGreedy(nullptr);
  long u = 0;
  s.setLearningRate(cfg.distill_lr);
  while (u < cfg.distill_updates && !reached() && !cancel.cancelled()) {
    net->train();  // evaluateGreedy leaves the network in eval mode
    const policy::Prepared prep = policy::prepare(net, s.tensors, true);
    const policy::StepTerms terms =
        policy::recompute(net, prep, s.replayBest(), s.costs.devices(), false);
    const torch::Tensor loss = -(terms.sel_logp.mean() + terms.plc_logp.mean());
    s.optimizer->zero_grad();
    loss.backward();
    // No gradient clipping here: a few badly fitted SEL steps dominate the norm, and clipping it
    // starves PLC.
    s.optimizer->step();
    ++u;
    if (u % 10 != 0 && u != cfg.distill_updates) continue;
    if (s.real) matched = s.greedyIsBest();
    // Stage III measures the greedy policy only once it makes the best placement; until then a
    // report carries no makespan (the last measurement would read as a new one).
    const bool measured = !s.real || matched;
    if (measured) evaluateGreedy(nullptr);
    TrainProgress p;
    p.stage = cfg.stage;
    p.makespan_us = measured ? s.lastGreedy : NAN;  // the greedy evaluation is this report's
    p.episode = s.done + u;
    p.episodes = s.done + cfg.distill_updates;
    p.distill_update = u;
    p.loss = loss.item<double>();
    p.lr = s.learningRate();
    p.best_makespan_us = s.bestMakespan;
    p.greedy_makespan_us = measured ? s.lastGreedy : NAN;
    p.best_greedy_makespan_us = s.bestGreedy;
    p.evaluated = measured;
    if (progress) progress(p);
    if (curve && measured) curve->push_back(p);
  }
  return u;
}

double Trainer::evaluateGreedy(policy::EpisodeResult* episode) {
  State& s = *s_;
  s.pol.impl().net->eval();
  s.lastGreedy = s.greedyMakespan(episode);
  if (std::isnan(s.bestGreedy) || s.lastGreedy < s.bestGreedy) {
    s.bestGreedy = s.lastGreedy;
    // Stage III always keeps them: they are what a rollback restores.
    if (s.config.keep_best || s.real) s.rememberBest();
  }
  return s.lastGreedy;
}

namespace {

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

std::string us(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f us", x);
  return buf;
}

}  // namespace

std::string Trainer::checkSafety() {
  State& s = *s_;
  const TrainConfig& cfg = s.config;
  if (!s.real || std::isnan(s.lastGreedy)) return {};
  s.recent.push_back(s.lastGreedy);
  while (static_cast<long>(s.recent.size()) > cfg.rollback_window) s.recent.pop_front();
  if (static_cast<long>(s.recent.size()) < cfg.rollback_window || s.bestParams.empty()) return {};
  const double m = median({s.recent.begin(), s.recent.end()});
  if (!(m > s.bestGreedy * (1 + cfg.rollback_threshold))) return {};
  // The drift is in the parameters and in Adam's moments alike, so both start again from the
  // parameters that measured best.
  s.restoreBest();
  s.resetOptimizer(s.learningRate());
  s.recent.clear();
  ++s.rollbacks;
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%%", (m / s.bestGreedy - 1) * 100);
  std::string event = "episode " + std::to_string(s.done) +
                      ": rolled back to the parameters that " + "measured " + us(s.bestGreedy) +
                      ": the median of the last " + std::to_string(cfg.rollback_window) +
                      " greedy measurements, " + us(m) + ", is " + pct + " over it";
  s.log.push_back(event);
  return event;
}

TrainResult Trainer::run(const TrainProgressFn& progress, const CancelToken& cancel) {
  State& s = *s_;
  const TrainConfig& cfg = s.config;
  policy::setComputeThreads(cfg.threads);
  s.threadsSet = true;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  TrainResult result;
  result.resumed = s.done > 0;
  const long startDone = s.done;
  const long total = cfg.episodes;
  long nextEval = cfg.eval_every > 0 ? (s.done / cfg.eval_every + 1) * cfg.eval_every : total;
  long nextCheckpoint = cfg.checkpoint_every > 0
                            ? (s.done / cfg.checkpoint_every + 1) * cfg.checkpoint_every
                            : total + 1;
  s.bestImprovedAt = s.done;
  if (s.real) s.log.push_back("judged by real executions: " + s.judge->describe());
  const bool checkpoint = !cfg.checkpoint_path.empty();

  try {
    // Where the run starts: the first point of the training curve, and the policy keep_best
    // falls back on if training never beats it.
    if (s.done == 0 && !cancel.cancelled()) {
      TrainProgress p;
      p.stage = cfg.stage;
      p.episodes = total;
      p.greedy_makespan_us = evaluateGreedy(nullptr);
      p.best_greedy_makespan_us = s.bestGreedy;
      p.evaluated = true;
      result.evaluations.push_back(p);
      if (s.real) s.recent.push_back(s.lastGreedy);
    }
    double reportedBest = NAN;  // the best makespan whose placement went out with a report
    while (s.done < total) {
      if (cancel.cancelled()) {
        result.cancelled = true;
        break;
      }
      TrainProgress p = step();
      if (s.done >= nextEval || s.done >= total) {
        evaluateGreedy(nullptr);
        p.evaluated = true;
        p.greedy_makespan_us = s.lastGreedy;
        p.best_greedy_makespan_us = s.bestGreedy;
        while (nextEval <= s.done) nextEval += cfg.eval_every > 0 ? cfg.eval_every : total;
        p.event = checkSafety();
      }
      if (s.real && cfg.patience > 0 && s.done - s.bestImprovedAt >= cfg.patience &&
          s.done < total) {
        p.event += (p.event.empty() ? "" : "; ") + std::string("episode ") +
                   std::to_string(s.done) + ": stopped early: the best measured makespan, " +
                   us(s.bestMakespan) + ", has not improved for " +
                   std::to_string(s.done - s.bestImprovedAt) + " episodes (patience " +
                   std::to_string(cfg.patience) + ")";
        s.log.push_back(p.event.substr(p.event.rfind("episode ")));
        result.stopped_early = true;
      }
      p.rollbacks = s.rollbacks;
      p.elapsed_s = elapsed();
      p.episodes_per_s = p.elapsed_s > 0 ? (s.done - startDone) / p.elapsed_s : 0;
      if (p.evaluated) result.evaluations.push_back(p);
      if (!s.bestAssignment.empty() && !(s.bestMakespan >= reportedBest)) {
        p.best_assignment = s.bestAssignment;
        p.best_order = s.bestOrder;
        reportedBest = s.bestMakespan;
      }
      if (progress) progress(p);
      if (result.stopped_early) break;
      if (s.done >= nextCheckpoint && s.done < total && checkpoint) {
        saveCheckpoint(cfg.checkpoint_path);
        while (nextCheckpoint <= s.done) nextCheckpoint += cfg.checkpoint_every;
      }
    }

    if (!result.cancelled && cfg.stage != Stage::Imitation && cfg.distill_updates > 0) {
      result.distill_updates = distill(progress, cancel, &result.evaluations);
      if (cancel.cancelled()) result.cancelled = true;
    }
    s.pol.impl().net->eval();
    if (!result.cancelled && (cfg.keep_best || s.real) && !s.bestParams.empty()) {
      const double final = s.greedyMakespan(nullptr);
      if (final > s.bestGreedy) s.restoreBest();
    }
  } catch (const EpisodeCancelled&) {
    // Between updates as far as the state goes: the interrupted update was not applied.
    result.cancelled = true;
  } catch (...) {
    // A failed execution (stage III) ends the run; what it learned so far is kept.
    if (checkpoint && s.done > startDone) saveCheckpoint(cfg.checkpoint_path);
    throw;
  }
  s.pol.impl().net->eval();
  // A cancelled run's checkpoint holds the state after its last update: the greedy episode below
  // only reports, and as an episode it may replace the best so far, which an uninterrupted run
  // would not have done at this point; resuming then continues exactly as that run.
  if (checkpoint && result.cancelled) saveCheckpoint(cfg.checkpoint_path);
  if (s.real && result.cancelled) {
    // No more executions once cancelled: the greedy placement is reported with its last
    // measurement.
    result.greedy = s.greedyRollout(true).result;
    result.greedy_makespan_us = s.lastGreedy;
  } else {
    try {
      result.greedy_makespan_us = s.greedyMakespan(&result.greedy);
    } catch (const EpisodeCancelled&) {
      result.cancelled = true;
      result.greedy = s.greedyRollout(true).result;
      result.greedy_makespan_us = s.lastGreedy;
    }
  }
  result.episodes_done = s.done;
  result.episodes_run = s.done - startDone;
  result.best_makespan_us = s.bestMakespan;
  result.best_assignment = s.bestAssignment;
  result.best_order = s.bestOrder;
  result.seconds = elapsed();
  result.rollbacks = s.rollbacks;
  result.log = s.log;
  if (checkpoint && !result.cancelled) saveCheckpoint(cfg.checkpoint_path);
  return result;
}

}  // namespace doppler::train

// The general policy's trainer (general_trainer.h): samples of the training distribution, one
// shared network and optimiser, per-graph normalised rewards, optional data-parallel workers.
#include "core/train/general_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/heuristics/method.h"
#include "core/policy/policy_impl.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"
#include "core/train/distributed.h"
#include "core/train/expected_improvement.h"
#include "core/train/stage_two_teacher.h"

namespace doppler::train {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t mix(uint64_t seed, uint64_t index) {
  return seedFor(seed, index);
}

// One sample's costs, features and tensors, and critical-path's makespan on it (the reward's
// normaliser), kept while the update uses them.
struct Sample {
  TrainingSample s;
  CostTable costs;
  policy::GraphFeatures features;
  policy::GraphTensors tensors;
  double reference;  // critical-path's simulated makespan

  explicit Sample(TrainingSample sample)
      : s(std::move(sample)),
        costs(s.graph, s.devices),
        features(policy::graphFeatures(costs, s.description)),
        tensors(policy::toTensors(features)),
        reference(simulatedHeuristicMakespan(costs, {}, "critical-path")) {}
};

// The samples worker `rank` of `W` rolls out: every worker draws the update's graphs (cheap next
// to the episodes) and splits them the same way, largest first onto the least loaded worker, by
// nodes x devices (what an episode's decisions cost). A round-robin split left one worker with
// the update's two largest graphs often enough that 2 workers ran barely faster than one.
std::vector<int> shareOf(const std::vector<TrainingSample>& drawn, int W, int rank) {
  std::vector<int> order(drawn.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  auto cost = [&](int k) {
    return static_cast<double>(drawn[k].graph.nodeCount()) * drawn[k].devices.size();
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost(a) > cost(b); });
  std::vector<double> load(static_cast<size_t>(W), 0.0);
  std::vector<int> mine;
  for (const int k : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    load[static_cast<size_t>(least)] += cost(k);
    if (least == rank) mine.push_back(k);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

}  // namespace

GeneralTrainResult trainGeneral(const GeneralTrainConfig& cfg, const std::string& from,
                                const std::string& out, DataParallelGroup* dp,
                                const CancelToken& cancel, const GeneralTrainProgressFn& progress) {
  const auto t0 = Clock::now();
  cfg.distribution.validate();
  if (cfg.stage == Stage::Real)
    throw InputError("", "--stage", "general training runs stage imitation or sim");
  if (cfg.batch < 1) throw InputError("", "--batch", "must be at least 1");
  if (!(cfg.average >= 0 && cfg.average < 1))
    throw InputError("", "--average", "the decay must be at least 0 and below 1");
  checkTeacherStart(cfg.teacher_start);
  const int W = dp ? dp->worldSize() : 1;
  const int rank = dp ? dp->rank() : 0;
  const bool imitation = cfg.stage == Stage::Imitation;
  const int group = imitation ? 1 : cfg.group;  // episodes per sample
  if (group < 1 || cfg.batch % group != 0)
    throw InputError("", "--batch",
                     "stage II takes " + std::to_string(cfg.group) +
                         " episodes of each graph, so the batch must be a multiple of it");
  const int graphs = cfg.batch / group;  // samples per update

  // One intra-op thread per worker: workers, not threads, are how this trainer scales (and a
  // thread pool per process on a shared machine only contends).
  policy::setComputeThreads(1);
  torch::manual_seed(cfg.seed);
  policy::PolicyConfig fresh;
  if (cfg.device_features > 0) fresh.device_features = cfg.device_features;
  fresh.validate();
  policy::Policy pol = from.empty() ? policy::Policy(fresh, cfg.seed) : policy::Policy::load(from);
  bool widened = false;
  if (cfg.device_features > 0 && cfg.device_features != pol.config().device_features) {
    if (cfg.device_features < pol.config().device_features)
      throw InputError(
          from, "architecture",
          "the checkpoint's policy reads " + std::to_string(pol.config().device_features) +
              " device features; it cannot be narrowed to " + std::to_string(cfg.device_features));
    pol = pol.widened(cfg.device_features);
    widened = true;
  }
  policy::Net& net = pol.impl().net;
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  nlohmann::json meta = nlohmann::json::object();
  long done = 0;
  if (!from.empty()) {
    meta = policy::readCheckpoint(from, nullptr, nullptr, nullptr);
    // The optimiser's state only when continuing the same general stage with the same network.
    if (!widened && meta.value("general", false) &&
        meta.value("stage", "") == toString(cfg.stage)) {
      policy::readCheckpoint(from, nullptr, &pol.impl(), &opt);
      done = meta.value("updates_done", 0L);
      // The optimiser's state brings its old learning rate; this run's is the one asked for.
      for (auto& pg : opt.param_groups())
        static_cast<torch::optim::AdamOptions&>(pg.options()).lr(cfg.lr);
    }
  }
  // The averaged weights (cfg.average): restored with the raw ones when continuing an averaged
  // run (the checkpoint's model is the average, its extra tensors the raw weights), otherwise
  // started at the weights the run starts from.
  std::vector<torch::Tensor> average;
  if (cfg.average > 0) {
    for (const auto& p : net->parameters()) average.push_back(p.detach().clone());
    if (done > 0 && meta.value("average", 0.0) > 0) {
      std::vector<torch::Tensor> raw;
      policy::readCheckpoint(from, nullptr, nullptr, nullptr, nullptr, &raw);
      auto params = net->parameters();
      if (raw.size() != params.size())
        throw InputError(from, "extra", "the averaged checkpoint lacks its raw weights");
      torch::NoGradGuard ng;
      for (size_t i = 0; i < params.size(); ++i) params[i].copy_(raw[i]);
    }
  }
  if (dp) dp->broadcastParameters(*net);

  auto save = [&] {
    if (out.empty() || rank != 0) return;
    meta["general"] = true;
    meta["stage"] = toString(cfg.stage);
    meta["updates_done"] = done;
    meta["batch"] = cfg.batch;
    meta["group"] = group;
    meta["imitate"] = cfg.imitate;
    meta["teacher_budget"] = cfg.teacher_budget;
    meta["teacher_start"] = cfg.teacher_start;
    meta["teacher_join"] = cfg.teacher_join;
    meta["distribution_seed"] = cfg.distribution.seed;
    meta["kinds"] = cfg.distribution.kinds;
    meta["graphs"] = nlohmann::json::array();  // given graph files, by the names samples carry
    for (const TrainingGraph& g : cfg.distribution.graphs) meta["graphs"].push_back(g.name);
    meta["devices"] = {cfg.distribution.min_devices, cfg.distribution.max_devices};
    meta["fixed_costs"] = cfg.distribution.fixed_costs;
    meta["average"] = cfg.average;
    if (average.empty()) {
      policy::writeCheckpoint(out, pol.impl(), meta, &opt);
      return;
    }
    // The model written is the average (what placing uses); the raw weights go along as extra
    // tensors to resume from.
    torch::NoGradGuard ng;
    auto params = net->parameters();
    std::vector<torch::Tensor> raw;
    for (size_t i = 0; i < params.size(); ++i) {
      raw.push_back(params[i].detach().clone());
      params[i].copy_(average[i]);
    }
    policy::writeCheckpoint(out, pol.impl(), meta, &opt, &raw);
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(raw[i]);
  };

  GeneralTrainResult result;
  for (long u = 0; u < cfg.updates; ++u) {
    if (cancel.cancelled()) {
      result.cancelled = true;
      break;
    }
    net->train();
    opt.zero_grad();
    double lossSum = 0, ratioSum = 0;
    // This worker's episodes first (stage II's advantages need each graph's mean ratio).
    std::vector<std::unique_ptr<Sample>> samples;
    std::vector<policy::Prepared> prepared;
    std::vector<policy::Rollout> rollouts;  // group per sample, sample-major
    std::vector<uint64_t> indices;          // each sample's index in the distribution
    std::vector<TrainingSample> drawn;
    for (int k = 0; k < graphs; ++k)
      drawn.push_back(sampleTraining(cfg.distribution, static_cast<uint64_t>(done) * graphs + k));
    for (const int k : shareOf(drawn, W, rank)) {
      const uint64_t index = static_cast<uint64_t>(done) * graphs + k;
      samples.push_back(std::make_unique<Sample>(std::move(drawn[k])));
      indices.push_back(index);
      Sample& s = *samples.back();
      prepared.push_back(policy::prepare(net, s.tensors, true));
      for (int j = 0; j < group; ++j) {
        policy::RolloutOptions o;
        o.episode.mode = imitation ? policy::DecisionMode::Greedy : policy::DecisionMode::Sample;
        o.episode.record_probs = false;
        o.episode.seed = mix(cfg.seed, index * static_cast<uint64_t>(group) + j);
        o.keep_batch = true;
        o.teacher_targets = imitation;
        rollouts.push_back(policy::rollout(prepared.back(), s.costs, s.features, o));
      }
    }
    std::vector<double> ratio(rollouts.size());
    for (size_t i = 0; i < rollouts.size(); ++i) {
      const Sample& s = *samples[i / group];
      ratio[i] = Simulator(s.costs).makespan(rollouts[i].result.assignment) / s.reference;
      ratioSum += ratio[i];
    }
    const double batchRatio = (dp ? dp->allreduceSum(ratioSum) : ratioSum) / cfg.batch;
    torch::Tensor loss = torch::zeros({});
    // Scaled so that averaging over W workers gives the mean over the whole batch.
    const double scale = static_cast<double>(W) / cfg.batch;
    for (size_t g = 0; g < samples.size(); ++g) {
      const Sample& s = *samples[g];
      const size_t first = g * group;
      std::vector<policy::StepTerms> terms;
      for (size_t i = first; i < first + group; ++i)
        terms.push_back(
            policy::recompute(net, prepared[g], rollouts[i], s.costs.devices(), imitation));
      double graphMean = 0;  // stage II's baseline: the graph's own episodes
      for (size_t i = first; i < first + group; ++i) graphMean += ratio[i] / group;
      for (size_t j = 0; j < terms.size(); ++j) {
        const policy::StepTerms& t = terms[j];
        torch::Tensor l;
        if (imitation) {
          l = -(t.sel_target.mean() + t.plc_target.mean());
        } else {
          // Better than the graph's other placements (a lower ratio): a positive advantage.
          const double adv = std::clamp(graphMean - ratio[first + j], -5.0, 5.0);
          l = -adv * (t.sel_logp.mean() + t.plc_logp.mean()) -
              cfg.entropy * (t.sel_entropy + t.plc_entropy).mean();
        }
        lossSum += l.item<double>();
        loss = loss + l * scale;
      }
      // Self-imitation, once per sample: the best of the teacher and the sample's own episodes.
      // It is what carries the policy past its teacher of stage I; REINFORCE alone, across
      // graphs, moved the greedy policy little and noisily.
      if (imitation || cfg.imitate <= 0) continue;
      size_t best = 0;
      for (size_t j = 1; j < terms.size(); ++j)
        if (ratio[first + j] < ratio[first + best]) best = j;
      const Teacher teacher = teacherOf(s.costs, cfg.teacher_budget, cfg.teacher_start,
                                        mix(cfg.seed ^ 0x7eac4e7ULL, indices[g]),
                                        rollouts[first + best].result.assignment, cfg.teacher_join);
      torch::Tensor logp;
      if (teacher.makespan / s.reference < ratio[first + best]) {
        policy::EpisodeOptions eo;
        eo.record_probs = false;
        const policy::Rollout r =
            policy::replay(s.costs, s.features, teacher.order, teacher.assignment, eo,
                           pol.config().device_features);
        const policy::StepTerms tt =
            policy::recompute(net, prepared[g], r, s.costs.devices(), false);
        logp = tt.sel_logp.mean() + tt.plc_logp.mean();
      } else {
        logp = terms[best].sel_logp.mean() + terms[best].plc_logp.mean();
      }
      // Times group: the batch mean divides by episodes, and this term counts once per sample.
      const torch::Tensor l = -cfg.imitate * group * logp;
      lossSum += l.item<double>();
      loss = loss + l * scale;
    }
    loss.backward();
    if (dp) dp->averageGradients(*net);
    torch::nn::utils::clip_grad_norm_(net->parameters(), cfg.clip_grad);
    opt.step();
    ++done;
    if (!average.empty()) {
      torch::NoGradGuard ng;
      auto params = net->parameters();
      for (size_t i = 0; i < params.size(); ++i)
        average[i].mul_(cfg.average).add_(params[i].detach(), 1 - cfg.average);
    }

    GeneralTrainProgress p;
    p.update = u + 1;
    p.updates = cfg.updates;
    p.episodes = done * cfg.batch;
    p.loss = (dp ? dp->allreduceSum(lossSum) : lossSum) / cfg.batch;
    p.mean_ratio = batchRatio;
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    result.curve.push_back(p);
    if (progress) progress(p);
    if (cfg.checkpoint_every > 0 && done % cfg.checkpoint_every == 0) save();
  }
  result.updates_done = done;
  result.train_s = std::chrono::duration<double>(Clock::now() - t0).count();
  save();
  return result;
}

}  // namespace doppler::train

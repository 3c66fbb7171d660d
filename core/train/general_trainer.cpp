// The general policy's trainer (general_trainer.h): samples of the training distribution, one
// shared network and optimiser, per-graph normalised rewards, optional data-parallel workers.
#include "core/train/general_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/graph/input_error.h"
#include "core/policy/policy_impl.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"
#include "core/train/distributed.h"
#include "core/train/expected_improvement.h"

namespace doppler::train {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t mix(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
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

}  // namespace

GeneralTrainResult trainGeneral(const GeneralTrainConfig& cfg, const std::string& from,
                                const std::string& out, DataParallelGroup* group,
                                const CancelToken& cancel, const GeneralTrainProgressFn& progress) {
  const auto t0 = Clock::now();
  cfg.distribution.validate();
  if (cfg.stage == Stage::Real)
    throw InputError("", "--stage", "general training runs stage imitation or sim");
  if (cfg.batch < 1) throw InputError("", "--batch", "must be at least 1");
  const int W = group ? group->worldSize() : 1;
  const int rank = group ? group->rank() : 0;
  const bool imitation = cfg.stage == Stage::Imitation;

  // One intra-op thread per worker: workers, not threads, are how this trainer scales (and a
  // thread pool per process on a shared machine only contends).
  policy::setComputeThreads(1);
  torch::manual_seed(cfg.seed);
  policy::Policy pol =
      from.empty() ? policy::Policy(policy::PolicyConfig{}, cfg.seed) : policy::Policy::load(from);
  policy::Net& net = pol.impl().net;
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  nlohmann::json meta = nlohmann::json::object();
  long done = 0;
  if (!from.empty()) {
    meta = policy::readCheckpoint(from, nullptr, nullptr, nullptr);
    // The optimiser's state only when continuing the same general stage.
    if (meta.value("general", false) && meta.value("stage", "") == toString(cfg.stage)) {
      policy::readCheckpoint(from, nullptr, &pol.impl(), &opt);
      done = meta.value("updates_done", 0L);
    }
  }
  if (group) group->broadcastParameters(*net);

  auto save = [&] {
    if (out.empty() || rank != 0) return;
    meta["general"] = true;
    meta["stage"] = toString(cfg.stage);
    meta["updates_done"] = done;
    meta["batch"] = cfg.batch;
    meta["distribution_seed"] = cfg.distribution.seed;
    meta["kinds"] = cfg.distribution.kinds;
    meta["devices"] = {cfg.distribution.min_devices, cfg.distribution.max_devices};
    policy::writeCheckpoint(out, pol.impl(), meta, &opt);
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
    int mine = 0;
    // Stage II: this worker's episodes first (rewards need the batch's mean before the loss).
    std::vector<std::unique_ptr<Sample>> samples;
    std::vector<policy::Rollout> rollouts;
    std::vector<policy::Prepared> prepared;
    for (int k = rank; k < cfg.batch; k += W) {
      const uint64_t index = static_cast<uint64_t>(done) * cfg.batch + k;
      samples.push_back(std::make_unique<Sample>(sampleTraining(cfg.distribution, index)));
      Sample& s = *samples.back();
      prepared.push_back(policy::prepare(net, s.tensors, true));
      policy::RolloutOptions o;
      o.episode.mode = imitation ? policy::DecisionMode::Greedy : policy::DecisionMode::Sample;
      o.episode.record_probs = false;
      o.episode.seed = mix(cfg.seed, index);
      o.keep_batch = true;
      o.teacher_targets = imitation;
      rollouts.push_back(policy::rollout(prepared.back(), s.costs, s.features, o));
      ++mine;
    }
    std::vector<double> ratio(samples.size());
    for (size_t i = 0; i < samples.size(); ++i) {
      ratio[i] = Simulator(samples[i]->costs).makespan(rollouts[i].result.assignment) /
                 samples[i]->reference;
      ratioSum += ratio[i];
    }
    // The batch's mean ratio, the same on every worker: stage II's baseline.
    const double batchRatio = (group ? group->allreduceSum(ratioSum) : ratioSum) / cfg.batch;
    torch::Tensor loss = torch::zeros({});
    for (size_t i = 0; i < samples.size(); ++i) {
      const policy::StepTerms t =
          policy::recompute(net, prepared[i], rollouts[i], samples[i]->costs.devices(), imitation);
      torch::Tensor l;
      if (imitation) {
        l = -(t.sel_target.mean() + t.plc_target.mean());
      } else {
        // Better than the batch (a lower ratio) is a positive advantage.
        const double adv = std::clamp(batchRatio - ratio[i], -5.0, 5.0);
        l = -adv * (t.sel_logp.mean() + t.plc_logp.mean()) -
            cfg.entropy * (t.sel_entropy + t.plc_entropy).mean();
      }
      lossSum += l.item<double>();
      // Scaled so that averaging over W workers gives the mean over the whole batch.
      loss = loss + l * (static_cast<double>(W) / cfg.batch);
    }
    loss.backward();
    if (group) group->averageGradients(*net);
    torch::nn::utils::clip_grad_norm_(net->parameters(), cfg.clip_grad);
    opt.step();
    ++done;

    GeneralTrainProgress p;
    p.update = u + 1;
    p.updates = cfg.updates;
    p.episodes = done * cfg.batch;
    p.loss = (group ? group->allreduceSum(lossSum) : lossSum) / cfg.batch;
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

// The fleet trainer: the demand predictor, then PPO (fleet_ppo.h).
#include "core/fleet/learn/fleet_ppo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "core/common/input_error.h"
#include "core/fleet/learn/fleet_networks.h"
#include "core/fleet/learn/torta_features.h"
#include "core/fleet/learn/torta_policy.h"
#include "core/fleet/sim/baselines.h"

namespace doppler::fleet::learn {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

nlohmann::json configJson(const FleetTrainConfig& c) {
  return {{"episodes", c.episodes},
          {"train_seeds", c.train_seeds},
          {"seed", c.seed},
          {"hidden", c.hidden},
          {"lr", c.lr},
          {"ppo_epochs", c.ppo_epochs},
          {"minibatch", c.minibatch},
          {"clip", c.clip},
          {"gamma", c.gamma},
          {"gae_lambda", c.gae_lambda},
          {"entropy", c.entropy},
          {"init_log_std", c.init_log_std},
          {"response_weight", c.response_weight},
          {"ot_weight", c.ot_weight},
          {"switch_weight", c.switch_weight},
          {"queue_weight", c.queue_weight},
          {"power_weight", c.power_weight},
          {"ot_power_weight", c.ot_power_weight},
          {"predictor_epochs", c.predictor_epochs},
          {"safety_threshold", c.safety_threshold},
          {"safety_window", c.safety_window}};
}

// Predictor samples from one scenario's per-slot totals: for each slot t with a next slot, the
// encoded window ending at t and the target for slot t + 1.
void predictorSamples(const sim::PreparedScenario& p, std::vector<float>& inputs,
                      std::vector<float>& targets, std::vector<double>* scales,
                      std::vector<double>* truth, std::vector<double>* meanOf5) {
  const SlotTotals& totals = p.scenario.demand.totals;
  const int n = totals.regions;
  const double T = p.scenario.demand.slot_seconds;
  // The clock the policy's forecast reads (SlotState::clock_s).
  const double clock0 =
      p.scenario.demand.start_week_hour >= 0 ? p.scenario.demand.start_week_hour * 3600.0 : 0.0;
  std::vector<std::vector<double>> history;
  for (int t = 0; t + 1 < totals.slots; ++t) {
    std::vector<double> now(n);
    for (int r = 0; r < n; ++r) now[r] = totals.requests[totals.index(t, r)];
    history.push_back(now);
    if (history.size() > static_cast<size_t>(kPredictorWindow)) history.erase(history.begin());
    const PredictorEncoding e = encodePredictorInput(history, clock0 + (t + 1) * T);
    inputs.insert(inputs.end(), e.input.begin(), e.input.end());
    for (int r = 0; r < n; ++r) {
      const double next = totals.requests[totals.index(t + 1, r)];
      targets.push_back(static_cast<float>(predictionTarget(next, e.scale[r])));
      if (scales) scales->push_back(e.scale[r]);
      if (truth) truth->push_back(next);
      if (meanOf5) {
        double m = 0;
        for (const auto& h : history) m += h[r];
        meanOf5->push_back(m / static_cast<double>(history.size()));
      }
    }
  }
}

struct PredictorScore {
  double learned = 0, baseline = 0;
};

PredictorScore trainPredictor(FleetNets& nets, const std::vector<sim::PreparedScenario>& train,
                              const sim::PreparedScenario& heldOut, int epochs,
                              const CancelToken& cancel) {
  const int n = nets->regions;
  const long in = predictorInputSize(n);
  std::vector<float> x, y;
  for (const auto& p : train) predictorSamples(p, x, y, nullptr, nullptr, nullptr);
  const long rows = static_cast<long>(x.size()) / in;
  const torch::Tensor X = torch::from_blob(x.data(), {rows, in}, torch::kFloat32).clone();
  const torch::Tensor Y = torch::from_blob(y.data(), {rows, n}, torch::kFloat32).clone();
  torch::optim::Adam opt(nets->predictor->parameters(),
                         torch::optim::AdamOptions(1e-3).weight_decay(1e-4));
  for (int e = 0; e < epochs && !cancel.cancelled(); ++e) {
    opt.zero_grad();
    const torch::Tensor loss = torch::mse_loss(nets->predict(X), Y);
    loss.backward();
    opt.step();
  }
  std::vector<float> vx, vy;
  std::vector<double> scales, truth, mean5;
  predictorSamples(heldOut, vx, vy, &scales, &truth, &mean5);
  const long vrows = static_cast<long>(vx.size()) / in;
  torch::NoGradGuard guard;
  const torch::Tensor out = nets->predict(torch::from_blob(vx.data(), {vrows, in}, torch::kFloat32))
                                .to(torch::kFloat64)
                                .contiguous();
  std::vector<double> predicted(truth.size());
  for (size_t k = 0; k < predicted.size(); ++k)
    predicted[k] = decodePrediction(out.data_ptr<double>()[k], scales[k]);
  return {predictionAccuracy(truth, predicted), predictionAccuracy(truth, mean5)};
}

}  // namespace

std::shared_ptr<const FleetActor> loadFleetActor(const std::string& checkpoint) {
  nlohmann::json meta;
  FleetNets nets = loadFleetCheckpoint(checkpoint, &meta);
  nets->eval();
  const bool predictor = meta.value("has_predictor", false);
  return makeFleetActor(nets, meta, predictor);
}

FleetTrainResult trainFleetPpo(const FleetTrainRequest& request, const CancelToken& cancel,
                               const FleetTrainProgressFn& progress) {
  const auto t0 = Clock::now();
  const FleetTrainConfig& cfg = request.config;
  if (cfg.episodes < 0) throw InputError("", "--episodes", "must be at least 0");
  if (cfg.train_seeds < 1) throw InputError("", "--train-seeds", "must be at least 1");
  torch::manual_seed(cfg.seed);
  FleetTrainResult result;
  result.checkpoint = request.out;

  // The training scenarios (slot model) and a held-out one for the predictor's accuracy.
  std::vector<sim::RunOptions> runs;
  std::vector<sim::PreparedScenario> train;
  for (int k = 0; k < cfg.train_seeds; ++k) {
    sim::RunOptions o =
        sim::trainingRun(request.scenario, kTrainSeedBase + static_cast<uint64_t>(k));
    o.fidelity = sim::Fidelity::Slot;
    runs.push_back(o);
    train.push_back(sim::prepareScenario(o));
  }
  sim::RunOptions heldOutRun =
      sim::trainingRun(runs.front(), kTrainSeedBase + static_cast<uint64_t>(cfg.train_seeds));
  const sim::PreparedScenario heldOut = sim::prepareScenario(heldOutRun);
  const int n = train.front().scenario.world.regionCount();

  nlohmann::json meta = nlohmann::json::object();
  FleetNets nets(nullptr);
  if (!request.from.empty()) {
    nets = loadFleetCheckpoint(request.from, &meta);
    if (nets->regions != n)
      throw InputError(request.from, "regions",
                       "the checkpoint was trained for " + std::to_string(nets->regions) +
                           " regions; " + request.scenario.topology + " has " + std::to_string(n));
  } else {
    nets = FleetNets(n, cfg.hidden, cfg.init_log_std);
  }
  int done = meta.value("episodes_done", 0);
  const bool hadPredictor = meta.value("has_predictor", false);
  meta["topology"] = request.scenario.topology;
  meta["trace"] = request.scenario.trace;
  meta["load"] = request.scenario.load;
  meta["slots"] = request.scenario.slots;
  meta["slot_seconds"] = request.scenario.slot_seconds;
  meta["pool_scale"] = request.scenario.pool_scale;
  meta["model"] = request.scenario.model;
  // What the demand was, resolved, so that a comparison can say whether it evaluates on it
  // (fleet_methods.h, policyProvenance).
  meta["topology_name"] = train.front().scenario.world.topology;
  meta["trace_name"] = train.front().scenario.demand.source;
  meta["time_scale"] = request.scenario.time_scale;
  meta["horizon"] = toString(request.scenario.horizon);
  if (request.scenario.horizon == HorizonRule::Calendar) {
    // What evaluation must avoid to be held out: these days, this half of the trace.
    nlohmann::json starts = nlohmann::json::array();
    for (const sim::RunOptions& o : runs)
      starts.push_back(weekTimeText(o.calendar.start_week_hour));
    meta["calendar"] = {{"days", trainingDaysText()},
                        {"trace_part", toString(TracePart::Train)},
                        {"profile", train.front().scenario.demand.profile},
                        {"starts", starts}};
  }
  meta["config"] = configJson(cfg);
  meta["train_seed_base"] = kTrainSeedBase;

  if (!hadPredictor) {
    FleetTrainProgress p;
    p.phase = "predictor";
    p.episodes = cfg.episodes;
    if (progress) progress(p);
    const PredictorScore score = trainPredictor(nets, train, heldOut, cfg.predictor_epochs, cancel);
    meta["has_predictor"] = true;
    meta["predictor_accuracy"] = score.learned;
    meta["baseline_accuracy"] = score.baseline;
  }
  result.predictor_accuracy = meta.value("predictor_accuracy", 0.0);
  result.baseline_accuracy = meta.value("baseline_accuracy", 0.0);

  // The OT plan's run on each training seed: the rewards' reference.
  std::vector<sim::SimResult> otRuns;
  for (int k = 0; k < cfg.train_seeds; ++k) {
    std::unique_ptr<sim::SchedulingPolicy> ot = sim::makePolicy("ot");
    otRuns.push_back(sim::runPolicy(train[k], *ot, runs[k]));
  }

  std::vector<torch::Tensor> params = nets->policy->parameters();
  for (const auto& t : nets->critic->parameters()) params.push_back(t);
  params.push_back(nets->log_std);
  torch::optim::Adam opt(params, torch::optim::AdamOptions(cfg.lr));
  if (!request.from.empty()) restoreFleetOptimizer(request.from, opt);

  auto save = [&]() {
    if (request.out.empty()) return;
    meta["episodes_done"] = done;
    saveFleetCheckpoint(request.out, nets, meta, &opt);
  };

  const double log2pi = std::log(2.0 * 3.14159265358979323846);
  for (int e = 0; e < cfg.episodes; ++e) {
    if (cancel.cancelled()) {
      result.cancelled = true;
      break;
    }
    const int k = done % cfg.train_seeds;
    TortaOptions to;
    to.ot_cost.power_weight = cfg.ot_power_weight;
    to.sample = true;
    to.seed = cfg.seed + static_cast<uint64_t>(done);
    to.safety.enabled =
        false;  // the policy learns from its own mistakes; infeasible still falls back
    nets->eval();
    TortaPolicy policy(makeFleetActor(nets, meta, true), to);
    const sim::SimResult run = sim::runPolicy(train[k], policy, runs[k]);
    const sim::SimResult& ot = otRuns[k];
    const std::vector<Transition>& tr = policy.transitions();
    const int S = static_cast<int>(tr.size());
    if (S == 0) break;

    // Rewards, relative to the OT run on the same seed (0 = as good as OT).
    double respScale = 0, arrScale = 0, powScale = 0;
    for (int t = 0; t < S; ++t) {
      respScale += ot.series.mean_response_s[t] / S;
      arrScale += ot.series.arrivals[t] / S;
      powScale += ot.series.power_usd[t] / S;
    }
    respScale = std::max(respScale, 1e-3);
    arrScale = std::max(arrScale, 1.0);
    powScale = std::max(powScale, 1e-9);
    std::vector<double> reward(S);
    double rewardSum = 0;
    for (int t = 0; t < S; ++t) {
      const sim::Allocation& a = run.allocations[t];
      const sim::Allocation& prev = t > 0 ? run.allocations[t - 1] : a;
      const double dOt = sim::switchCost(a, run.explanations[t].reference) / n;
      const double dSw = sim::switchCost(a, prev) / n;
      reward[t] = -cfg.response_weight *
                      (run.series.mean_response_s[t] - ot.series.mean_response_s[t]) / respScale -
                  cfg.queue_weight * (run.series.queued[t] - ot.series.queued[t]) / arrScale -
                  cfg.power_weight * (run.series.power_usd[t] - ot.series.power_usd[t]) / powScale -
                  cfg.ot_weight * dOt - cfg.switch_weight * dSw;
      rewardSum += reward[t];
    }
    // Generalised advantage estimation.
    std::vector<float> adv(S), ret(S);
    double next = 0, gae = 0;
    for (int t = S - 1; t >= 0; --t) {
      const double delta = reward[t] + cfg.gamma * next - tr[t].value;
      gae = delta + cfg.gamma * cfg.gae_lambda * gae;
      adv[t] = static_cast<float>(gae);
      ret[t] = static_cast<float>(gae + tr[t].value);
      next = tr[t].value;
    }
    const long obsDim = static_cast<long>(tr[0].observation.size());
    const long actDim = static_cast<long>(tr[0].action.size());
    std::vector<float> obs, act, oldLogp;
    obs.reserve(static_cast<size_t>(S * obsDim));
    for (const Transition& x : tr) {
      obs.insert(obs.end(), x.observation.begin(), x.observation.end());
      for (double v : x.action) act.push_back(static_cast<float>(v));
      oldLogp.push_back(static_cast<float>(x.log_prob));
    }
    const torch::Tensor O = torch::from_blob(obs.data(), {S, obsDim}, torch::kFloat32).clone();
    const torch::Tensor A = torch::from_blob(act.data(), {S, actDim}, torch::kFloat32).clone();
    const torch::Tensor L0 = torch::from_blob(oldLogp.data(), {S}, torch::kFloat32).clone();
    torch::Tensor ADV = torch::from_blob(adv.data(), {S}, torch::kFloat32).clone();
    const torch::Tensor RET = torch::from_blob(ret.data(), {S}, torch::kFloat32).clone();
    ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8);

    nets->train();
    const int mb = std::max(1, std::min(cfg.minibatch, S));
    for (int epoch = 0; epoch < cfg.ppo_epochs; ++epoch) {
      const torch::Tensor perm = torch::randperm(S, torch::kLong);
      for (int start = 0; start < S; start += mb) {
        const torch::Tensor idx = perm.slice(0, start, std::min(S, start + mb));
        const torch::Tensor o = O.index_select(0, idx), a = A.index_select(0, idx);
        const torch::Tensor mean = nets->mean(o);
        const torch::Tensor ls = nets->log_std.clamp(-5.0, 1.0);
        const torch::Tensor z = (a - mean) / ls.exp();
        const torch::Tensor logp = (-0.5 * z * z - ls - 0.5 * log2pi).sum(1);
        const torch::Tensor ratio = (logp - L0.index_select(0, idx)).exp();
        const torch::Tensor adv_b = ADV.index_select(0, idx);
        const torch::Tensor surr =
            torch::min(ratio * adv_b, ratio.clamp(1.0 - cfg.clip, 1.0 + cfg.clip) * adv_b);
        const torch::Tensor valueLoss = torch::mse_loss(nets->value(o), RET.index_select(0, idx));
        const torch::Tensor entropy = (ls + 0.5 * (log2pi + 1.0)).sum();
        const torch::Tensor loss = -surr.mean() + 0.5 * valueLoss - cfg.entropy * entropy;
        opt.zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(params, 0.5);
        opt.step();
      }
    }
    ++done;
    // TORTA's schedule: the learning rate x0.995 every 100 episodes.
    if (done % 100 == 0)
      for (auto& group : opt.param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options())
            .lr(static_cast<torch::optim::AdamOptions&>(group.options()).lr() * 0.995);

    FleetTrainProgress p;
    p.phase = "ppo";
    p.episode = e + 1;
    p.episodes = cfg.episodes;
    p.reward = rewardSum / S;
    p.response_s = run.metrics.e2e_s.mean;
    p.ot_response_s = ot.metrics.e2e_s.mean;
    p.fallbacks = run.fallbacks;
    p.predictor_accuracy = policy.forecastAccuracy();
    p.elapsed_s = secondsSince(t0);
    result.history.push_back(p);
    if (progress) progress(p);
    if (request.checkpoint_every > 0 && done % request.checkpoint_every == 0) save();
  }
  result.episodes_done = done;
  result.train_s = secondsSince(t0);
  meta["last_train_s"] = result.train_s;
  save();
  FleetTrainProgress fin;
  fin.phase = "done";
  fin.episode = static_cast<int>(result.history.size());
  fin.episodes = cfg.episodes;
  fin.elapsed_s = result.train_s;
  if (progress) progress(fin);
  return result;
}

}  // namespace doppler::fleet::learn

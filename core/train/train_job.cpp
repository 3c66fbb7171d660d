// TrainJob (a Trainer on its own worker thread) and policy evaluation: no LibTorch here.
#include <cmath>
#include <stdexcept>

#include "core/policy/features.h"
#include "core/train/trainer.h"

namespace doppler::train {

TrainJob::TrainJob(DataflowGraph graph, DeviceSet devices, policy::Policy policy,
                   TrainConfig config, std::string resume_from)
    : graph_(std::move(graph)),
      devices_(std::move(devices)),
      policy_(std::move(policy)),
      config_(std::move(config)),
      resume_(std::move(resume_from)) {
  config_.validate();
}

TrainJob::~TrainJob() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void TrainJob::start(TrainProgressFn progress) {
  if (worker_.joinable() || finished_) throw std::logic_error("TrainJob::start: already started");
  worker_ = std::thread([this, progress = std::move(progress)] {
    try {
      CostTable costs(graph_, devices_);
      if (config_.graph_name.empty()) config_.graph_name = graph_.name;
      Trainer trainer(costs, policy_, config_);
      if (!resume_.empty()) trainer.resumeFrom(resume_);
      result_ = trainer.run(progress, &cancel_);
    } catch (...) {
      error_ = std::current_exception();
    }
    finished_ = true;
  });
}

TrainResult TrainJob::wait() {
  if (worker_.joinable()) worker_.join();
  if (error_) std::rethrow_exception(error_);
  return result_;
}

EvalResult evaluatePolicy(const policy::Policy& policy, const CostTable& costs, int samples,
                          uint64_t seed, const SimOptions& sim, policy::Component sel,
                          policy::Component plc) {
  const policy::GraphFeatures f = policy::graphFeatures(costs);
  Simulator simulator(costs, sim);
  EvalResult best;
  for (int k = 0; k < std::max(1, samples); ++k) {
    policy::EpisodeOptions o;
    o.mode = k == 0 ? policy::DecisionMode::Greedy : policy::DecisionMode::Sample;
    o.seed = seed * 1000003ULL + static_cast<uint64_t>(k);
    o.sel = sel;
    o.plc = plc;
    policy::EpisodeResult r = policy.run(costs, f, o);
    const double ms = simulator.makespan(r.assignment);
    if (k == 0 || ms < best.makespan_us) {
      best.episode = std::move(r);
      best.makespan_us = ms;
      best.best_sample = k;
    }
  }
  return best;
}

}  // namespace doppler::train

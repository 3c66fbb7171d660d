#include "core/fleet/learn/torta_policy.h"

#include <cmath>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/fleet/learn/torta_features.h"
#include "core/fleet/sim/baselines.h"

namespace doppler::fleet::learn {

TortaPolicy::TortaPolicy(std::shared_ptr<const FleetActor> actor, TortaOptions options,
                         std::string name)
    : actor_(std::move(actor)),
      options_(options),
      name_(std::move(name)),
      rng_(options.seed),
      safety_(options.safety),
      routing_(options_.routing.empty() ? nullptr : sim::makePolicy(options_.routing)) {}

void TortaPolicy::reset(const sim::FleetModel& fleet, uint64_t seed) {
  if (actor_->regions() != fleet.regions())
    throw InputError(actor_->meta().value("checkpoint", std::string("fleet policy")), "regions",
                     "the policy was trained for " + std::to_string(actor_->regions()) +
                         " regions (" + actor_->meta().value("topology", std::string("?")) +
                         "); this fleet has " + std::to_string(fleet.regions()));
  // Sampling draws depend on the run's seed too, so two training episodes on one scenario differ.
  rng_.seed(options_.seed * kGoldenGamma + seed);
  safety_.reset();
  allocator_.reset(fleet.regions());
  if (routing_) routing_->reset(fleet, seed);
  history_.clear();
  forecast_.clear();
  transitions_.clear();
  forecast_truth_.clear();
  forecast_made_.clear();
}

sim::Allocation TortaPolicy::allocate(const sim::SlotState& s) {
  const int n = s.regions();
  // Score last slot's forecast against what arrived, then forecast the next slot.
  if (!forecast_.empty())
    for (int r = 0; r < n; ++r) {
      forecast_truth_.push_back(s.arrivals[r]);
      forecast_made_.push_back(forecast_[r]);
    }
  history_.push_back(s.arrivals);
  if (history_.size() > static_cast<size_t>(kPredictorWindow)) history_.erase(history_.begin());
  forecast_ = s.predicted;
  const bool imposed = s.fleet->options().forecast_accuracy > 0;
  if (options_.predictor && !imposed) {
    std::vector<double> learned = actor_->predict(history_, s.clock_s + s.slot_seconds);
    if (static_cast<int>(learned.size()) == n) forecast_ = std::move(learned);
  }

  const sim::Allocation reference = sim::otPlan(s, {}, options_.ot_cost);
  explanation_ = {};
  explanation_.has_reference = true;
  explanation_.reference = reference;
  utilization_ = 0.8;
  if (routing_) return allocation_ = routing_->allocate(s);
  if (!options_.learned) return allocation_ = reference;
  const std::vector<float> obs = observation(s, forecast_, reference);
  const ActorOutput out = actor_->act(obs);
  std::vector<double> action = out.mean;
  Transition tr;
  if (options_.sample) {
    std::normal_distribution<double> normal(0.0, 1.0);
    double logp = 0;
    for (size_t k = 0; k < action.size(); ++k) {
      const double sd = std::exp(out.log_std[k]);
      const double z = normal(rng_);
      action[k] = out.mean[k] + sd * z;
      logp += -0.5 * z * z - out.log_std[k] - 0.9189385332046727;  // log sqrt(2 pi)
    }
    tr.observation = obs;
    tr.action = action;
    tr.log_prob = logp;
    tr.value = out.value;
  }
  sim::Allocation learned = decodeAction(s, action, options_.ot_cost);
  utilization_ = utilizationOf(action, n);
  const SafetyVerdict verdict = safety_.check(s, learned, reference);
  explanation_.fallback = verdict.fallback;
  explanation_.reason = verdict.reason;
  allocation_ = verdict.fallback ? reference : std::move(learned);
  if (verdict.fallback) utilization_ = 0.8;
  if (options_.sample) transitions_.push_back(std::move(tr));
  return allocation_;
}

bool TortaPolicy::serverTargets(const sim::SlotState& s, const std::vector<double>& routed,
                                std::vector<int>& targets) {
  if (!options_.allocator) return false;
  targets = allocator_.targets(s, allocation_, routed, forecast_, utilization_);
  return true;
}

double TortaPolicy::forecastAccuracy() const {
  return predictionAccuracy(forecast_truth_, forecast_made_);
}

}  // namespace doppler::fleet::learn

#pragma once
// TORTA's two layers as one fleet method (docs/fleet_learn.md): each slot the OT plan is solved,
// the PPO policy turns it into an allocation (torta_features.h), the safety layer checks that
// against the OT plan (safety.h), and the per-region allocator sizes each region's servers from
// backlog and forecast (region_allocator.h). The forecast comes from the learned demand predictor
// (or the simulator's, when the checkpoint has none or a forecast accuracy is imposed).
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/fleet/learn/fleet_actor.h"
#include "core/fleet/learn/region_allocator.h"
#include "core/fleet/learn/safety.h"
#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/policy.h"

namespace doppler::fleet::learn {

struct TortaOptions {
  bool sample = false;  // draw actions from the Gaussian (training) instead of its mean
  uint64_t seed = 1;    // the draws
  SafetyOptions safety;
  bool allocator = true;  // the per-region allocator; false leaves the simulator's autoscaler
  bool predictor = true;  // the learned predictor when the actor has one
  bool learned = true;    // false: the OT plan itself (the ablation without the PPO policy)
  // A baseline's name: its allocation instead of the OT plan or the learned one (with the
  // predictor and the allocator: "BASELINE+allocator", fleet_methods.h).
  std::string routing;
  // The OT layer's cost (baselines.h): the reference plan's and the one the action reweights.
  // From the checkpoint: the policy was trained against it.
  sim::OtCost ot_cost;
};

// One slot of a sampled run, for PPO.
struct Transition {
  std::vector<float> observation;
  std::vector<double> action;
  double log_prob = 0;
  double value = 0;
};

class TortaPolicy : public sim::SchedulingPolicy {
 public:
  TortaPolicy(std::shared_ptr<const FleetActor> actor, TortaOptions options = {},
              std::string name = "torta");
  std::string name() const override { return name_; }
  void reset(const sim::FleetModel& fleet, uint64_t seed) override;
  sim::Allocation allocate(const sim::SlotState& state) override;
  sim::SlotExplanation explain() const override { return explanation_; }
  bool serverTargets(const sim::SlotState& state, const std::vector<double>& routed,
                     std::vector<int>& targets) override;
  bool scoresServers() const override { return options_.allocator; }  // the micro layer

  const std::vector<Transition>& transitions() const { return transitions_; }
  // The forecasts it used against the arrivals that followed: PA (fleet_actor.h) over the run.
  double forecastAccuracy() const;

 private:
  std::shared_ptr<const FleetActor> actor_;
  TortaOptions options_;
  std::string name_;
  std::mt19937_64 rng_;
  SafetyMonitor safety_;
  std::unique_ptr<sim::SchedulingPolicy> routing_;  // options_.routing's baseline
  RegionAllocator allocator_;
  std::vector<std::vector<double>> history_;
  std::vector<double> forecast_;
  sim::Allocation allocation_;
  double utilization_ = 0.8;  // the allocator's target this slot
  sim::SlotExplanation explanation_;
  std::vector<Transition> transitions_;
  std::vector<double> forecast_truth_, forecast_made_;
};

}  // namespace doppler::fleet::learn

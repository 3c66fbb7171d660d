#pragma once
// The baseline scheduling methods, all behind SchedulingPolicy (policy.h) so one harness runs
// them with identical seeds (docs/fleet_sim.md, "Baselines"). Each is a per-slot rule over the
// slot's arrivals, queues and capacities; none looks further ahead than the slot.
#include <memory>
#include <string>
#include <vector>

#include "core/fleet/sim/policy.h"

namespace doppler::fleet::sim {

// A fixed allocation every slot (tests, and checking the simulators against each other).
class FixedPolicy : public SchedulingPolicy {
 public:
  FixedPolicy(std::string name, Allocation allocation)
      : name_(std::move(name)), allocation_(std::move(allocation)) {}
  std::string name() const override { return name_; }
  Allocation allocate(const SlotState&) override { return allocation_; }

 private:
  std::string name_;
  Allocation allocation_;
};

// Smoothed OT's weight on the new plan: A_t = (1 - eta) A_{t-1} + eta P*_t (digest §7, "Baselines
// to add"; eta is not given there: 0.3 is an assumption).
inline constexpr double kSmoothedOtEta = 0.3;

// The methods by name: local, round-robin, least-loaded, skylb, sdib, ot, ot-smoothed, milp.
const std::vector<std::string>& policyNames();
// The methods `fleet compare` runs by default (all of them).
const std::vector<std::string>& comparedPolicies();
// InputError naming the known methods if `name` is unknown.
std::unique_ptr<SchedulingPolicy> makePolicy(const std::string& name);

// Exposed for tests: the water-filling split of `total` requests over regions with capacities
// `capacity` (requests per slot) and backlogs `queued`, equalising (queued + share) / capacity.
std::vector<double> waterFill(double total, const std::vector<double>& capacity,
                              const std::vector<double>& queued);

// The OT layer's cost, TORTA's combined C_ij = w1 PowerCost_j + w2 L_ij (docs/fleet_ot.md).
// power_weight 0 is latency alone over balanced columns, the `ot` method. Above 0 the columns
// become capacities, region_cap of each pool's slot capacity less its backlog, and the cost is
// L_ij / max L + power_weight x PowerCost_j / mean PowerCost (FleetModel::requestPowerCost): with
// exact column marginals a cost of the column alone is a constant and could not move any load,
// so only capacity inequalities let the plan fill the cheaper regions first. When the capacities
// cannot take the slot's arrivals the plan is the balanced one (every region is needed anyway).
struct OtCost {
  double power_weight = 0;
  double region_cap = 0.8;  // the paper's MILP example: at most 80% of a region's load
};

// The OT method's plan for a slot (docs/fleet_sim.md, "ot"): arrivals to the pools' free capacity
// (pool rate x slot - backlog) over one-way latency, exact, row-normalised. `column_weights`
// (empty = all 1) scales each region's capacity marginal before normalising: the learned policy
// moves load this way while staying an OT plan. `cost` adds the power term (OtCost).
Allocation otPlan(const SlotState& s, const std::vector<double>& column_weights = {},
                  const OtCost& cost = {});

// Per-slot MILP (CBC) options.
struct MilpOptions {
  double time_limit_s = 0.5;      // per slot; the best solution found by then is used
  double switch_weight = 0.5;     // cost per request moved away from last slot's routing, in s
  double overload_weight = 60.0;  // cost per request beyond the target load, in s
  // Use the LP relaxation's solution when it is already integral (it is on every slot measured
  // so far); false runs CBC's branch and bound every slot.
  bool lp_first = true;
};
std::unique_ptr<SchedulingPolicy> makeMilpPolicy(const MilpOptions& options = {});

}  // namespace doppler::fleet::sim

#pragma once
// What TORTA's PPO policy sees and how its action becomes an allocation (docs/fleet_learn.md).
//
// The action is not the n x n matrix itself: n^2 free outputs (1,369 on cost266) are more than
// PPO learns in minutes, and most of them would only move mass away from the OT plan at random.
// Instead the policy outputs one log-weight per serving region, which scales that region's
// capacity marginal in the slot's OT problem, and one blend logit: the allocation is
//   A = (1 - eta) A_prev + eta OT(mu, nu * exp(w)),   eta = sigmoid(x_n + 3).
// A is row-stochastic by construction, equals the OT plan at w = 0 and eta = 1, and can still
// move load between regions (w) and trade switching against tracking (eta): TORTA's two goals.
// A last output sets the utilization the per-region allocator sizes servers for (fewer servers
// save power, more serve faster): the policy's handle on the micro layer.
#include <vector>

#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/policy.h"

namespace doppler::fleet::learn {

// 9 features per region plus 3 for the fleet.
int observationSize(int regions);
// The slot's features: arrivals and the forecast (as shares times n), the forecast's change,
// backlog, On and powered capacity (over the pool), last slot's utilization, the load last slot's
// allocation and the OT plan would put on each region (over its pool), the time of day, the
// fleet's load.
std::vector<float> observation(const sim::SlotState& state, const std::vector<double>& forecast,
                               const sim::Allocation& reference);

int actionSize(int regions);  // n log-weights, one blend logit, one utilization logit
// The allocation for `action` (actionSize values; non-finite entries count as 0).
sim::Allocation decodeAction(const sim::SlotState& state, const std::vector<double>& action,
                             const sim::OtCost& cost = {});
// The blend eta for a blend logit.
double blendOf(double logit);
// The per-region allocator's target utilization for the last action value: in [0.5, 0.95],
// 0.8 (the simulator's autoscaler's) at 0.
double utilizationOf(const std::vector<double>& action, int regions);

}  // namespace doppler::fleet::learn

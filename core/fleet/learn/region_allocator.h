#pragma once
// TORTA's micro layer, the per-region server allocator (digest §3, docs/fleet_learn.md): how many
// servers each region keeps on, from its backlog and the forecast, not only from what arrived.
//
// A server switched on serves after the cold start (120 s for a 7B model: 2.7 slots of 45 s), so
// the reactive autoscaler (FleetModel::serversNeeded over this slot's routed demand) is always
// late for a rising demand. This allocator sizes each region for the larger of this slot's work
// and the next slot's forecast with headroom, N = min(S_r, ceil((Q + F + z sigma) / C)), where
// F is the forecast routed to the region under this slot's allocation and sigma the forecast's
// recent error there (at least sqrt(F), Poisson's). Switching stays gradual: servers come on
// fastest first and go off at most 10% of the pool per slot, slowest first (ServerPlan).
#include <vector>

#include "core/fleet/sim/policy.h"

namespace doppler::fleet::learn {

class RegionAllocator {
 public:
  explicit RegionAllocator(double headroom_z = 1.0) : z_(headroom_z) {}
  void reset(int regions);
  // Targets per region for this slot. `routed`: requests sent to each region this slot;
  // `forecast`: next slot's arrivals by home region.
  // `utilization`: the load the servers are sized for (the simulator's autoscaler uses 0.8;
  // the PPO policy chooses it each slot, trading response time against power).
  std::vector<int> targets(const sim::SlotState& state, const sim::Allocation& allocation,
                           const std::vector<double>& routed, const std::vector<double>& forecast,
                           double utilization);

 private:
  double z_;
  std::vector<double> last_forecast_routed_;  // what we forecast for this slot, per region
  std::vector<double> error_;                 // mean absolute forecast error (EWMA), per region
};

}  // namespace doppler::fleet::learn

#include "core/fleet/sim/slot_state.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace doppler::fleet::sim {

SlotStateTracker::SlotStateTracker(const FleetModel& fleet)
    : fleet_(&fleet),
      forecaster_(fleet.regions()),
      forecast_noise_(streamFor(fleet.options().seed, 0x666f7265ULL)),  // "fore"
      utilization_(fleet.regions(), 0.0) {}

SlotState SlotStateTracker::begin(int slot, double start_s, double slot_s, const SlotTotals& totals,
                                  const std::vector<double>& queued, const ServerPlan& plan,
                                  const Allocation& previous) {
  const int n = fleet_->regions();
  SlotState s;
  s.slot = slot;
  s.start_s = start_s;
  s.slot_seconds = slot_s;
  s.fleet = fleet_;
  s.arrivals.resize(n);
  s.context_tokens.resize(n);
  s.generated_tokens.resize(n);
  for (int r = 0; r < n; ++r) {
    const size_t k = totals.index(slot, r);
    s.arrivals[r] = totals.requests[k];
    s.context_tokens[r] = static_cast<double>(totals.context_tokens[k]);
    s.generated_tokens[r] = static_cast<double>(totals.generated_tokens[k]);
  }
  // The forecast is made before this slot's arrivals are observed: TORTA's F_t predicts the next
  // slot from the last K.
  forecaster_.observe(s.arrivals);
  s.predicted = forecaster_.predict();
  const double accuracy = fleet_->options().forecast_accuracy;
  if (accuracy > 0) {
    const double error = -std::log(std::min(1.0, accuracy));
    const int next = std::min(slot + 1, totals.slots - 1);
    for (int r = 0; r < n; ++r) {
      const double truth = totals.requests[totals.index(next, r)];
      const double sign = forecast_noise_.uniform() < 0.5 ? -1.0 : 1.0;
      s.predicted[r] = std::max(0.0, truth * (1.0 + sign * error));
    }
  }
  s.queued = queued;
  s.capacity_rps.assign(n, 0);
  s.powered_rps.assign(n, 0);
  s.on_servers.assign(n, 0);
  s.powered_servers.assign(n, 0);
  for (int r = 0; r < n; ++r)
    for (int id : fleet_->regionServers(r)) {
      const Server& server = plan.servers()[id];
      const double rate = fleet_->serverRate(server.gpu);
      if (server.state == ServerState::Off) continue;
      s.powered_rps[r] += rate;
      ++s.powered_servers[r];
      if (server.state == ServerState::On) {
        s.capacity_rps[r] += rate;
        ++s.on_servers[r];
      }
    }
  // Before the first slot nothing is on yet: the policy sees the pool it will start with.
  if (slot == 0)
    for (int r = 0; r < n; ++r)
      if (s.powered_servers[r] == 0) {
        s.capacity_rps[r] = s.powered_rps[r] = fleet_->poolRate(r);
        s.on_servers[r] = s.powered_servers[r] = static_cast<int>(fleet_->regionServers(r).size());
      }
  s.utilization = utilization_;
  s.previous = previous;
  return s;
}

void serverTargets(SchedulingPolicy& policy, const SlotState& state,
                   const std::vector<double>& routed, std::vector<int>& targets) {
  const int n = state.regions();
  targets.assign(n, 0);
  if (policy.serverTargets(state, routed, targets) && static_cast<int>(targets.size()) == n) return;
  targets.assign(n, 0);
  for (int j = 0; j < n; ++j)
    targets[j] = state.fleet->serversNeeded(j, (routed[j] + state.queued[j]) / state.slot_seconds);
}

void recordSlot(SimResult& result, SchedulingPolicy& policy, const SlotState& state,
                const std::vector<double>& routed, const ServerPlan& plan,
                const std::vector<double>& busy_share) {
  RegionSeries& rs = result.region_series;
  const int n = state.regions();
  rs.regions = n;
  for (int r = 0; r < n; ++r) {
    rs.arrivals.push_back(state.arrivals[r]);
    rs.routed.push_back(routed[r]);
    rs.queued.push_back(state.queued[r]);
    rs.utilization.push_back(busy_share[r]);
    rs.capacity_rps.push_back(state.capacity_rps[r]);
    rs.pool_rps.push_back(state.fleet->poolRate(r));
    rs.on_servers.push_back(plan.onIn(r));
    rs.powered_servers.push_back(plan.poweredIn(r));
  }
  SlotExplanation why = policy.explain();
  if (why.fallback) ++result.fallbacks;
  result.explanations.push_back(std::move(why));
}

void requireAllocation(const Allocation& a, int n, const std::string& policy, int slot) {
  if (a.regions != n || !isRowStochastic(a, 1e-6))
    throw std::logic_error("policy " + policy + " returned an allocation at slot " +
                           std::to_string(slot) + " that is not a row-stochastic " +
                           std::to_string(n) + " x " + std::to_string(n) + " matrix");
}

}  // namespace doppler::fleet::sim

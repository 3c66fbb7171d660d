#pragma once
// Pieces both simulators share (not part of the public interface): the slot state a policy sees,
// built the same way by both, and the slot-level model's closed forms (tested directly).
#include <string>
#include <vector>

#include "core/common/random.h"
#include "core/fleet/sim/policy.h"
#include "core/fleet/sim/simulate.h"
#include "core/fleet/world/demand.h"

namespace doppler::fleet::sim {

// Builds each slot's SlotState from the demand's totals, the simulator's queues and server plan,
// and the forecaster; remembers last slot's busy shares.
class SlotStateTracker {
 public:
  explicit SlotStateTracker(const FleetModel& fleet);
  SlotState begin(int slot, double start_s, double slot_s, const SlotTotals& totals,
                  const std::vector<double>& queued, const ServerPlan& plan,
                  const Allocation& previous);
  void end(const std::vector<double>& busy_share) { utilization_ = busy_share; }

 private:
  const FleetModel* fleet_;
  Forecaster forecaster_;
  SplitMix64 forecast_noise_;
  std::vector<double> utilization_;
};

// The server targets for a slot: the policy's own allocator when it has one, else the reactive
// autoscaler over the routed demand plus the backlog. Both simulators call this.
void serverTargets(SchedulingPolicy& policy, const SlotState& state,
                   const std::vector<double>& routed, std::vector<int>& targets);

// Appends one slot to result.region_series and result.explanations (both simulators).
void recordSlot(SimResult& result, SchedulingPolicy& policy, const SlotState& state,
                const std::vector<double>& routed, const ServerPlan& plan,
                const std::vector<double>& busy_share);

// Throws std::logic_error naming the policy and slot unless `a` is a row-stochastic n x n matrix.
void requireAllocation(const Allocation& a, int n, const std::string& policy, int slot);

// One server's steady state in the slot model at `lambda` requests/s of the given sizes.
struct SteadyState {
  double prefill_s = 0;      // one request's prefill
  double prefill_share = 0;  // time share spent in prefill (decode stalls meanwhile)
  double batch = 0;          // sequences decoding together (Little's law)
  double tpot_s = 0;         // time per output token, stalls included
  double decode_share = 0;   // time share spent decoding
};
SteadyState serverSteadyState(const GpuModel& gpu, double lambda, double context, double generated,
                              int max_batch, bool saturated);

// Mean FIFO wait of fluid arrivals at arrival_rate over a slot of slot_s seconds, into a backlog
// served at service_rate: the backlog each arrival finds, over the service rate.
double fluidWait(double backlog, double arrival_rate, double service_rate, double slot_s);

}  // namespace doppler::fleet::sim

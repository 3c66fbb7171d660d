#pragma once
// The two fleet simulators (docs/fleet_sim.md): the slot-level fluid model, fast enough to train
// on, and the per-request discrete-event simulator for evaluation. Both run a policy over a
// scenario's demand slot by slot and return the same FleetMetrics.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/fleet/sim/metrics.h"
#include "core/fleet/sim/policy.h"
#include "core/fleet/world/demand.h"

namespace doppler::fleet::sim {

struct SlotSeries {
  std::vector<double> arrivals, served, queued, rejected;  // per slot, whole fleet
  std::vector<double> mean_response_s;                     // arrivals' mean end-to-end
  std::vector<double> power_usd;                           // electricity this slot (slot model)
};

// Per slot and region, row-major [slot * regions + region]: what the fleet workbench's map and
// heatmap show.
struct RegionSeries {
  int regions = 0;
  std::vector<double> arrivals;      // requests whose home is the region
  std::vector<double> routed;        // requests the allocation sent to the region
  std::vector<double> queued;        // backlog at the slot's start
  std::vector<double> utilization;   // busy share of the region's On servers during the slot
  std::vector<double> capacity_rps;  // requests/s of the servers On at the slot's start
  std::vector<double> pool_rps;      // requests/s of the whole pool (constant per run)
  std::vector<int> on_servers, powered_servers;  // at the slot's start, after the allocator

  double at(const std::vector<double>& v, int slot, int region) const {
    return v[static_cast<size_t>(slot) * regions + region];
  }
};

struct SimResult {
  FleetMetrics metrics;
  SlotSeries series;
  RegionSeries region_series;
  std::vector<Allocation> allocations;        // one per slot, as the policy returned it
  std::vector<SlotExplanation> explanations;  // one per slot (SchedulingPolicy::explain)
  int fallbacks = 0;                          // slots the safety layer fell back
};

// What simulateSlots and simulateRequests throw at the first slot after SimOptions::cancel is
// cancelled: a run cut short has no result to report.
class RunCancelled : public std::runtime_error {
 public:
  explicit RunCancelled(int slot)
      : std::runtime_error("the run was cancelled at slot " + std::to_string(slot)) {}
};

// Slot-level flow/queueing model: per slot, each region's arrivals are split by the allocation,
// each serving region serves up to the capacity of its On servers (roofline rates at the slot's
// request sizes) and queues the rest as a fluid; response = round-trip network + fluid FIFO wait
// + prefill + decode at the batch size Little's law gives. Uses demand.totals only.
SimResult simulateSlots(const FleetModel& fleet, const Demand& demand, SchedulingPolicy& policy);

// Per-request discrete-event simulator: each request goes to a region drawn from its home row of
// the slot's allocation (seeded), waits in the region's FIFO queue, is admitted to an On server
// when its KV cache (prompt + output tokens) fits, is prefilled, then decodes with continuous
// batching; servers warm up (cold start) when switched on and drain before switching off.
// Requests that fit no server of the region's pool are rejected with a reason.
SimResult simulateRequests(const FleetModel& fleet, const Demand& demand, SchedulingPolicy& policy);

// Mean prompt and output tokens of the demand (the trace's means when there are no requests).
std::pair<double, double> meanTokens(const Demand& demand);

}  // namespace doppler::fleet::sim

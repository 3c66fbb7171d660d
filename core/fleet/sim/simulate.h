#pragma once
// The two fleet simulators (docs/fleet_sim.md): the slot-level fluid model, fast enough to train
// on, and the per-request discrete-event simulator for evaluation. Both run a policy over a
// scenario's demand slot by slot and return the same FleetMetrics.
#include <vector>

#include "core/fleet/sim/metrics.h"
#include "core/fleet/sim/policy.h"
#include "core/fleet/world/demand.h"

namespace doppler::fleet::sim {

struct SlotSeries {
  std::vector<double> arrivals, served, queued, rejected;  // per slot, whole fleet
  std::vector<double> mean_response_s;                     // arrivals' mean end-to-end
};

struct SimResult {
  FleetMetrics metrics;
  SlotSeries series;
  std::vector<Allocation> allocations;  // one per slot, as the policy returned it
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

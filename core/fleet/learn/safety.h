#pragma once
// TORTA's learned allocation under watch (docs/fleet_learn.md, "Safety"). Each slot, before the
// learned allocation is used, it is checked against the slot's OT plan:
// - infeasible: not a finite row-stochastic matrix, or it sends requests to a region without a
//   server for the model, or loads a region past `overload` times its whole pool while the OT
//   plan does not: fall back now;
// - regressing: its estimated response (round trip + the fluid wait at each region's current
//   capacity, the slot model's formulas) has exceeded the OT plan's by more than `threshold` on
//   average over the last `window` slots: fall back until the average recovers.
// The estimate is needed because the OT plan's actual response in this run is never observed:
// only one allocation runs per slot.
#include <deque>
#include <string>

#include "core/fleet/sim/policy.h"

namespace doppler::fleet::learn {

struct SafetyOptions {
  double threshold = 0.10;
  int window = 4;
  double overload = 1.5;
  bool enabled = true;
};

struct SafetyVerdict {
  bool fallback = false;
  std::string reason;
  double learned_estimate_s = 0, reference_estimate_s = 0;
};

class SafetyMonitor {
 public:
  explicit SafetyMonitor(SafetyOptions options = {}) : options_(options) {}
  void reset() { ratios_.clear(); }
  SafetyVerdict check(const sim::SlotState& state, const sim::Allocation& learned,
                      const sim::Allocation& reference);

 private:
  SafetyOptions options_;
  std::deque<double> ratios_;
};

// Estimated mean response (s) of the slot's arrivals under `a`, without service time: round trip
// plus the fluid FIFO wait at each region's On capacity (half its powered capacity at least, for
// servers about to be ready).
double estimatedResponse(const sim::SlotState& state, const sim::Allocation& a);

}  // namespace doppler::fleet::learn

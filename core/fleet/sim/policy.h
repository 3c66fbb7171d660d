#pragma once
// The scheduling interface every fleet method implements: once per timeslot, given the slot's
// state, a row-stochastic region-to-region allocation A (A[i][j] = share of region i's requests
// sent to region j), TORTA's macro-layer action (digest §3). The baselines implement it here;
// part 2's PPO policy plugs into the same interface. Both simulators call it the same way.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/fleet/sim/fleet_model.h"

namespace doppler::fleet::sim {

// A square matrix over regions, row-major. A valid allocation has non-negative entries and rows
// that sum to 1.
struct Allocation {
  int regions = 0;
  std::vector<double> share;

  Allocation() = default;
  explicit Allocation(int n, double fill = 0.0)
      : regions(n), share(static_cast<size_t>(n) * n, fill) {}
  double& at(int from, int to) { return share[static_cast<size_t>(from) * regions + to]; }
  double at(int from, int to) const { return share[static_cast<size_t>(from) * regions + to]; }

  static Allocation identity(int n);  // every region serves its own requests
  static Allocation uniform(int n);   // every region spreads over all regions evenly
};

// Whether every entry is >= -tolerance and every row sums to 1 within tolerance.
bool isRowStochastic(const Allocation& a, double tolerance = 1e-6);
// Clips negatives to 0 and divides each row by its sum; a row summing to 0 becomes the identity
// row (the region serves itself).
void normalizeRows(Allocation& a);
// ||A - B||_F^2: TORTA's switching cost C_switch.
double switchCost(const Allocation& a, const Allocation& b);
// Rows whose L1 change is above `threshold`.
int switchedRows(const Allocation& a, const Allocation& b, double threshold);

// What a policy sees at the start of a slot. Counts are requests (the slot-level simulator's
// fluid counts may be fractional).
struct SlotState {
  int slot = 0;
  double start_s = 0, slot_seconds = 0;
  // The slot's start on the clock a time-of-day feature reads: seconds since Monday 00:00 UTC on
  // a calendar horizon (Demand::start_week_hour), else start_s.
  double clock_s = 0;
  const FleetModel* fleet = nullptr;  // regions, latency, prices, servers and their rates
  std::vector<double> arrivals;       // this slot's requests by home region (TORTA's mu_t)
  std::vector<double> context_tokens, generated_tokens;  // their token sums by home region
  std::vector<double> predicted;     // next slot's arrivals by home region (Forecaster)
  std::vector<double> queued;        // requests waiting at each serving region
  std::vector<double> capacity_rps;  // requests/s of each region's servers that are On
  std::vector<double> powered_rps;   // ... On, Warming or Draining (about to serve)
  std::vector<int> on_servers, powered_servers;
  std::vector<double> utilization;  // last slot's busy share of each region's On servers
  Allocation previous;              // last slot's allocation (identity before the first)

  int regions() const { return static_cast<int>(arrivals.size()); }
  double latency(int from, int to) const { return fleet->latency(from, to); }
  double poolRate(int region) const { return fleet->poolRate(region); }
};

// Why a policy allocated what it did in the slot just decided, for the decision trace (the
// studio's fleet workbench, `fleet simulate --json`). Methods without a reference plan leave it
// empty.
struct SlotExplanation {
  bool has_reference = false;
  Allocation reference;   // the plan that guided the allocation (TORTA: the slot's OT plan)
  bool fallback = false;  // the safety layer replaced the learned allocation by the reference
  std::string reason;     // why it fell back ("" when it did not)
};

// A fleet scheduling method. reset() starts a run (a fresh episode); allocate() is called once
// per slot, in order, and must return a row-stochastic regions x regions matrix (the simulators
// check and throw std::logic_error otherwise).
class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  virtual std::string name() const = 0;
  virtual void reset(const FleetModel& /*fleet*/, uint64_t /*seed*/) {}
  virtual Allocation allocate(const SlotState& state) = 0;
  // Called after allocate(): what guided this slot's allocation.
  virtual SlotExplanation explain() const { return {}; }
  // The per-region server allocator: how many servers each region should have on for this slot,
  // given the requests `routed` to each region by the slot's allocation. A method without its
  // own allocator returns false and the simulator's reactive autoscaler decides
  // (FleetModel::serversNeeded over routed demand plus backlog).
  virtual bool serverTargets(const SlotState& /*state*/, const std::vector<double>& /*routed*/,
                             std::vector<int>& /*targets*/) {
    return false;
  }
  // Per-request simulator: whether a queued request goes to the server with the best TORTA
  // matching score (matching.h) instead of the least KV-loaded one.
  virtual bool scoresServers() const { return false; }
};

}  // namespace doppler::fleet::sim

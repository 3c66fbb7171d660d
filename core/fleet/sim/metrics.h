#pragma once
// The metrics of one fleet run, one struct filled by both simulators (docs/fleet_sim.md,
// "Metrics"). The per-request simulator has one sample per request; the slot-level simulator one
// weighted sample per (slot, region) group at its mean, so its percentiles spread less.
#include <map>
#include <string>
#include <vector>

#include "core/fleet/sim/policy.h"

namespace doppler::fleet::sim {

struct Distribution {
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0;
};

// Values with weights; quantiles by the weighted empirical CDF (the smallest value whose
// cumulative weight reaches q of the total).
class WeightedSamples {
 public:
  void add(double value, double weight = 1.0) {
    if (weight > 0) items_.push_back({value, weight});
  }
  Distribution summarize();  // sorts in place
  double total() const;

 private:
  struct Item {
    double value, weight;
  };
  std::vector<Item> items_;
};

struct FleetMetrics {
  std::string simulator;  // "slot" or "request"
  std::string method;
  int slots = 0;
  double horizon_s = 0;

  // Conservation (checked every slot): arrivals = served + queued + rejected.
  double arrivals = 0, served = 0, queued = 0, rejected = 0;
  std::map<std::string, double> rejected_by_reason;

  Distribution ttft_s, tpot_s, e2e_s, queue_s;  // over served requests
  SloTargets slo;
  double slo_attainment = 0;  // share of served requests meeting both targets
  double goodput_rps = 0;     // such requests per second of horizon
  double throughput_rps = 0,
         tokens_per_s = 0;  // served requests and their (prompt + output) tokens

  double energy_kwh = 0, power_cost_usd = 0;  // GPU energy x the region's electricity price
  double gpu_cost_usd = 0;                    // GPU $/h x powered time (on, warming, draining)
  double energy_per_token_j = 0;

  int switches = 0;        // allocation rows changed (L1 > threshold), summed over slots
  double switch_cost = 0;  // sum over slots of ||A_t - A_{t-1}||_F^2 (TORTA's C_switch)
  int migrations = 0;      // servers switched on (cold starts: the model is loaded anew)

  // Utilization is served work over available capacity: the server-seconds the served requests
  // take at a server's full rate (its requests/s at the demand's mean sizes), over the
  // server-seconds servers could serve (On, or warming past ready). Switching on a GPU that then
  // idles lowers it. Per region, and over the fleet.
  std::vector<double> region_utilization;
  double utilization = 0;
  // Balance over the regions that had capacity: CV of their utilization, TORTA's LB = 1 / (1 +
  // CV) (digest §5) and Jain's index. A region that idles is unbalanced, not balanced.
  double utilization_cv = 0, jain_index = 0;
  double load_balance = 0;
  // The share of powered server-time a server had a batch at all (what "utilization" meant
  // before: near 1 at any load, since decoding a batch of one counts).
  double busy_share = 0;

  double cross_region_share = 0;  // served requests served away from their home region
  double added_network_s = 0;     // mean added round-trip delay over all served requests
  double mean_network_s = 0;      // mean round trip over all served requests

  double wall_s = 0;  // simulator's own run time
  int fallbacks = 0;  // slots a learned method's safety layer fell back to its reference plan
};

// Accumulates a run's figures; both simulators feed it the same way.
class MetricsCollector {
 public:
  MetricsCollector(const FleetModel& fleet, std::string simulator, std::string method);

  // One served request, or (slot simulator) `weight` requests at these mean values.
  // count == false records the latency sample only (the slot simulator samples its arrivals,
  // which it serves later, and counts what it serves with countServed).
  void served(double ttft, double tpot, double e2e, double queue, double network, bool cross,
              double tokens, double weight = 1.0, bool count = true);
  void countServed(double n) { m_.served += n; }
  void rejected(const std::string& reason, double count = 1.0);
  void arrived(double count) { m_.arrivals += count; }
  // Server time in one region: busy (serving) and powered seconds, energy (J) and GPU $.
  void serverTime(int region, double busy_s, double powered_s, double joules, double usd);
  // Served work and available capacity, in server-seconds (FleetMetrics::utilization).
  void capacityUsed(int region, double work_s, double available_s);
  void slotSwitch(const Allocation& prev, const Allocation& next, bool first);
  void coldStarts(int n) { m_.migrations += n; }
  void setQueued(double q) { m_.queued = q; }

  // Throws std::logic_error unless arrivals == served + queued + rejected (relative 1e-6).
  void checkConservation(int slot) const;

  FleetMetrics finish(int slots, double horizon_s, double wall_s);

 private:
  const FleetModel* fleet_;
  FleetMetrics m_;
  WeightedSamples ttft_, tpot_, e2e_, queue_;
  double samples_ = 0, slo_ok_ = 0, tokens_ = 0, cross_ = 0, added_net_ = 0, net_ = 0;
  std::vector<double> busy_, powered_, work_, available_;
  double joules_ = 0;
};

// 95% confidence half-width of the mean of `values` (Student's t, n - 1 degrees of freedom); 0
// for fewer than two values.
double ci95HalfWidth(const std::vector<double>& values);
double studentT975(int dof);

}  // namespace doppler::fleet::sim

#include "core/fleet/sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/fleet/sim/policy.h"

namespace doppler::fleet::sim {

double WeightedSamples::total() const {
  double t = 0;
  for (const Item& item : items_) t += item.weight;
  return t;
}

Distribution WeightedSamples::summarize() {
  Distribution d;
  if (items_.empty()) return d;
  std::sort(items_.begin(), items_.end(),
            [](const Item& a, const Item& b) { return a.value < b.value; });
  const double sum = total();
  double mean = 0;
  for (const Item& item : items_) mean += item.value * item.weight;
  d.mean = mean / sum;
  const double qs[] = {0.5, 0.9, 0.95, 0.99};
  double* outs[] = {&d.p50, &d.p90, &d.p95, &d.p99};
  double cum = 0;
  size_t k = 0;
  for (const Item& item : items_) {
    cum += item.weight;
    // A small relative slack so q * sum rounding does not skip a value that reaches it exactly.
    while (k < 4 && cum >= qs[k] * sum * (1 - 1e-12)) *outs[k++] = item.value;
  }
  while (k < 4) *outs[k++] = items_.back().value;
  return d;
}

MetricsCollector::MetricsCollector(const FleetModel& fleet, std::string simulator,
                                   std::string method)
    : fleet_(&fleet) {
  m_.simulator = std::move(simulator);
  m_.method = std::move(method);
  m_.slo = fleet.options().slo;
  busy_.assign(fleet.regions(), 0);
  powered_.assign(fleet.regions(), 0);
  work_.assign(fleet.regions(), 0);
  available_.assign(fleet.regions(), 0);
}

void MetricsCollector::served(double ttft, double tpot, double e2e, double queue, double network,
                              bool cross, double tokens, double weight, bool count) {
  if (count) m_.served += weight;
  samples_ += weight;
  ttft_.add(ttft, weight);
  tpot_.add(tpot, weight);
  e2e_.add(e2e, weight);
  queue_.add(queue, weight);
  if (ttft <= m_.slo.ttft_s && tpot <= m_.slo.tpot_s) slo_ok_ += weight;
  tokens_ += tokens * weight;
  net_ += network * weight;
  if (cross) {
    cross_ += weight;
    added_net_ += network * weight;
  }
}

void MetricsCollector::rejected(const std::string& reason, double count) {
  m_.rejected += count;
  m_.rejected_by_reason[reason] += count;
}

void MetricsCollector::serverTime(int region, double busy_s, double powered_s, double joules,
                                  double usd) {
  busy_[region] += busy_s;
  powered_[region] += powered_s;
  joules_ += joules;
  m_.power_cost_usd += joules / 3.6e6 * fleet_->price(region);
  m_.gpu_cost_usd += usd;
}

void MetricsCollector::capacityUsed(int region, double work_s, double available_s) {
  work_[region] += work_s;
  available_[region] += available_s;
}

void MetricsCollector::slotSwitch(const Allocation& prev, const Allocation& next, bool first) {
  if (first) return;  // the first allocation replaces nothing
  m_.switches += switchedRows(prev, next, fleet_->options().switch_threshold);
  m_.switch_cost += switchCost(prev, next);
}

void MetricsCollector::checkConservation(int slot) const {
  const double rhs = m_.served + m_.queued + m_.rejected;
  if (std::abs(m_.arrivals - rhs) > 1e-6 * std::max(1.0, m_.arrivals))
    throw std::logic_error("fleet simulator lost requests at slot " + std::to_string(slot) +
                           ": arrivals " + std::to_string(m_.arrivals) + " != served " +
                           std::to_string(m_.served) + " + queued " + std::to_string(m_.queued) +
                           " + rejected " + std::to_string(m_.rejected));
}

FleetMetrics MetricsCollector::finish(int slots, double horizon_s, double wall_s) {
  m_.slots = slots;
  m_.horizon_s = horizon_s;
  m_.wall_s = wall_s;
  m_.ttft_s = ttft_.summarize();
  m_.tpot_s = tpot_.summarize();
  m_.e2e_s = e2e_.summarize();
  m_.queue_s = queue_.summarize();
  const double served = std::max(samples_, 1e-300);
  m_.slo_attainment = samples_ > 0 ? slo_ok_ / served : 0;
  m_.goodput_rps = horizon_s > 0 ? slo_ok_ / horizon_s : 0;
  m_.throughput_rps = horizon_s > 0 ? m_.served / horizon_s : 0;
  m_.tokens_per_s = horizon_s > 0 ? tokens_ / horizon_s : 0;
  m_.energy_kwh = joules_ / 3.6e6;
  m_.energy_per_token_j = tokens_ > 0 ? joules_ / tokens_ : 0;
  m_.cross_region_share = samples_ > 0 ? cross_ / served : 0;
  m_.added_network_s = samples_ > 0 ? added_net_ / served : 0;
  m_.mean_network_s = samples_ > 0 ? net_ / served : 0;

  // Served work over available capacity, per region and over the fleet; balance over the
  // regions that had capacity.
  const int n = fleet_->regions();
  m_.region_utilization.assign(n, 0);
  double busy = 0, powered = 0, work = 0, available = 0;
  std::vector<double> u;
  for (int r = 0; r < n; ++r) {
    if (available_[r] > 0) {
      m_.region_utilization[r] = work_[r] / available_[r];
      u.push_back(m_.region_utilization[r]);
    }
    busy += busy_[r], powered += powered_[r];
    work += work_[r], available += available_[r];
  }
  m_.utilization = available > 0 ? work / available : 0;
  m_.busy_share = powered > 0 ? busy / powered : 0;
  const int k = static_cast<int>(u.size());
  const double mean = k > 0 ? std::accumulate(u.begin(), u.end(), 0.0) / k : 0;
  double var = 0, sq = 0;
  for (double x : u) var += (x - mean) * (x - mean), sq += x * x;
  const double sd = std::sqrt(var / std::max(1, k));
  m_.utilization_cv = mean > 0 ? sd / mean : 0;
  m_.load_balance = 1.0 / (1.0 + m_.utilization_cv);
  // Jain's fairness index (Jain, Chiu, Hawe, DEC-TR-301, 1984): (sum x)^2 / (n sum x^2).
  const double sum = mean * k;
  m_.jain_index = sq > 0 ? sum * sum / (k * sq) : 1.0;
  return m_;
}

double studentT975(int dof) {
  // Two-sided 95% quantiles of Student's t (any statistics table, e.g. NIST/SEMATECH e-Handbook
  // of Statistical Methods, Table 1.3.6.7.2), dof 1..30, then the normal 1.96 beyond.
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return 0;
  if (dof <= 30) return table[dof - 1];
  return 1.96;
}

double ci95HalfWidth(const std::vector<double>& values) {
  const int n = static_cast<int>(values.size());
  if (n < 2) return 0;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double var = 0;
  for (double x : values) var += (x - mean) * (x - mean);
  var /= (n - 1);
  return studentT975(n - 1) * std::sqrt(var / n);
}

}  // namespace doppler::fleet::sim

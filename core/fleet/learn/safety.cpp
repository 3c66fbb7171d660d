#include "core/fleet/learn/safety.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/fleet/sim/slot_state.h"

namespace doppler::fleet::learn {

double estimatedResponse(const sim::SlotState& s, const sim::Allocation& a) {
  const int n = s.regions();
  const double T = s.slot_seconds;
  std::vector<double> routed(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) routed[j] += s.arrivals[i] * a.at(i, j);
  std::vector<double> wait(n, 0.0);
  for (int j = 0; j < n; ++j) {
    const double rate = std::max(s.capacity_rps[j], 0.5 * s.powered_rps[j]);
    // A region that cannot serve at all this slot: charge the whole slot (finite, comparable).
    wait[j] = rate > 0 ? std::min(sim::fluidWait(s.queued[j], routed[j] / T, rate, T), 10 * T)
                       : (routed[j] > 0 ? 10 * T : 0);
  }
  double sum = 0, weight = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double w = s.arrivals[i] * a.at(i, j);
      if (w <= 0) continue;
      sum += w * (2.0 * s.latency(i, j) + wait[j]);
      weight += w;
    }
  return weight > 0 ? sum / weight : 0.0;
}

SafetyVerdict SafetyMonitor::check(const sim::SlotState& s, const sim::Allocation& learned,
                                   const sim::Allocation& reference) {
  SafetyVerdict v;
  const int n = s.regions();
  bool finite = learned.regions == n;
  for (double x : learned.share) finite = finite && std::isfinite(x);
  if (!finite || !sim::isRowStochastic(learned, 1e-6)) {
    v.fallback = true;
    v.reason = "infeasible: not a row-stochastic allocation";
    return v;
  }
  if (!options_.enabled) return v;
  const double T = s.slot_seconds;
  for (int j = 0; j < n; ++j) {
    double mine = 0, theirs = 0;
    for (int i = 0; i < n; ++i) {
      mine += s.arrivals[i] * learned.at(i, j);
      theirs += s.arrivals[i] * reference.at(i, j);
    }
    if (s.fleet->regionServers(j).empty() && mine > 1e-9) {
      v.fallback = true;
      v.reason = "infeasible: sends requests to a region without a server for the model";
      return v;
    }
    const double pool = s.poolRate(j) * T;
    if (mine + s.queued[j] > options_.overload * pool &&
        theirs + s.queued[j] <= options_.overload * pool) {
      v.fallback = true;
      v.reason = "infeasible: overloads a region past its whole pool";
      return v;
    }
  }
  v.learned_estimate_s = estimatedResponse(s, learned);
  v.reference_estimate_s = estimatedResponse(s, reference);
  // Ratio of estimates with a 0.05 s floor, so near-empty slots (a few ms of wait either way)
  // do not trip it.
  const double ratio = (v.learned_estimate_s + 0.05) / (v.reference_estimate_s + 0.05);
  ratios_.push_back(ratio);
  while (static_cast<int>(ratios_.size()) > std::max(1, options_.window)) ratios_.pop_front();
  const double mean = std::accumulate(ratios_.begin(), ratios_.end(), 0.0) / ratios_.size();
  if (mean > 1.0 + options_.threshold) {
    v.fallback = true;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "regression: estimated response %.0f%% above the OT plan's over the last %zu "
                  "slots",
                  100.0 * (mean - 1.0), ratios_.size());
    v.reason = buf;
  }
  return v;
}

}  // namespace doppler::fleet::learn

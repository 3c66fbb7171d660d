#include "core/fleet/learn/torta_features.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/fleet/sim/baselines.h"

namespace doppler::fleet::learn {

using sim::Allocation;
using sim::SlotState;

int observationSize(int regions) {
  return 9 * regions + 3;
}

int actionSize(int regions) {
  return regions + 2;
}

double utilizationOf(const std::vector<double>& action, int regions) {
  const double x = regions + 1 < static_cast<int>(action.size()) ? action[regions + 1] : 0.0;
  // 0.5 + 0.45 sigmoid(x + c) with sigmoid(c) = 2/3, so x = 0 gives 0.8.
  const double c = std::log(2.0);
  const double v = std::isfinite(x) ? x : 0.0;
  return 0.5 + 0.45 / (1.0 + std::exp(-(v + c)));
}

double blendOf(double logit) {
  // Offset so a fresh policy (outputs near 0) blends 95% of the new plan: it starts at OT.
  return 1.0 / (1.0 + std::exp(-(logit + 3.0)));
}

namespace {

// Requests a region's whole pool serves in a slot (at least a tiny amount: regions without a
// server for the model still get finite features).
double poolSlot(const SlotState& s, int r) {
  return std::max(1e-6, s.poolRate(r) * s.slot_seconds);
}

std::vector<double> columnLoad(const SlotState& s, const Allocation& a) {
  const int n = s.regions();
  std::vector<double> load(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) load[j] += s.arrivals[i] * a.at(i, j);
  for (int j = 0; j < n; ++j) load[j] /= poolSlot(s, j);
  return load;
}

float clipped(double v, double limit = 10.0) {
  if (!std::isfinite(v)) return 0.0f;
  return static_cast<float>(std::clamp(v, -limit, limit));
}

}  // namespace

std::vector<float> observation(const SlotState& s, const std::vector<double>& forecast,
                               const Allocation& reference) {
  const int n = s.regions();
  std::vector<float> obs;
  obs.reserve(static_cast<size_t>(observationSize(n)));
  const double total = std::accumulate(s.arrivals.begin(), s.arrivals.end(), 0.0);
  const double perRegion = std::max(1.0, total / n);
  const std::vector<double> prevLoad = columnLoad(s, s.previous);
  const std::vector<double> refLoad = columnLoad(s, reference);
  double pool = 0;
  for (int r = 0; r < n; ++r) {
    const double p = std::max(1e-6, s.poolRate(r));
    pool += poolSlot(s, r);
    obs.push_back(clipped(s.arrivals[r] / perRegion));
    obs.push_back(clipped(forecast[r] / perRegion));
    obs.push_back(clipped(std::log((forecast[r] + 1.0) / (s.arrivals[r] + 1.0))));
    obs.push_back(clipped(s.queued[r] / poolSlot(s, r)));
    obs.push_back(clipped(s.capacity_rps[r] / p));
    obs.push_back(clipped(s.powered_rps[r] / p));
    obs.push_back(clipped(s.utilization[r]));
    obs.push_back(clipped(prevLoad[r]));
    obs.push_back(clipped(refLoad[r]));
  }
  const double day = 2.0 * 3.14159265358979323846 * std::fmod(s.clock_s, 86400.0) / 86400.0;
  obs.push_back(static_cast<float>(std::sin(day)));
  obs.push_back(static_cast<float>(std::cos(day)));
  obs.push_back(clipped(total / std::max(1e-6, pool)));
  return obs;
}

Allocation decodeAction(const SlotState& s, const std::vector<double>& action,
                        const sim::OtCost& cost) {
  const int n = s.regions();
  auto value = [&](int k) {
    const double v = k < static_cast<int>(action.size()) ? action[k] : 0.0;
    return std::isfinite(v) ? v : 0.0;
  };
  std::vector<double> weights(n);
  for (int j = 0; j < n; ++j) weights[j] = std::exp(std::clamp(value(j), -3.0, 3.0));
  Allocation plan = sim::otPlan(s, weights, cost);
  if (s.slot == 0) return plan;  // nothing to blend with yet
  const double eta = blendOf(value(n));
  for (size_t k = 0; k < plan.share.size(); ++k)
    plan.share[k] = (1.0 - eta) * s.previous.share[k] + eta * plan.share[k];
  sim::normalizeRows(plan);
  return plan;
}

}  // namespace doppler::fleet::learn

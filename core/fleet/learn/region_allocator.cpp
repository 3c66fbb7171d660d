#include "core/fleet/learn/region_allocator.h"

#include <algorithm>
#include <cmath>

namespace doppler::fleet::learn {

void RegionAllocator::reset(int regions) {
  last_forecast_routed_.assign(regions, -1.0);
  error_.assign(regions, 0.0);
}

std::vector<int> RegionAllocator::targets(const sim::SlotState& s, const sim::Allocation& a,
                                          const std::vector<double>& routed,
                                          const std::vector<double>& forecast, double utilization) {
  const int n = s.regions();
  if (static_cast<int>(error_.size()) != n) reset(n);
  const double T = s.slot_seconds;
  std::vector<int> out(n);
  for (int j = 0; j < n; ++j) {
    // Learn how wrong the forecast routed here was (EWMA of the absolute error, weight 0.2).
    if (last_forecast_routed_[j] >= 0)
      error_[j] = 0.8 * error_[j] + 0.2 * std::abs(routed[j] - last_forecast_routed_[j]);
    double next = 0;
    for (int i = 0; i < n; ++i) next += forecast[i] * a.at(i, j);
    last_forecast_routed_[j] = next;
    const double sigma = std::max(std::sqrt(std::max(0.0, next)), error_[j]);
    // This slot's work must be served now; the next slot's forecast must be warm by then, and a
    // server switched on now is (at 45 s slots and 120 s cold starts) still warming next slot,
    // so both are provisioned together.
    const double now = routed[j] + s.queued[j];
    const double ahead = s.queued[j] + next + z_ * sigma;
    out[j] = s.fleet->serversNeeded(j, std::max(now, ahead) / T, utilization);
  }
  return out;
}

}  // namespace doppler::fleet::learn

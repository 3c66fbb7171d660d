#include "series_smoothing.h"

#include <algorithm>
#include <cmath>

namespace doppler::views {

std::vector<double> emaSmoothed(const std::vector<double>& values, double weight) {
  weight = std::clamp(weight, 0.0, 0.999);
  if (weight == 0) return values;
  std::vector<double> out(values.size());
  double last = 0, debias = 1;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      out[i] = values[i];
      continue;
    }
    last = last * weight + (1 - weight) * values[i];
    debias *= weight;
    out[i] = last / (1 - debias);
  }
  return out;
}

std::vector<double> trailingMean(const std::vector<double>& values, int window) {
  if (window <= 1) return values;
  std::vector<double> out(values.size());
  double sum = 0;
  int count = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isnan(values[i])) {
      sum += values[i];
      ++count;
    }
    if (i >= static_cast<size_t>(window) && !std::isnan(values[i - window])) {
      sum -= values[i - window];
      --count;
    }
    out[i] = count > 0 ? sum / count : std::nan("");
  }
  return out;
}

}  // namespace doppler::views

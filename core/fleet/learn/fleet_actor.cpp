#include "core/fleet/learn/fleet_actor.h"

#include <algorithm>
#include <cmath>

namespace doppler::fleet::learn {

int predictorInputSize(int regions) {
  return kPredictorWindow * regions + 2;
}

PredictorEncoding encodePredictorInput(const std::vector<std::vector<double>>& history,
                                       double next_start_s) {
  PredictorEncoding e;
  const int n = history.empty() ? 0 : static_cast<int>(history.back().size());
  const int k = static_cast<int>(history.size());
  e.scale.assign(n, 1.0);
  for (int r = 0; r < n; ++r) {
    double sum = 0;
    for (const auto& slot : history) sum += slot[r];
    e.scale[r] = sum / std::max(1, k) + 1.0;
  }
  e.input.reserve(static_cast<size_t>(predictorInputSize(n)));
  // Oldest first; a short history (the run's first slots) repeats its oldest slot.
  for (int back = kPredictorWindow; back >= 1; --back) {
    const auto& slot = history[static_cast<size_t>(std::max(0, k - back))];
    for (int r = 0; r < n; ++r)
      e.input.push_back(static_cast<float>(std::min(20.0, slot[r] / e.scale[r])));
  }
  const double day = 2.0 * 3.14159265358979323846 * std::fmod(next_start_s, 86400.0) / 86400.0;
  e.input.push_back(static_cast<float>(std::sin(day)));
  e.input.push_back(static_cast<float>(std::cos(day)));
  return e;
}

double decodePrediction(double output, double scale) {
  return std::max(0.0, std::exp(std::clamp(output, -10.0, 10.0)) * scale - 1.0);
}

double predictionTarget(double truth, double scale) {
  return std::log((std::max(0.0, truth) + 1.0) / scale);
}

double predictionAccuracy(const std::vector<double>& truth, const std::vector<double>& predicted) {
  double sum = 0;
  long long count = 0;
  for (size_t k = 0; k < truth.size() && k < predicted.size(); ++k) {
    if (truth[k] < 1.0) continue;
    sum += std::abs(predicted[k] - truth[k]) / truth[k];
    ++count;
  }
  return count > 0 ? std::exp(-sum / static_cast<double>(count)) : 0.0;
}

}  // namespace doppler::fleet::learn

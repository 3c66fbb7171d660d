#pragma once
// Smoothing for noisy metric curves (training loss, search progress, fleet regret), the way
// TensorBoard smooths its scalars: an exponential moving average with its start-up bias removed,
// so the first points are not dragged towards zero. The studio always draws the raw curve faintly
// under the smoothed one: smoothing must never hide what was recorded.
#include <vector>

namespace doppler::views {

// values smoothed with weight w in [0, 1): s_t = w s_{t-1} + (1 - w) v_t, divided by (1 - w^t).
// w = 0 returns the values. NaN points are kept as NaN and skipped by the average.
std::vector<double> emaSmoothed(const std::vector<double>& values, double weight);

// A trailing mean over `window` points (window <= 1: the values), for per-slot series read
// per hour.
std::vector<double> trailingMean(const std::vector<double>& values, int window);

}  // namespace doppler::views

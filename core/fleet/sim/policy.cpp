#include "core/fleet/sim/policy.h"

#include <algorithm>
#include <cmath>

namespace doppler::fleet::sim {

Allocation Allocation::identity(int n) {
  Allocation a(n);
  for (int i = 0; i < n; ++i) a.at(i, i) = 1.0;
  return a;
}

Allocation Allocation::uniform(int n) {
  return Allocation(n, n > 0 ? 1.0 / n : 0.0);
}

bool isRowStochastic(const Allocation& a, double tolerance) {
  if (a.share.size() != static_cast<size_t>(a.regions) * a.regions) return false;
  for (int i = 0; i < a.regions; ++i) {
    double sum = 0;
    for (int j = 0; j < a.regions; ++j) {
      const double x = a.at(i, j);
      if (!std::isfinite(x) || x < -tolerance) return false;
      sum += x;
    }
    if (std::abs(sum - 1.0) > tolerance) return false;
  }
  return true;
}

void normalizeRows(Allocation& a) {
  for (int i = 0; i < a.regions; ++i) {
    double sum = 0;
    for (int j = 0; j < a.regions; ++j) {
      double& x = a.at(i, j);
      if (!(x > 0)) x = 0;  // negatives and NaN
      sum += x;
    }
    for (int j = 0; j < a.regions; ++j) {
      if (sum > 0)
        a.at(i, j) /= sum;
      else
        a.at(i, j) = i == j ? 1.0 : 0.0;
    }
  }
}

double switchCost(const Allocation& a, const Allocation& b) {
  double sum = 0;
  for (size_t k = 0; k < a.share.size() && k < b.share.size(); ++k) {
    const double d = a.share[k] - b.share[k];
    sum += d * d;
  }
  return sum;
}

int switchedRows(const Allocation& a, const Allocation& b, double threshold) {
  int n = 0;
  for (int i = 0; i < a.regions; ++i) {
    double l1 = 0;
    for (int j = 0; j < a.regions; ++j) l1 += std::abs(a.at(i, j) - b.at(i, j));
    if (l1 > threshold) ++n;
  }
  return n;
}

}  // namespace doppler::fleet::sim

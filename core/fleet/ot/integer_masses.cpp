#include "core/fleet/ot/integer_masses.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace doppler::fleet::ot {

std::vector<int64_t> integerMasses(const std::vector<double>& masses, double scale, int64_t units) {
  std::vector<int64_t> result(masses.size(), 0);
  std::vector<double> remainder(masses.size(), 0.0);
  std::vector<std::size_t> positive;
  int64_t assigned = 0;
  for (std::size_t i = 0; i < masses.size(); ++i) {
    const double scaled = masses[i] * scale;
    result[i] = static_cast<int64_t>(std::floor(scaled));
    remainder[i] = scaled - static_cast<double>(result[i]);
    assigned += result[i];
    if (masses[i] > 0) positive.push_back(i);
  }
  if (units == assigned) return result;
  if (positive.empty()) throw std::logic_error("integerMasses: no positive mass to round onto");
  // Largest remainders first; ties by index, so the result does not depend on the sort.
  std::stable_sort(positive.begin(), positive.end(),
                   [&](std::size_t x, std::size_t y) { return remainder[x] > remainder[y]; });
  // Floating-point error in the scaled total can leave more (or fewer) units than entries; cycle,
  // and when taking units away skip entries that are already zero.
  for (std::size_t k = 0; assigned < units; k = (k + 1) % positive.size()) {
    ++result[positive[k]];
    ++assigned;
  }
  for (std::size_t step = 0; assigned > units; ++step) {
    const std::size_t i = positive[positive.size() - 1 - step % positive.size()];
    if (result[i] > 0) {
      --result[i];
      --assigned;
    }
  }
  return result;
}

}  // namespace doppler::fleet::ot

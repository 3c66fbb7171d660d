#pragma once
// Real masses as integers for LEMON, whose network simplex needs integer supplies that balance
// exactly (with double supplies it reports 0.2+0.5+0.3 vs 0.3+0.3+0.4 infeasible).
#include <cstdint>
#include <vector>

namespace doppler::fleet::ot {

// masses[i] * scale rounded to integers that sum to exactly `units`: each is floor(masses[i] *
// scale) plus one for the entries with the largest fractional parts (the largest-remainder
// method), so each is within one of masses[i] * scale when `units` is the rounded scaled total.
// Zero masses stay zero. Requires units >= 0 and, if units > 0, some positive mass.
std::vector<int64_t> integerMasses(const std::vector<double>& masses, double scale, int64_t units);

}  // namespace doppler::fleet::ot

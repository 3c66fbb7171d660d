#include "core/fleet/sim/matching.h"

#include <algorithm>
#include <cmath>

namespace doppler::fleet::sim {

double matchScore(const ServerView& s, double need, const MatchWeights& w) {
  const double typeMatch = need <= 0.5 * s.kv_tokens ? 1.0 : 0.5;
  const double hw = std::min(1.0, s.rate / std::max(1e-12, s.fastest_rate)) * typeMatch;
  const double load = std::exp(-(s.kv_used / std::max(1.0, s.kv_tokens) +
                                 static_cast<double>(s.batch) / std::max(1, s.max_batch)));
  const double loc = std::exp(-std::max(0.0, s.since_same_home_s) / 60.0);
  return w.hw * hw + w.load * load + w.loc * loc;
}

}  // namespace doppler::fleet::sim

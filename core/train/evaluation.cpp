#include "core/train/evaluation.h"

#include <algorithm>
#include <utility>

#include "core/policy/rollout.h"

namespace doppler::train {

EvalResult evaluateScores(const policy::PolicyScores& scores, const CostTable& costs,
                          const policy::GraphFeatures& features, int samples, uint64_t seed,
                          const SimOptions& sim, policy::Component sel, policy::Component plc) {
  Simulator simulator(costs, sim);
  EvalResult best;
  for (int k = 0; k < std::max(1, samples); ++k) {
    policy::EpisodeOptions o;
    o.mode = k == 0 ? policy::DecisionMode::Greedy : policy::DecisionMode::Sample;
    o.seed = seed * 1000003ULL + static_cast<uint64_t>(k);
    o.sel = sel;
    o.plc = plc;
    policy::EpisodeResult r = policy::runEpisode(scores, costs, features, o);
    const double ms = simulator.makespan(r.assignment);
    if (k == 0 || ms < best.makespan_us) {
      best.episode = std::move(r);
      best.makespan_us = ms;
      best.best_sample = k;
    }
  }
  return best;
}

}  // namespace doppler::train

#pragma once
// Evaluating a trained policy: the best simulated makespan of `samples` episodes (the first
// greedy, the rest sampled with seeds derived from `seed`). The decisions are plain C++ on the
// network's scores (one forward pass per graph, from the LibTorch module's LoadedPolicy or from a
// Policy), so this file needs no LibTorch.
#include <cstdint>

#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/policy.h"
#include "core/policy/policy_config.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"

namespace doppler::train {

struct EvalResult {
  policy::EpisodeResult episode;
  double makespan_us = 0;
  int best_sample = 0;
};

EvalResult evaluateScores(const policy::PolicyScores& scores, const CostTable& costs,
                          const policy::GraphFeatures& features, int samples = 1, uint64_t seed = 1,
                          const SimOptions& sim = {},
                          policy::Component sel = policy::Component::Learned,
                          policy::Component plc = policy::Component::Learned);

// The same for a Policy (its network runs once); links the policy's LibTorch implementation.
inline EvalResult evaluatePolicy(const policy::Policy& policy, const CostTable& costs,
                                 int samples = 1, uint64_t seed = 1, const SimOptions& sim = {},
                                 policy::Component sel = policy::Component::Learned,
                                 policy::Component plc = policy::Component::Learned) {
  const policy::GraphFeatures features = policy::graphFeatures(costs);
  return evaluateScores(policy.scores(features), costs, features, samples, seed, sim, sel, plc);
}

}  // namespace doppler::train

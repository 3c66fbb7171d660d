#pragma once
// What simulation expects a policy to gain over a heuristic on a graph, shown before any real
// execution (`doppler eval`, `doppler train --stage real`, the studio's training dashboard): the
// policy's greedy placement and the heuristic's, both simulated under the same options and
// discipline. Plain C++ on the network's scores.
#include <string>

#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"

namespace doppler::train {

struct ExpectedImprovement {
  std::string heuristic;    // the method compared against ("critical-path")
  double heuristic_us = 0;  // its simulated makespan
  double policy_us = 0;     // the policy's greedy placement's
  // Percent of the heuristic's makespan the policy saves (negative: the policy is slower).
  double percent() const {
    return heuristic_us > 0 ? (heuristic_us - policy_us) / heuristic_us * 100 : 0;
  }
  std::string describe() const;  // "12.3% faster than critical-path in simulation (...)"
};

// The heuristic's placement, simulated (in its planned order under priority and sequence).
// Throws InputError naming the known methods when `heuristic` is unknown.
double simulatedHeuristicMakespan(const CostTable& costs, const SimOptions& sim,
                                  const std::string& heuristic);

// The policy's greedy placement against the heuristic's. Throws as above.
ExpectedImprovement expectedImprovement(const policy::PolicyScores& scores, const CostTable& costs,
                                        const policy::GraphFeatures& features,
                                        const SimOptions& sim = {},
                                        const std::string& heuristic = "critical-path");

}  // namespace doppler::train

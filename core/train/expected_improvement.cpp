#include "core/train/expected_improvement.h"

#include <cmath>
#include <cstdio>

#include "core/heuristics/method.h"
#include "core/train/evaluation.h"

namespace doppler::train {

std::string ExpectedImprovement::describe() const {
  char buf[200];
  const double pct = percent();
  std::snprintf(buf, sizeof buf, "%.1f%% %s than %s in simulation (%.0f us against %.0f us)",
                std::fabs(pct), pct >= 0 ? "faster" : "slower", heuristic.c_str(), policy_us,
                heuristic_us);
  return buf;
}

double simulatedHeuristicMakespan(const CostTable& costs, const SimOptions& sim,
                                  const std::string& heuristic) {
  const Method& method = findMethod(heuristic);
  PlaceContext ctx{costs, sim, 1, 5000, {}, {}, nullptr};
  const Placement placed = method.place(ctx, Params(method.params(), {}));
  const std::vector<int> order =
      usesOrder(sim.discipline) ? executionOrder(placed) : std::vector<int>{};
  return Simulator(costs, sim).makespan(placed.assignment, order);
}

ExpectedImprovement expectedImprovement(const policy::PolicyScores& scores, const CostTable& costs,
                                        const policy::GraphFeatures& features,
                                        const SimOptions& sim, const std::string& heuristic) {
  // Each runs in its own order under the priority and sequence disciplines: the heuristic's plan,
  // the policy's decisions.
  ExpectedImprovement e;
  e.heuristic = heuristic;
  e.heuristic_us = simulatedHeuristicMakespan(costs, sim, heuristic);
  Simulator simulator(costs, sim);
  SimOptions fifo = sim;
  fifo.discipline = Discipline::Fifo;
  const EvalResult greedy = evaluateScores(scores, costs, features, 1, 1, fifo);
  e.policy_us =
      simulator.makespan(greedy.episode.assignment,
                         usesOrder(sim.discipline) ? greedy.episode.order : std::vector<int>{});
  return e;
}

}  // namespace doppler::train

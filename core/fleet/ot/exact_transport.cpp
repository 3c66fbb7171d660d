#include "core/fleet/ot/exact_transport.h"

#include <cmath>
#include <stdexcept>

#include "core/fleet/ot/bipartite_flow.h"
#include "core/fleet/ot/integer_masses.h"

namespace doppler::fleet::ot {

int64_t massUnits(const ExactOptions& options) {
  // Up to 1e15 so that flows times costs (up to cost_units) stay far inside what doubles and
  // int64_t hold; a fraction would round to nothing.
  if (!(options.mass_units >= 1 && options.mass_units <= 1e15))
    throw std::invalid_argument("ExactOptions::mass_units must be from 1 to 1e15");
  return static_cast<int64_t>(options.mass_units);
}

TransportResult solveExact(const TransportProblem& problem, const ExactOptions& options) {
  validate(problem);
  requireBalanced(problem, "exact");
  TransportResult result;
  result.method = "exact";
  result.plan = Matrix(problem.a.size(), problem.b.size());
  const double totalA = total(problem.a), totalB = total(problem.b);
  if (totalA > 0) {
    // Both marginals to the same integer total, each from its own sum, so a gap within the
    // balance tolerance cannot make LEMON's problem infeasible.
    const int64_t units = massUnits(options);
    const std::vector<int64_t> supply = integerMasses(problem.a, units / totalA, units);
    const std::vector<int64_t> demand = integerMasses(problem.b, units / totalB, units);
    const std::vector<int64_t> flows =
        minCostBipartiteFlow(supply, demand, integerCosts(problem.cost, options.cost_units));
    const double massPerUnit = totalA / static_cast<double>(units);
    for (std::size_t k = 0; k < flows.size(); ++k)
      result.plan.values[k] = static_cast<double>(flows[k]) * massPerUnit;
  }
  result.cost = transportCost(result.plan, problem.cost);
  result.marginal_error = marginalError(result.plan, problem, Columns::Equal);
  return result;
}

}  // namespace doppler::fleet::ot

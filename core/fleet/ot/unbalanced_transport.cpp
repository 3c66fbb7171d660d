#include "core/fleet/ot/unbalanced_transport.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/common/input_error.h"
#include "core/fleet/ot/bipartite_flow.h"
#include "core/fleet/ot/integer_masses.h"

namespace doppler::fleet::ot {

namespace {

void requireCapacity(double demand, double capacity) {
  if (demand <= capacity * (1 + kBalanceTolerance)) return;
  std::ostringstream s;
  s.precision(10);
  s << "total capacity " << capacity << " is below the total demand of a, " << demand
    << " (short by " << demand - capacity << ")";
  throw InputError("", "b", s.str());
}

}  // namespace

TransportResult solveUnbalanced(const TransportProblem& problem, const ExactOptions& options) {
  validate(problem);
  const double demand = total(problem.a), capacity = total(problem.b);
  requireCapacity(demand, capacity);
  const std::size_t rows = problem.a.size(), cols = problem.b.size();
  TransportResult result;
  result.method = "unbalanced";
  result.plan = Matrix(rows, cols);
  if (demand > 0) {
    // One scale for both sides: total capacity is `units`; demand gets its share of them (all of
    // them when it is within the tolerance above capacity), and the dummy row the rest.
    const int64_t units = massUnits(options);
    const double unitsPerMass = static_cast<double>(units) / capacity;
    const int64_t demandUnits =
        std::min(units, static_cast<int64_t>(std::llround(demand * unitsPerMass)));
    std::vector<int64_t> supply = integerMasses(problem.a, demandUnits / demand, demandUnits);
    supply.push_back(units - demandUnits);  // the dummy row: spare capacity
    const std::vector<int64_t> caps = integerMasses(problem.b, unitsPerMass, units);
    std::vector<double> costs = integerCosts(problem.cost, options.cost_units);
    costs.resize(costs.size() + cols, 0.0);  // leaving capacity unused costs nothing
    const std::vector<int64_t> flows = minCostBipartiteFlow(supply, caps, costs);
    for (std::size_t k = 0; k < rows * cols; ++k)  // the dummy row is the last: dropped
      result.plan.values[k] = static_cast<double>(flows[k]) / unitsPerMass;
  }
  result.cost = transportCost(result.plan, problem.cost);
  result.marginal_error = marginalError(result.plan, problem, Columns::AtMost);
  const std::vector<double> used = columnSums(result.plan);
  result.unused_capacity.resize(cols);
  // Clamped at 0: a column can exceed its capacity only by the integer rounding of b_j (under one
  // mass unit, total / mass_units), and marginal_error already counts that excess.
  for (std::size_t j = 0; j < cols; ++j)
    result.unused_capacity[j] = std::max(0.0, problem.b[j] - used[j]);
  return result;
}

}  // namespace doppler::fleet::ot

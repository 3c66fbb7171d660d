#pragma once
// The exact optimal-transport plan (the default method): min <P, C> over P >= 0 with row sums a
// and column sums b, by LEMON's network simplex on integer-scaled masses and costs.
#include <cstdint>

#include "core/fleet/ot/transport_problem.h"

namespace doppler::fleet::ot {

struct ExactOptions {
  // Each marginal is scaled so its total is this many integer units (it takes 1e9; LEMON's flows
  // are int64_t), and rounded by the largest-remainder method: each plan entry is exact to
  // total / mass_units.
  double mass_units = 1e9;
  // Costs are rounded to integers from 0 to this (bipartite_flow.h, integerCosts): the plan's
  // cost is optimal to within total mass * max cost / (2 * cost_units).
  double cost_units = 1e9;
};

// options.mass_units as an integer; std::invalid_argument unless it is from 1 to 1e15 (a
// programming error: options do not come from input files).
int64_t massUnits(const ExactOptions& options);

// Throws InputError (no file) for an invalid problem, or when sum a and sum b differ by more than
// kBalanceTolerance (relative); then b is rescaled to a's total.
TransportResult solveExact(const TransportProblem& problem, const ExactOptions& options = {});

}  // namespace doppler::fleet::ot

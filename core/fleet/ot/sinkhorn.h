#pragma once
// Entropic optimal transport by Sinkhorn's iterations, stabilised in the log domain, in POT's
// convention: min <P, C> + eps * sum_ij P_ij log P_ij over P >= 0 with row sums a and column sums
// b. The minimiser is unique and the same as POT's ot.sinkhorn(a, b, C, reg=eps). POT's default
// solver scales u and v on exp(-C/eps) directly and under- or overflows for small eps; here the
// dual potentials live in the log domain, the scalings between them are kept within 1e+-50 by
// absorbing them, and an exact log-sum-exp step is taken whenever they would leave it
// (docs/fleet_ot.md).
#include "core/fleet/ot/transport_problem.h"

namespace doppler::fleet::ot {

struct SinkhornOptions {
  double reg = 0;  // eps > 0, in cost units
  int max_iterations = 10000;
  // Stop once the L1 marginal error (marginalError, Columns::Equal) is at most this times the
  // total mass.
  double tolerance = 1e-9;
};

// The default eps when none is given: 1% of the largest cost (1 if all costs are zero). On the
// benchmark's 40 x 40 and cost266 problems its <P, C> is within 4% of the exact optimum, after
// 300 to 3,300 iterations; 5% converges about ten times sooner but costs 60% more.
double defaultReg(const TransportProblem& problem);

// Throws InputError (no file) for an invalid problem, unbalanced masses ("b"), or a reg that is
// not positive and finite or so small that cost / reg overflows ("reg"). Does not throw when the
// iterations run out: the result then has converged = false and the last plan.
TransportResult solveSinkhorn(const TransportProblem& problem, const SinkhornOptions& options);

}  // namespace doppler::fleet::ot

#pragma once
// Transport with capacity inequalities: every row's mass a_i must ship in full (sum_j P_ij =
// a_i), each column takes at most b_j (sum_i P_ij <= b_j). Solved exactly: a dummy row holding the
// spare capacity sum b - sum a ships it to the columns at zero cost, which makes the problem
// balanced; its row is dropped from the plan.
//
// Why it exists (TORTA's OT layer, docs/fleet_ot.md): with exact column marginals every column's
// load is fixed at b_j, so a cost term that depends on the column alone, C_ij = w1 * power_j +
// w2 * latency_ij, adds the constant w1 * sum_j power_j b_j to every feasible plan and cannot
// change which plan is optimal. Only when columns are capacities, not targets, can load move to
// cheaper columns; this method lets it.
#include "core/fleet/ot/exact_transport.h"
#include "core/fleet/ot/transport_problem.h"

namespace doppler::fleet::ot {

// Throws InputError (no file) for an invalid problem, or on "b" naming the shortfall when total
// capacity is below total demand by more than kBalanceTolerance (relative). The result's
// unused_capacity[j] = b_j - sum_i P_ij; marginal_error counts row gaps and capacity excess.
TransportResult solveUnbalanced(const TransportProblem& problem, const ExactOptions& options = {});

}  // namespace doppler::fleet::ot

#pragma once
// The fleet's one call into LEMON (the other is core/graph/device_matching.cpp): a minimum-cost
// flow from integer supplies to integer demands over the complete bipartite graph, solved with
// LEMON's network simplex. The exact and the unbalanced solvers both reduce to it
// (docs/fleet_ot.md).
#include <cstdint>
#include <vector>

#include "core/fleet/ot/transport_problem.h"

namespace doppler::fleet::ot {

// The cost matrix as integers (held in doubles) from 0 to `units`: cost * units / max cost,
// rounded. LEMON's network simplex asks for integer costs; with integral values below 2^53 every
// reduced cost it computes in double is exact, so it never pivots on rounding noise. A plan
// optimal for the rounded costs is within total mass * max cost / (2 * units) of optimal.
std::vector<double> integerCosts(const Matrix& cost, double units);

// flows[i * demand.size() + j]: an optimal flow from supply node i to demand node j, where every
// supply is shipped in full and every demand met in full. Requires non-negative entries and
// sum(supply) == sum(demand); `costs` is supply.size() x demand.size(), row-major, integral.
std::vector<int64_t> minCostBipartiteFlow(const std::vector<int64_t>& supply,
                                          const std::vector<int64_t>& demand,
                                          const std::vector<double>& costs);

}  // namespace doppler::fleet::ot

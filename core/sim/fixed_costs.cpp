#include "fixed_costs.h"

#include <cmath>

#include "core/common/input_error.h"
#include "core/sim/cost_table.h"

namespace doppler {

DataflowGraph withFixedCosts(const DataflowGraph& g, const DeviceSet& d, double ratio) {
  if (!(std::isfinite(ratio) && ratio > 0))
    throw InputError("", "--fixed-costs", "the edge ratio must be a number above 0");
  const CostTable costs(g, d);
  DataflowGraph fixed;
  fixed.name = g.name;
  for (int v = 0; v < g.nodeCount(); ++v) {
    Node n = g.node(v);
    n.compute_us = {costs.compute(v, 0)};
    fixed.addNode(std::move(n));
  }
  for (const Edge& e : g.edges()) {
    Edge f = e;
    f.transfer_us = ratio * costs.compute(e.src, 0);
    fixed.addEdge(f);
  }
  return fixed;
}

}  // namespace doppler

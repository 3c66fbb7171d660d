#include "core/fleet/ot/bipartite_flow.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace doppler::fleet::ot {

std::vector<double> integerCosts(const Matrix& cost, double units) {
  double largest = 0;
  for (double c : cost.values) largest = std::max(largest, c);
  std::vector<double> rounded(cost.values.size(), 0.0);
  if (largest <= 0) return rounded;
  const double scale = units / largest;
  for (std::size_t k = 0; k < rounded.size(); ++k) rounded[k] = std::round(cost.values[k] * scale);
  return rounded;
}

std::vector<int64_t> minCostBipartiteFlow(const std::vector<int64_t>& supply,
                                          const std::vector<int64_t>& demand,
                                          const std::vector<double>& costs) {
  const std::size_t rows = supply.size(), cols = demand.size();
  if (costs.size() != rows * cols)
    throw std::invalid_argument("minCostBipartiteFlow: costs are not supply x demand");
  if (std::accumulate(supply.begin(), supply.end(), int64_t{0}) !=
      std::accumulate(demand.begin(), demand.end(), int64_t{0}))
    throw std::invalid_argument("minCostBipartiteFlow: supply and demand totals differ");

  using Graph = lemon::SmartDigraph;
  Graph graph;
  graph.reserveNode(static_cast<int>(rows + cols));
  graph.reserveArc(static_cast<int>(rows * cols));
  std::vector<Graph::Node> rowNodes, colNodes;
  for (std::size_t i = 0; i < rows; ++i) rowNodes.push_back(graph.addNode());
  for (std::size_t j = 0; j < cols; ++j) colNodes.push_back(graph.addNode());
  Graph::NodeMap<int64_t> nodeSupply(graph);
  for (std::size_t i = 0; i < rows; ++i) nodeSupply[rowNodes[i]] = supply[i];
  for (std::size_t j = 0; j < cols; ++j) nodeSupply[colNodes[j]] = -demand[j];
  // Arcs in row-major order, so arc k is cell (k / cols, k % cols); uncapacitated, since a
  // row can ship at most its supply anyway.
  std::vector<Graph::Arc> arcs;
  arcs.reserve(rows * cols);
  Graph::ArcMap<double> arcCost(graph);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      arcs.push_back(graph.addArc(rowNodes[i], colNodes[j]));
      arcCost[arcs.back()] = costs[i * cols + j];
    }

  // V = int64_t: flows up to the 1e9 mass units and beyond; C = double holding integers (see
  // integerCosts).
  lemon::NetworkSimplex<Graph, int64_t, double> simplex(graph);
  simplex.costMap(arcCost).supplyMap(nodeSupply);
  if (simplex.run() != decltype(simplex)::OPTIMAL)
    // Cannot happen for balanced non-negative supplies on a complete bipartite graph.
    throw std::logic_error("LEMON network simplex found no optimal flow");
  std::vector<int64_t> flows(rows * cols);
  for (std::size_t k = 0; k < arcs.size(); ++k) flows[k] = simplex.flow(arcs[k]);
  return flows;
}

}  // namespace doppler::fleet::ot

#pragma once
// Small graphs built in code for hand-checked tests.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler::testing {

struct NodeSpec {
  std::string id;
  std::vector<double> compute_us;  // one value (every device), or one per device
};
using EdgeSpec = std::tuple<std::string, std::string, double>;  // src, dst, transfer_us

// Nodes of op "op" with the given compute times, edges with fixed transfer times (microseconds).
DataflowGraph graphOf(const std::vector<NodeSpec>& nodes, const std::vector<EdgeSpec>& edges,
                      const std::string& name = "test");
// The same with one compute time per node.
DataflowGraph fixedGraph(const std::vector<std::pair<std::string, double>>& nodes,
                         const std::vector<EdgeSpec>& edges);

// a -> b -> d, a -> c -> d: four nodes of 10 us, four edges of 1 MB.
DataflowGraph diamond(const std::string& name = "diamond");

// a and b (200 us each) feed the zero-compute join j; their data takes 800 us to move between
// devices (4x their compute, as in the paper's files). Starting b sooner on another device than
// a's splits the join's inputs: the join look-ahead's case.
DataflowGraph splitJoin();

}  // namespace doppler::testing

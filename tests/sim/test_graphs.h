#pragma once
// Small graphs built in code for hand-checked tests.
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler::testing {

// Nodes with fixed compute times (microseconds, same on every device).
inline DataflowGraph fixedGraph(
    const std::vector<std::pair<std::string, double>>& nodes,
    const std::vector<std::tuple<std::string, std::string, double>>& edges) {
  DataflowGraph g;
  g.name = "test";
  for (auto& [id, us] : nodes) {
    Node n;
    n.id = id;
    n.op = "op";
    n.compute_us = {us};
    g.addNode(n);
  }
  for (auto& [s, d, us] : edges) {
    Edge e;
    e.src = *g.find(s);
    e.dst = *g.find(d);
    e.transfer_us = us;
    g.addEdge(e);
  }
  return g;
}

}  // namespace doppler::testing

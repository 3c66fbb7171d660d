#include "tests/support/graphs.h"

namespace doppler::testing {

DataflowGraph graphOf(const std::vector<NodeSpec>& nodes, const std::vector<EdgeSpec>& edges,
                      const std::string& name) {
  DataflowGraph g;
  g.name = name;
  for (const NodeSpec& spec : nodes) {
    Node n;
    n.id = spec.id;
    n.op = "op";
    n.compute_us = spec.compute_us;
    g.addNode(n);
  }
  for (const auto& [s, d, us] : edges) {
    Edge e;
    e.src = *g.find(s);
    e.dst = *g.find(d);
    e.transfer_us = us;
    g.addEdge(e);
  }
  return g;
}

DataflowGraph fixedGraph(const std::vector<std::pair<std::string, double>>& nodes,
                         const std::vector<EdgeSpec>& edges) {
  std::vector<NodeSpec> specs;
  for (const auto& [id, us] : nodes) specs.push_back({id, {us}});
  return graphOf(specs, edges);
}

DataflowGraph diamond(const std::string& name) {
  DataflowGraph g = graphOf({{"a", {10.0}}, {"b", {10.0}}, {"c", {10.0}}, {"d", {10.0}}}, {}, name);
  g.addEdge("a", "b", 1e6);
  g.addEdge("a", "c", 1e6);
  g.addEdge("b", "d", 1e6);
  g.addEdge("c", "d", 1e6);
  return g;
}

DataflowGraph splitJoin() {
  return graphOf({{"a", {200}}, {"b", {200}}, {"j", {0}}}, {{"a", "j", 800}, {"b", "j", 800}},
                 "join");
}

}  // namespace doppler::testing

#include "core/graph/dataflow_graph.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "core/common/input_error.h"

namespace doppler {
namespace {

bool badCost(double x) {
  return !std::isfinite(x) || x < 0;
}

std::string costProblem(const char* field, double x) {
  if (std::isnan(x)) return std::string(field) + " is NaN";
  if (std::isinf(x)) return std::string(field) + " is infinite";
  return std::string(field) + " is negative (" + std::to_string(x) + ")";
}

}  // namespace

int DataflowGraph::addNode(Node node) {
  const int v = nodeCount();
  const std::string where = "nodes[" + std::to_string(v) + "]";
  if (node.id.empty()) throw InputError("", where, "node id is empty");
  if (badCost(node.flops))
    throw InputError("", where + " '" + node.id + "'", costProblem("flops", node.flops));
  if (badCost(node.output_bytes))
    throw InputError("", where + " '" + node.id + "'",
                     costProblem("output_bytes", node.output_bytes));
  if (badCost(node.memory_bytes))
    throw InputError("", where + " '" + node.id + "'",
                     costProblem("memory_bytes", node.memory_bytes));
  for (size_t i = 0; i < node.compute_us.size(); ++i)
    if (badCost(node.compute_us[i]))
      throw InputError(
          "", where + " '" + node.id + "'",
          costProblem(("compute_us[" + std::to_string(i) + "]").c_str(), node.compute_us[i]));
  auto [it, inserted] = index_.emplace(node.id, v);
  if (!inserted)
    throw InputError(
        "", where,
        "duplicate node id '" + node.id + "' (first at nodes[" + std::to_string(it->second) + "])");
  nodes_.push_back(std::move(node));
  adjacencyValid_ = false;
  return v;
}

int DataflowGraph::addEdge(Edge edge) {
  const int e = edgeCount();
  const std::string where = "edges[" + std::to_string(e) + "]";
  if (edge.src < 0 || edge.src >= nodeCount() || edge.dst < 0 || edge.dst >= nodeCount())
    throw InputError("", where, "edge endpoint out of range");
  if (edge.src == edge.dst)
    throw InputError("", where, "self loop on node '" + nodes_[edge.src].id + "'");
  if (badCost(edge.bytes)) throw InputError("", where, costProblem("bytes", edge.bytes));
  if (edge.transfer_us && badCost(*edge.transfer_us))
    throw InputError("", where, costProblem("transfer_us", *edge.transfer_us));
  edges_.push_back(edge);
  adjacencyValid_ = false;
  return e;
}

int DataflowGraph::addEdge(std::string_view src, std::string_view dst, double bytes) {
  const std::string where = "edges[" + std::to_string(edgeCount()) + "]";
  auto s = find(src);
  if (!s) throw InputError("", where, "unknown source node '" + std::string(src) + "'");
  auto d = find(dst);
  if (!d) throw InputError("", where, "unknown destination node '" + std::string(dst) + "'");
  return addEdge(Edge{*s, *d, bytes, std::nullopt});
}

std::optional<int> DataflowGraph::find(std::string_view id) const {
  auto it = index_.find(std::string(id));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void DataflowGraph::buildAdjacency() const {
  if (adjacencyValid_) return;
  const int n = nodeCount();
  inStart_.assign(n + 1, 0);
  outStart_.assign(n + 1, 0);
  for (const Edge& e : edges_) {
    ++inStart_[e.dst + 1];
    ++outStart_[e.src + 1];
  }
  for (int v = 0; v < n; ++v) {
    inStart_[v + 1] += inStart_[v];
    outStart_[v + 1] += outStart_[v];
  }
  inList_.assign(edges_.size(), 0);
  outList_.assign(edges_.size(), 0);
  std::vector<int> inPos(inStart_.begin(), inStart_.end() - 1);
  std::vector<int> outPos(outStart_.begin(), outStart_.end() - 1);
  for (int e = 0; e < edgeCount(); ++e) {
    inList_[inPos[edges_[e].dst]++] = e;
    outList_[outPos[edges_[e].src]++] = e;
  }
  // Kahn with a min-heap so ties go by node index (stable and reproducible).
  topo_.clear();
  std::vector<int> indeg(n);
  for (int v = 0; v < n; ++v) indeg[v] = inStart_[v + 1] - inStart_[v];
  std::priority_queue<int, std::vector<int>, std::greater<int>> q;
  for (int v = 0; v < n; ++v)
    if (indeg[v] == 0) q.push(v);
  while (!q.empty()) {
    int v = q.top();
    q.pop();
    topo_.push_back(v);
    for (int i = outStart_[v]; i < outStart_[v + 1]; ++i)
      if (--indeg[edges_[outList_[i]].dst] == 0) q.push(edges_[outList_[i]].dst);
  }
  adjacencyValid_ = true;
}

std::span<const int> DataflowGraph::inEdges(int v) const {
  buildAdjacency();
  return {inList_.data() + inStart_[v], static_cast<size_t>(inStart_[v + 1] - inStart_[v])};
}

std::span<const int> DataflowGraph::outEdges(int v) const {
  buildAdjacency();
  return {outList_.data() + outStart_[v], static_cast<size_t>(outStart_[v + 1] - outStart_[v])};
}

const std::vector<int>& DataflowGraph::topologicalOrder() const {
  buildAdjacency();
  if (static_cast<int>(topo_.size()) != nodeCount()) {
    std::vector<int> cycle = findCycle();
    std::string names;
    for (int v : cycle) names += "'" + nodes_[v].id + "' -> ";
    if (!cycle.empty()) names += "'" + nodes_[cycle.front()].id + "'";
    throw InputError("", "edges", "the graph has a cycle: " + names);
  }
  return topo_;
}

std::vector<int> DataflowGraph::findCycle() const {
  buildAdjacency();
  if (static_cast<int>(topo_.size()) == nodeCount()) return {};
  // Iterative DFS with colours; the grey stack at a back edge is the cycle.
  const int n = nodeCount();
  std::vector<char> colour(n, 0);
  std::vector<int> parentEdgePos(n, 0), stack;
  for (int root = 0; root < n; ++root) {
    if (colour[root]) continue;
    stack.push_back(root);
    colour[root] = 1;
    parentEdgePos[root] = outStart_[root];
    while (!stack.empty()) {
      int v = stack.back();
      if (parentEdgePos[v] < outStart_[v + 1]) {
        int w = edges_[outList_[parentEdgePos[v]++]].dst;
        if (colour[w] == 1) {
          auto it = std::find(stack.begin(), stack.end(), w);
          return std::vector<int>(it, stack.end());
        }
        if (colour[w] == 0) {
          colour[w] = 1;
          parentEdgePos[w] = outStart_[w];
          stack.push_back(w);
        }
      } else {
        colour[v] = 2;
        stack.pop_back();
      }
    }
  }
  return {};
}

void DataflowGraph::checkDeviceCount(int devices) const {
  for (int v = 0; v < nodeCount(); ++v) {
    const size_t k = nodes_[v].compute_us.size();
    if (k > 1 && k != static_cast<size_t>(devices))
      throw InputError("", "nodes[" + std::to_string(v) + "] '" + nodes_[v].id + "'.compute_us",
                       "has " + std::to_string(k) + " entries but the device set has " +
                           std::to_string(devices) + " devices");
  }
}

}  // namespace doppler

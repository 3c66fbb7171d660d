#pragma once
// A static dataflow graph: nodes are kernel calls with a cost, edges are data dependencies.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace doppler {

struct Node {
  std::string id;
  std::string op;           // op kind ("matmul", "add", ...); free text, used for colour and labels
  double flops = 0;         // work; compute time = flops / device throughput unless compute_us
  double output_bytes = 0;  // size of the node's output (informational, used by generators)
  // Explicit compute time in microseconds: empty (use flops), one value for every device, or one
  // value per device.
  std::vector<double> compute_us;
  // Bytes the kernel reads and writes in device memory: with it, compute time is the roofline
  // max(flops / throughput, memory_bytes / memory bandwidth). 0 (the generators, the paper's
  // files) leaves FLOPs alone. Set by the ONNX import, where most ops are memory-bound.
  double memory_bytes = 0;
};

struct Edge {
  int src = -1;
  int dst = -1;
  double bytes = 0;  // cross-device cost = bytes / bandwidth + latency unless transfer_us is set
  std::optional<double> transfer_us;
};

struct GraphGroups;  // core/graph/coarsening.h

class DataflowGraph {
 public:
  std::string name;
  // Set on a coarsened graph only: the fine graph its nodes stand for, and each node's members,
  // so a view can expand a group in place. Shared, never changed after coarsening.
  std::shared_ptr<const GraphGroups> groups;

  // Throws InputError (where = "nodes[i]") on a duplicate or empty id or a bad cost.
  int addNode(Node node);
  // Throws InputError on an unknown endpoint, a self loop or a bad cost.
  int addEdge(Edge edge);
  int addEdge(std::string_view src, std::string_view dst, double bytes);

  int nodeCount() const { return static_cast<int>(nodes_.size()); }
  int edgeCount() const { return static_cast<int>(edges_.size()); }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Edge>& edges() const { return edges_; }
  const Node& node(int v) const { return nodes_[v]; }
  const Edge& edge(int e) const { return edges_[e]; }
  std::optional<int> find(std::string_view id) const;

  // Edge indices into and out of node v (CSR, rebuilt lazily after changes).
  std::span<const int> inEdges(int v) const;
  std::span<const int> outEdges(int v) const;

  // Kahn order, ties by node index. Throws InputError naming one cycle if the graph has any.
  const std::vector<int>& topologicalOrder() const;
  // A cycle as a node index sequence (first == last omitted), or empty if the graph is acyclic.
  std::vector<int> findCycle() const;
  bool isAcyclic() const { return findCycle().empty(); }

  // Checks per-device compute arrays against a device count (InputError naming the node).
  void checkDeviceCount(int devices) const;

 private:
  void buildAdjacency() const;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::unordered_map<std::string, int> index_;
  mutable bool adjacencyValid_ = false;
  mutable std::vector<int> inStart_, inList_, outStart_, outList_;
  mutable std::vector<int> topo_;
};

}  // namespace doppler

#pragma once
// Every cost the simulator and the heuristics need, resolved once per (graph, device set) into
// flat arrays so the hot loops never touch strings, maps or optionals.
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"

namespace doppler {

class CostTable {
 public:
  CostTable(const DataflowGraph& g, const DeviceSet& d);

  int nodes() const { return n_; }
  int devices() const { return d_; }
  int edges() const { return static_cast<int>(edgeSrc_.size()); }

  double compute(int v, int dev) const { return compute_[static_cast<size_t>(v) * d_ + dev]; }
  double minCompute(int v) const { return minCompute_[v]; }
  double meanCompute(int v) const { return meanCompute_[v]; }
  // Cost of edge e when its producer sits on `from` and its consumer on `to` (0 if equal).
  double transfer(int e, int from, int to) const {
    if (from == to) return 0;
    if (fixed_[e] >= 0) return fixed_[e];
    const size_t k = static_cast<size_t>(from) * d_ + to;
    return bytes_[e] * invBandwidth_[k] + latency_[k];
  }
  double meanTransfer(int e) const { return meanTransfer_[e]; }

  int edgeSrc(int e) const { return edgeSrc_[e]; }
  int edgeDst(int e) const { return edgeDst_[e]; }
  // CSR adjacency by edge index; topological order with ties by node index.
  const int* outBegin(int v) const { return outList_.data() + outStart_[v]; }
  const int* outEnd(int v) const { return outList_.data() + outStart_[v + 1]; }
  const int* inBegin(int v) const { return inList_.data() + inStart_[v]; }
  const int* inEnd(int v) const { return inList_.data() + inStart_[v + 1]; }
  int inDegree(int v) const { return inStart_[v + 1] - inStart_[v]; }
  const std::vector<int>& topoOrder() const { return topo_; }

 private:
  int n_, d_;
  std::vector<double> compute_, minCompute_, meanCompute_;
  std::vector<int> edgeSrc_, edgeDst_;
  std::vector<double> fixed_, bytes_, meanTransfer_;
  std::vector<double> invBandwidth_, latency_;
  std::vector<int> inStart_, inList_, outStart_, outList_, topo_;
};

}  // namespace doppler

#pragma once
// Every cost the simulator and the heuristics need, resolved once per (graph, device set) into
// flat arrays so the hot loops never touch strings, maps or optionals.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"

namespace doppler {

// A node's compute time in microseconds from its FLOPs and the bytes it moves: the roofline (FLOPs
// at `tflops`, bytes at `gbps` when there is one, whichever is slower) plus a fixed overhead. What
// CostTable charges a node without compute_us, and what `doppler calibrate` fits.
inline double rooflineUs(double flops, double bytes, double tflops, std::optional<double> gbps,
                         double overhead_us) {
  double c = flops / (tflops * 1e6);  // FLOP / (TFLOP/s) in microseconds
  if (bytes > 0 && gbps) c = std::max(c, bytes / (*gbps * 1e3));  // bytes / (GB/s)
  return c + overhead_us;
}

// One measured kernel: its FLOPs, the bytes the simulation charges it, and its time (us).
struct KernelSample {
  double flops = 0, bytes = 0, us = 0;
};
struct RooflineFit {
  Device::OpRate rate;    // tflops, memory_gbps (absent when no sample has bytes), overhead_us
  double mean_error = 0;  // mean of |predicted - measured| / measured over the samples
};
// The op rate whose rooflineUs best matches the samples: least squared relative error weighted
// by each kernel's time (a makespan is a sum of times: the long kernels' errors matter most). The
// overhead is kept between 0 and the fastest sample. With `tflops` given only the bandwidth and the
// overhead are fitted (memory-bound kernels count too few FLOPs to pin a FLOP rate down). An empty
// sample list gives a zero rate.
RooflineFit fitRoofline(const std::vector<KernelSample>& samples,
                        std::optional<double> tflops = std::nullopt);

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

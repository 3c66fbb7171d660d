#include "core/sim/cost_table.h"

#include <algorithm>
#include <optional>

#include "core/graph/input_error.h"

namespace doppler {

CostTable::CostTable(const DataflowGraph& g, const DeviceSet& ds)
    : n_(g.nodeCount()), d_(ds.size()) {
  if (d_ <= 0) throw InputError("", "devices", "the device set has no devices");
  g.checkDeviceCount(d_);
  compute_.resize(static_cast<size_t>(n_) * d_);
  minCompute_.resize(n_);
  meanCompute_.resize(n_);
  for (int v = 0; v < n_; ++v) {
    const Node& node = g.node(v);
    double lo = 0, sum = 0;
    for (int d = 0; d < d_; ++d) {
      double c;
      if (node.compute_us.size() == 1) {
        c = node.compute_us[0];
      } else if (!node.compute_us.empty()) {
        c = node.compute_us[d];
      } else {
        const Device& dev = ds.devices[d];
        double tflops = dev.tflops;
        std::optional<double> gbps = dev.memory_gbps;
        double overhead = dev.kernel_overhead_us;
        if (!dev.ops.empty())
          if (auto it = dev.ops.find(node.op); it != dev.ops.end()) {
            tflops = it->second.tflops;
            gbps = it->second.memory_gbps;
            overhead = it->second.overhead_us.value_or(overhead);
          }
        c = node.flops / (tflops * 1e6);    // FLOP / (TFLOP/s) in microseconds
        if (node.memory_bytes > 0 && gbps)  // the roofline: bytes / (GB/s) in microseconds
          c = std::max(c, node.memory_bytes / (*gbps * 1e3));
        c += overhead;  // launch and dispatch: 0 unless the device set says (calibrate measures it)
      }
      compute_[static_cast<size_t>(v) * d_ + d] = c;
      lo = d == 0 ? c : std::min(lo, c);
      sum += c;
    }
    minCompute_[v] = lo;
    meanCompute_[v] = sum / d_;
  }
  invBandwidth_.assign(static_cast<size_t>(d_) * d_, 0);
  latency_.assign(static_cast<size_t>(d_) * d_, 0);
  for (int a = 0; a < d_; ++a)
    for (int b = 0; b < d_; ++b) {
      if (a == b) continue;
      // GB/s -> bytes per microsecond is bw * 1e3.
      invBandwidth_[static_cast<size_t>(a) * d_ + b] = 1.0 / (ds.bandwidth_gbps[a][b] * 1e3);
      latency_[static_cast<size_t>(a) * d_ + b] = ds.latency_us[a][b];
    }
  const int m = g.edgeCount();
  edgeSrc_.resize(m);
  edgeDst_.resize(m);
  fixed_.resize(m);
  bytes_.resize(m);
  meanTransfer_.resize(m);
  for (int e = 0; e < m; ++e) {
    const Edge& edge = g.edge(e);
    edgeSrc_[e] = edge.src;
    edgeDst_[e] = edge.dst;
    fixed_[e] = edge.transfer_us ? *edge.transfer_us : -1.0;
    bytes_[e] = edge.bytes;
    double sum = 0;
    for (int a = 0; a < d_; ++a)
      for (int b = 0; b < d_; ++b)
        if (a != b) sum += transfer(e, a, b);
    meanTransfer_[e] = d_ > 1 ? sum / (static_cast<double>(d_) * (d_ - 1)) : 0;
  }
  inStart_.assign(n_ + 1, 0);
  outStart_.assign(n_ + 1, 0);
  for (int v = 0; v < n_; ++v) {
    auto in = g.inEdges(v);
    auto out = g.outEdges(v);
    inStart_[v + 1] = inStart_[v] + static_cast<int>(in.size());
    outStart_[v + 1] = outStart_[v] + static_cast<int>(out.size());
    inList_.insert(inList_.end(), in.begin(), in.end());
    outList_.insert(outList_.end(), out.begin(), out.end());
  }
  topo_ = g.topologicalOrder();
}

}  // namespace doppler

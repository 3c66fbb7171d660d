#include "core/sim/cost_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "core/common/input_error.h"

namespace doppler {
namespace {

// The most time a graph's nodes and transfers may take in all, in microseconds (31.7 years): each
// value finite is not enough, their sums must be too (two nodes of 1e308 us placed with null
// makespans, and the studio crashed drawing them).
constexpr double kMaxTotalUs = 1e15;

std::string shortNumber(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

CostTable::CostTable(const DataflowGraph& g, const DeviceSet& ds)
    : n_(g.nodeCount()), d_(ds.size()) {
  if (d_ <= 0) throw InputError("", "devices", "the device set has no devices");
  // Placed, an empty graph has makespan 0 and no bound to compare it with: refused the same way
  // by every command and the studio.
  if (n_ == 0) throw InputError("", "graph", "the graph has no nodes");
  g.checkDeviceCount(d_);
  double total = 0, largest = -1;
  int heaviest = -1;
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
        // Overhead (launch, dispatch): 0 unless the device set says (calibrate measures it).
        c = rooflineUs(node.flops, node.memory_bytes, tflops, gbps, overhead);
      }
      compute_[static_cast<size_t>(v) * d_ + d] = c;
      lo = d == 0 ? c : std::min(lo, c);
      sum += c;
    }
    minCompute_[v] = lo;
    meanCompute_[v] = sum / d_;
    const double most = *std::max_element(compute_.begin() + static_cast<ptrdiff_t>(v) * d_,
                                          compute_.begin() + static_cast<ptrdiff_t>(v + 1) * d_);
    total += most;
    if (!(most <= largest)) largest = most, heaviest = v;
  }
  if (!(total <= kMaxTotalUs))
    throw InputError("", "node '" + g.node(heaviest).id + "'",
                     "takes " + shortNumber(largest) +
                         " us on its slowest device, and the graph's compute times sum beyond " +
                         shortNumber(kMaxTotalUs) +
                         " us (31.7 years): check its compute_us, "
                         "flops and memory_bytes, and the devices' rates");
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
    double most = 0;
    for (int a = 0; a < d_; ++a)
      for (int b = 0; b < d_; ++b)
        if (a != b) most = std::max(most, transfer(e, a, b));
    total += most;
    if (!(total <= kMaxTotalUs))
      throw InputError("", "edge " + g.node(edge.src).id + " -> " + g.node(edge.dst).id,
                       "its transfer takes " + shortNumber(most) +
                           " us on the slowest link, and the graph's times sum beyond " +
                           shortNumber(kMaxTotalUs) +
                           " us (31.7 years): check its bytes or "
                           "transfer_us, and the links' bandwidths");
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

namespace {

// The fit works in microseconds per FLOP and per byte (0: that roof is absent).
struct Roof {
  double overhead = 0, usPerFlop = 0, usPerByte = 0;
  double predict(const KernelSample& s) const {
    return overhead + std::max(s.flops * usPerFlop, s.bytes * usPerByte);
  }
};

double weightedLoss(const Roof& f, const std::vector<KernelSample>& samples) {
  double sum = 0;
  for (const KernelSample& s : samples) {
    const double us = std::max(s.us, 1e-3), r = (f.predict(s) - us) / us;
    sum += us * r * r;
  }
  return sum;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

RooflineFit fitRoofline(const std::vector<KernelSample>& samples, std::optional<double> tflops) {
  RooflineFit out;
  if (samples.empty()) return out;
  double fastest = samples[0].us;
  std::vector<double> perFlop, perByte;
  for (const KernelSample& s : samples) {
    fastest = std::min(fastest, s.us);
    if (s.flops > 0) perFlop.push_back(s.us / s.flops);
    if (s.bytes > 0) perByte.push_back(s.us / s.bytes);
  }
  fastest = std::max(fastest, 0.0);
  // Start from the median rates; a coarse grid (the overhead a fraction of the fastest sample,
  // the rates within 4x and 16x of the medians), then a pattern search whose steps halve.
  const double flop0 = tflops ? 1 / (*tflops * 1e6) : median(perFlop);
  const double byte0 = median(perByte);
  const bool freeFlop = !tflops && flop0 > 0, freeByte = byte0 > 0;
  Roof best{0, flop0, byte0};
  double bestLoss = weightedLoss(best, samples);
  auto tryRoof = [&](Roof f) {
    f.overhead = std::clamp(f.overhead, 0.0, fastest);
    if (const double l = weightedLoss(f, samples); l < bestLoss) {
      bestLoss = l;
      best = f;
      return true;
    }
    return false;
  };
  for (double o : {0.0, 0.25, 0.5, 0.75, 0.9})
    for (double lf = freeFlop ? -2 : 0; lf <= (freeFlop ? 2 : 0); lf += 0.25)
      for (double lb = freeByte ? -4 : 0; lb <= (freeByte ? 2 : 0); lb += 0.25)
        tryRoof({o * fastest, flop0 * std::exp2(lf), byte0 * std::exp2(lb)});
  double stepO = 0.1 * fastest, stepF = 0.25, stepB = 0.25;
  for (int i = 0; i < 400 && (stepO > 1e-5 * fastest || stepF > 1e-5 || stepB > 1e-5); ++i) {
    bool moved = false;
    for (double sign : {1.0, -1.0}) {
      moved |= tryRoof({best.overhead + sign * stepO, best.usPerFlop, best.usPerByte});
      if (freeFlop)
        moved |= tryRoof({best.overhead, best.usPerFlop * std::exp2(sign * stepF), best.usPerByte});
      if (freeByte)
        moved |= tryRoof({best.overhead, best.usPerFlop, best.usPerByte * std::exp2(sign * stepB)});
    }
    if (!moved) {
      stepO /= 2;
      stepF /= 2;
      stepB /= 2;
    }
  }
  out.rate.tflops = tflops ? *tflops : 1 / (std::max(best.usPerFlop, 1e-15) * 1e6);
  if (best.usPerByte > 0) out.rate.memory_gbps = 1 / (best.usPerByte * 1e3);
  out.rate.overhead_us = best.overhead;
  double err = 0;
  for (const KernelSample& s : samples) {
    const double predicted =
        rooflineUs(s.flops, s.bytes, out.rate.tflops, out.rate.memory_gbps, *out.rate.overhead_us);
    err += std::abs(predicted - s.us) / std::max(s.us, 1e-3);
  }
  out.mean_error = err / static_cast<double>(samples.size());
  return out;
}

}  // namespace doppler

#include "core/exec/synthetic_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>

namespace doppler::exec {
namespace {

using Clock = std::chrono::steady_clock;

// The kernel's inner loop: a dependent chain of multiply-adds over a small array that stays in
// the core's L1 cache, so its time is the core's, not memory's. Returns a value that depends on
// every iteration (the compiler cannot drop the work).
float spin(float seed, long iterations) {
  float lane[16];
  for (int i = 0; i < 16; ++i) lane[i] = seed + 0.001f * static_cast<float>(i);
  for (long k = 0; k < iterations; ++k)
    for (int i = 0; i < 16; ++i) lane[i] = lane[i] * 0.999999f + 0.000001f;
  float sum = 0;
  for (float x : lane) sum += x;
  return sum;
}

}  // namespace

double CpuSyntheticBackend::iterationsPerUs() {
  static const double rate = [] {
    // The best of a few short trials: the fastest is the one least disturbed.
    double best = 0;
    for (int trial = 0; trial < 5; ++trial) {
      const long iterations = 20000;
      const auto t0 = Clock::now();
      volatile float sink = spin(1.0f, iterations);
      (void)sink;
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      best = std::max(best, iterations / std::max(us, 1e-3));
    }
    return best;
  }();
  return rate;
}

struct CpuSyntheticBackend::Impl {
  const DataflowGraph& g;
  SyntheticWork work;
  size_t maxFloats;
  Assignment a;
  std::vector<std::vector<float>> output;    // per node, on its device
  std::vector<std::vector<float>> received;  // per cross-device edge, on the consumer's device
  std::vector<long> iterations;              // per node

  size_t floatsFor(double bytes) const {
    return std::clamp<size_t>(static_cast<size_t>(bytes / 4), 16, maxFloats);
  }

  // What node v reads from edge e (a local producer's output or the received copy).
  const std::vector<float>& input(int e) const {
    const Edge& edge = g.edge(e);
    return a[edge.src] == a[edge.dst] ? output[edge.src] : received[e];
  }
};

CpuSyntheticBackend::CpuSyntheticBackend(const DataflowGraph& g, SyntheticWork work,
                                         double max_buffer_bytes)
    : impl_(
          new Impl{g, std::move(work), static_cast<size_t>(max_buffer_bytes / 4), {}, {}, {}, {}}) {
  const double rate = iterationsPerUs();
  impl_->iterations.resize(g.nodeCount());
  for (int v = 0; v < g.nodeCount(); ++v)
    impl_->iterations[v] = std::lround(std::max(0.0, impl_->work.compute_us[v]) * rate);
}

CpuSyntheticBackend::~CpuSyntheticBackend() = default;

void CpuSyntheticBackend::prepare(const Assignment& a, int) {
  Impl& s = *impl_;
  s.a = a;
  const int n = s.g.nodeCount();
  // Buffers keep their memory across repeats (resize, not assign): fresh pages cost page faults,
  // which on a virtual machine can take longer than the kernels.
  s.output.resize(n);
  s.received.resize(s.g.edgeCount());
  // A node's output buffer is as large as the largest tensor it sends (or its output_bytes).
  for (int v = 0; v < n; ++v) {
    double bytes = s.g.node(v).output_bytes;
    for (int e : s.g.outEdges(v)) bytes = std::max(bytes, s.work.bytes[e]);
    s.output[v].resize(s.floatsFor(bytes));
  }
}

void CpuSyntheticBackend::run(int v, int) {
  Impl& s = *impl_;
  // Read every input completely (the memory traffic of a real kernel): its sum seeds the work.
  double in = 0;
  for (int e : s.g.inEdges(v)) {
    const std::vector<float>& x = s.input(e);
    double sum = 0;
    for (float f : x) sum += f;
    in += sum / static_cast<double>(x.size());
  }
  const float seed = static_cast<float>(std::fmod(in, 1.0) + 0.001 * (v % 1000));
  const float result = spin(seed, s.iterations[v]);
  std::vector<float>& out = s.output[v];
  for (size_t i = 0; i < out.size(); ++i) out[i] = result + 1e-4f * static_cast<float>(i % 1024);
}

void CpuSyntheticBackend::receive(int e, int from, int to) {
  Impl& s = *impl_;
  const auto t0 = Clock::now();
  const std::vector<float>& src = s.output[s.g.edge(e).src];
  const size_t floats = std::min(src.size(), s.floatsFor(s.work.bytes[e]));
  s.received[e].resize(floats);
  std::memcpy(s.received[e].data(), src.data(), floats * sizeof(float));
  if (s.work.pace_us) paceCopy(t0, s.work.pace_us(e, from, to));  // the link's time
}

std::vector<double> CpuSyntheticBackend::outputDigest() const {
  const Impl& s = *impl_;
  std::vector<double> digest;
  for (int v = 0; v < s.g.nodeCount(); ++v) {
    if (!s.g.outEdges(v).empty() || s.output.empty()) continue;
    double sum = 0;
    for (float f : s.output[v]) sum += f;
    digest.push_back(sum);
  }
  return digest;
}

SyntheticWork syntheticWork(const DataflowGraph& g, const CostTable& costs, const Assignment& a,
                            double scale) {
  SyntheticWork work;
  for (int v = 0; v < g.nodeCount(); ++v) work.compute_us.push_back(costs.compute(v, a[v]) * scale);
  for (const Edge& e : g.edges()) work.bytes.push_back(e.bytes);
  return work;
}

}  // namespace doppler::exec

// The LibTorch CPU backend of the executor (core/exec/executor.h), inside libdoppler_torch.so:
// each node's kernel is a real LibTorch op picked and shaped by core/exec/torch_kernels.h, run on
// its device's worker thread with one intra-op thread; each transfer clones the producer's output
// into the receiving device's tensors. Every kernel first reduces each input to its mean and adds
// the sum to its operand, so outputs are deterministic functions of the inputs and every placement
// computes the same sink digests as one device does.
#include "core/train/torch_exec_backend.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "core/policy/policy.h"

namespace doppler::train {
namespace {

using Clock = std::chrono::steady_clock;
using exec::KernelKind;
using exec::KernelShape;

class TorchCpuBackend final : public exec::Backend {
 public:
  TorchCpuBackend(const DataflowGraph& g, exec::TorchKernelSpec spec)
      : g_(g), spec_(std::move(spec)) {
    policy::setComputeThreads(std::max(1, spec_.threads));
    for (const Node& node : g_.nodes())
      shapes_.push_back(exec::kernelShape(node, spec_.size_factor));
  }

  std::string name() const override { return "cpu-torch"; }

  void prepare(const Assignment& a, int) override {
    a_ = a;
    output_.resize(g_.nodeCount());
    received_.resize(g_.edgeCount());
    if (!operands_.empty()) return;  // the operands depend on the graph only: made once
    torch::NoGradGuard noGrad;
    torch::Generator gen = at::detail::createCPUGenerator(spec_.seed);
    operands_.resize(g_.nodeCount());
    for (int v = 0; v < g_.nodeCount(); ++v) {
      const KernelShape& s = shapes_[v];
      auto uniform = [&](std::vector<int64_t> sizes, double bound) {
        return torch::rand(sizes, gen).mul_(2 * bound).sub_(bound);
      };
      std::vector<torch::Tensor>& ops = operands_[v];
      switch (s.kind) {
        case KernelKind::Matmul:
          ops.push_back(uniform({s.rows, s.k}, 1.0));
          ops.push_back(uniform({s.k, s.cols}, 1.0 / std::sqrt(static_cast<double>(s.k))));
          break;
        case KernelKind::Attention:
          ops.push_back(uniform({s.rows, s.k}, 1.0));
          ops.push_back(uniform({s.k, s.rows}, 1.0));
          ops.push_back(uniform({s.rows, s.k}, 1.0));
          break;
        case KernelKind::Binary:
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          break;
        default:
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          break;
      }
    }
  }

  void run(int v, int) override {
    torch::NoGradGuard noGrad;
    // Read every input completely: the sum of their means shifts the operand (bounded by tanh).
    double in = 0;
    for (int e : g_.inEdges(v)) in += input(e).mean().item<double>();
    const double shift = 0.5 * std::tanh(in) + 1e-3 * (v % 1000);
    const KernelShape& s = shapes_[v];
    const std::vector<torch::Tensor>& x = operands_[v];
    const std::string& op = g_.node(v).op;
    torch::Tensor out;
    switch (s.kind) {
      case KernelKind::Matmul:
        out = torch::matmul(x[0], x[1]).add_(shift);
        break;
      case KernelKind::Attention:
        out = torch::softmax(torch::matmul(x[0].add(shift), x[1]).mul_(1.0 / std::sqrt(s.k)), -1)
                  .matmul(x[2]);
        break;
      case KernelKind::Softmax:
        out = torch::softmax(x[0].add(shift), -1);
        break;
      case KernelKind::Norm:
        if (op.find("rms") != std::string::npos) {
          const torch::Tensor y = x[0].add(shift);
          out = y.mul(torch::rsqrt(y.square().mean(-1, true).add_(1e-6)));
        } else {
          out = torch::layer_norm(x[0].add(shift), {s.cols});
        }
        break;
      case KernelKind::Binary:
        if (op == "mul" || op == "silu_mul" || op == "rope")
          out = (op == "silu_mul" ? torch::silu(x[0]) : x[0]).mul(x[1]).add_(shift);
        else
          out = x[0].add(x[1]).add_(shift);
        break;
      case KernelKind::Elementwise:
        if (op == "relu")
          out = torch::relu(x[0].add(shift));
        else if (op == "gelu")
          out = torch::gelu(x[0].add(shift));
        else if (op == "silu")
          out = torch::silu(x[0].add(shift));
        else if (op == "sigmoid")
          out = torch::sigmoid(x[0].add(shift));
        else if (op == "tanh")
          out = torch::tanh(x[0].add(shift));
        else
          out = x[0].add(shift);  // input, concat, copies, ops without FLOPs
        break;
    }
    output_[v] = std::move(out);
  }

  void receive(int e, int from, int to) override {
    torch::NoGradGuard noGrad;
    const auto t0 = Clock::now();
    const Edge& edge = g_.edge(e);
    const torch::Tensor src = output_[edge.src].reshape({-1});
    received_[e] = src.narrow(0, 0, carried(e)).clone();
    if (spec_.pace_us) {
      const auto until = t0 + std::chrono::duration<double, std::micro>(spec_.pace_us(e, from, to));
      if (until - Clock::now() > std::chrono::microseconds(200))
        std::this_thread::sleep_until(until - std::chrono::microseconds(100));
      while (Clock::now() < until) {
      }
    }
  }

  std::vector<double> outputDigest() const override {
    std::vector<double> digest;
    for (int v = 0; v < g_.nodeCount(); ++v) {
      if (!g_.outEdges(v).empty() || !output_[v].defined()) continue;
      digest.push_back(output_[v].sum(torch::kDouble).item<double>());
    }
    return digest;
  }

 private:
  // What edge e carries: the first elements of its producer's output, as many as the edge's bytes
  // (x size factor) say. A local consumer reads the same elements a remote one receives.
  int64_t carried(int e) const {
    const Edge& edge = g_.edge(e);
    const int64_t n = output_[edge.src].numel();
    if (edge.bytes <= 0) return n;
    return std::min<int64_t>(
        n, std::max<int64_t>(1, std::llround(edge.bytes * spec_.size_factor / 4)));
  }
  torch::Tensor input(int e) const {
    const Edge& edge = g_.edge(e);
    if (a_[edge.src] != a_[edge.dst]) return received_[e];
    return output_[edge.src].reshape({-1}).narrow(0, 0, carried(e));
  }

  const DataflowGraph& g_;
  exec::TorchKernelSpec spec_;
  std::vector<KernelShape> shapes_;
  Assignment a_;
  std::vector<std::vector<torch::Tensor>> operands_;  // per node
  std::vector<torch::Tensor> output_;                 // per node, on its device
  std::vector<torch::Tensor> received_;               // per cross-device edge, on the consumer's
};

}  // namespace

std::unique_ptr<exec::Backend> makeTorchCpuBackend(const DataflowGraph& g,
                                                   const exec::TorchKernelSpec& spec) {
  return std::make_unique<TorchCpuBackend>(g, spec);
}

}  // namespace doppler::train

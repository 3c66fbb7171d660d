// The LibTorch CPU backend of the executor (core/exec/executor.h), inside libdoppler_torch.so:
// each node's kernel is a real LibTorch op picked and shaped by core/exec/torch_kernels.h, run on
// its device's worker thread with one intra-op thread; each transfer copies the producer's output
// into the receiving device's tensor. Every kernel first reduces each input to its mean and adds
// the sum to its operand, so outputs are deterministic functions of the inputs and every placement
// computes the same sink digests as one device does.
//
// Every output, intermediate and received tensor is made (and written, so its pages exist) once,
// in prepare(); kernels and copies write into them (the `_out` ops), as a GPU runtime's caching
// allocator would have it. A kernel that allocated its output instead paid the first touch of
// fresh pages (glibc returns freed large blocks to the system): on the 2-core VM a 1 MB add took
// 3 ms instead of 0.1 ms, and a 256 x 256 matmul's output doubled its time, so a node's time
// followed the allocator, not its FLOPs or bytes (scripts/experiments/calibration_note.md).
#include "core/torch_module/torch_exec_backend.h"

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

// out = x + shift. Not at::add_out(out, x, Scalar): in LibTorch 1.13 that out= variant is
// generated from the functional op, so it allocates the sum and copies it (a fresh 0.5 MB tensor
// per call, paid in page faults: 1.5 ms instead of 0.2 for a 360 x 361 softmax). A 0-dim operand
// takes the structured kernel that writes `out` directly.
torch::Tensor& shifted(torch::Tensor& out, const torch::Tensor& x, double shift) {
  return at::add_out(out, x, at::scalar_tensor(shift, x.options()));
}

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
    torch::NoGradGuard noGrad;
    if (operands_.empty()) makeTensors();  // they depend on the graph only: made once
    // A buffer for every cross-device edge of this assignment (zeroed, so its pages exist).
    received_.resize(g_.edgeCount());
    for (int e = 0; e < g_.edgeCount(); ++e) {
      const Edge& edge = g_.edge(e);
      if (a_[edge.src] != a_[edge.dst] && !received_[e].defined())
        received_[e] = torch::zeros({carried(e)});
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
    std::vector<torch::Tensor>& t = scratch_[v];  // intermediates, made in makeTensors()
    torch::Tensor& out = output_[v];
    const std::string& op = g_.node(v).op;
    switch (s.kind) {
      case KernelKind::Matmul:
        at::mm_out(out, x[0], x[1]).add_(shift);
        break;
      case KernelKind::Attention:  // softmax((q + shift) k^T / sqrt(d)) v
        shifted(t[0], x[0], shift);
        at::mm_out(t[1], t[0], x[1]).mul_(1.0 / std::sqrt(s.k));
        at::softmax_out(t[2], t[1], -1);
        at::mm_out(out, t[2], x[2]);
        break;
      case KernelKind::Softmax:
        at::softmax_out(out, shifted(t[0], x[0], shift), -1);
        break;
      case KernelKind::Norm:
        shifted(t[0], x[0], shift);
        if (op.find("rms") != std::string::npos) {  // y / sqrt(mean(y^2) + eps)
          at::mean_out(t[2], at::mul_out(t[1], t[0], t[0]), at::IntArrayRef{-1}, true)
              .add_(1e-6)
              .rsqrt_();
          at::mul_out(out, t[0], t[2]);
        } else {  // layer_norm without weights: (y - mean) / sqrt(var + eps), written out
          at::sub_out(out, t[0], at::mean_out(t[2], t[0], at::IntArrayRef{-1}, true));
          at::mean_out(t[2], at::mul_out(t[1], out, out), at::IntArrayRef{-1}, true)
              .add_(1e-5)
              .rsqrt_();
          out.mul_(t[2]);
        }
        break;
      case KernelKind::Binary:
        if (op == "mul" || op == "rope") {
          at::mul_out(out, x[0], x[1]).add_(shift);
        } else if (op == "silu_mul") {
          at::mul_out(out, at::silu_out(t[0], x[0]), x[1]).add_(shift);
        } else {
          at::add_out(out, x[0], x[1]).add_(shift);
        }
        break;
      case KernelKind::Elementwise:
        shifted(out, x[0], shift);
        if (op == "relu")
          out.relu_();
        else if (op == "gelu")
          at::gelu_(out);
        else if (op == "silu")
          at::silu_(out);
        else if (op == "sigmoid")
          out.sigmoid_();
        else if (op == "tanh")
          out.tanh_();
        break;  // input, concat, copies, ops without FLOPs: the shifted operand
    }
  }

  void receive(int e, int from, int to) override {
    torch::NoGradGuard noGrad;
    const auto t0 = Clock::now();
    const Edge& edge = g_.edge(e);
    if (!received_[e].defined()) received_[e] = torch::empty({carried(e)});
    received_[e].copy_(output_[edge.src].reshape({-1}).narrow(0, 0, carried(e)));
    if (spec_.pace_us) exec::paceCopy(t0, spec_.pace_us(e, from, to));
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
  // Each node's operands (seeded values), its output and the intermediates its kernel writes.
  void makeTensors() {
    torch::Generator gen = at::detail::createCPUGenerator(spec_.seed);
    const int n = g_.nodeCount();
    operands_.resize(n);
    scratch_.resize(n);
    output_.resize(n);
    for (int v = 0; v < n; ++v) {
      const KernelShape& s = shapes_[v];
      auto uniform = [&](std::vector<int64_t> sizes, double bound) {
        return torch::rand(sizes, gen).mul_(2 * bound).sub_(bound);
      };
      std::vector<torch::Tensor>& ops = operands_[v];
      std::vector<torch::Tensor>& t = scratch_[v];
      switch (s.kind) {
        case KernelKind::Matmul:
          ops.push_back(uniform({s.rows, s.k}, 1.0));
          ops.push_back(uniform({s.k, s.cols}, 1.0 / std::sqrt(static_cast<double>(s.k))));
          output_[v] = torch::zeros({s.rows, s.cols});
          break;
        case KernelKind::Attention:
          ops.push_back(uniform({s.rows, s.k}, 1.0));
          ops.push_back(uniform({s.k, s.rows}, 1.0));
          ops.push_back(uniform({s.rows, s.k}, 1.0));
          t = {torch::zeros({s.rows, s.k}), torch::zeros({s.rows, s.rows}),
               torch::zeros({s.rows, s.rows})};
          output_[v] = torch::zeros({s.rows, s.k});
          break;
        case KernelKind::Binary:
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          if (g_.node(v).op == "silu_mul") t = {torch::zeros({s.rows, s.cols})};
          output_[v] = torch::zeros({s.rows, s.cols});
          break;
        case KernelKind::Softmax:
        case KernelKind::Norm:  // the shifted operand, then (norms) its square and row statistics
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          t = {torch::zeros({s.rows, s.cols}), torch::zeros({s.rows, s.cols}),
               torch::zeros({s.rows, 1})};
          output_[v] = torch::zeros({s.rows, s.cols});
          break;
        case KernelKind::Elementwise:
          ops.push_back(uniform({s.rows, s.cols}, 1.0));
          output_[v] = torch::zeros({s.rows, s.cols});
          break;
      }
    }
  }

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
  std::vector<std::vector<torch::Tensor>> scratch_;   // per node: its kernel's intermediates
  std::vector<torch::Tensor> output_;                 // per node, on its device
  std::vector<torch::Tensor> received_;               // per cross-device edge, on the consumer's
};

}  // namespace

std::unique_ptr<exec::Backend> makeTorchCpuBackend(const DataflowGraph& g,
                                                   const exec::TorchKernelSpec& spec) {
  return std::make_unique<TorchCpuBackend>(g, spec);
}

}  // namespace doppler::train

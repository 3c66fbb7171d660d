#include "core/exec/cuda_plan.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>

#include "core/common/input_error.h"

namespace doppler::exec {
namespace {

std::string lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// cuBLAS takes int dimensions; a graph scaled too far up would overflow them.
int gemmDim(long x, const Node& node) {
  if (x > INT_MAX)
    throw InputError("", "--size-factor",
                     "node '" + node.id + "' would need a matrix dimension of " +
                         std::to_string(x) + ", more than cuBLAS takes: use a smaller size factor");
  return static_cast<int>(x);
}

}  // namespace

const char* toString(CudaOp op) {
  switch (op) {
    case CudaOp::Matmul:
      return "matmul";
    case CudaOp::Attention:
      return "attention";
    case CudaOp::Softmax:
      return "softmax";
    case CudaOp::LayerNorm:
      return "layer_norm";
    case CudaOp::RmsNorm:
      return "rms_norm";
    case CudaOp::Add:
      return "add";
    case CudaOp::Mul:
      return "mul";
    case CudaOp::SiluMul:
      return "silu_mul";
    case CudaOp::Relu:
      return "relu";
    case CudaOp::Gelu:
      return "gelu";
    case CudaOp::Silu:
      return "silu";
    case CudaOp::Sigmoid:
      return "sigmoid";
    case CudaOp::Tanh:
      return "tanh";
    case CudaOp::Copy:
      return "copy";
  }
  return "?";
}

CudaOp cudaOp(const Node& node) {
  const std::string op = lower(node.op);
  switch (kernelKind(node)) {
    case KernelKind::Matmul:
      return CudaOp::Matmul;
    case KernelKind::Attention:
      return CudaOp::Attention;
    case KernelKind::Softmax:
      return CudaOp::Softmax;
    case KernelKind::Norm:
      return op.find("rms") != std::string::npos ? CudaOp::RmsNorm : CudaOp::LayerNorm;
    case KernelKind::Binary:
      if (op == "silu_mul") return CudaOp::SiluMul;
      if (op == "mul" || op == "rope") return CudaOp::Mul;
      return CudaOp::Add;
    case KernelKind::Elementwise:
      if (op == "relu") return CudaOp::Relu;
      if (op == "gelu") return CudaOp::Gelu;
      if (op == "silu") return CudaOp::Silu;
      if (op == "sigmoid") return CudaOp::Sigmoid;
      if (op == "tanh") return CudaOp::Tanh;
      return CudaOp::Copy;
  }
  return CudaOp::Copy;
}

CudaPlan planCudaKernels(const DataflowGraph& g, double size_factor) {
  CudaPlan plan;
  for (const Node& node : g.nodes()) {
    CudaNodePlan p;
    p.op = cudaOp(node);
    p.shape = kernelShape(node, size_factor);
    const KernelShape& s = p.shape;
    p.output_elements = s.elements();
    switch (p.op) {
      case CudaOp::Matmul:
        p.operand_elements = {s.rows * s.k, s.k * s.cols};
        p.operand_bounds = {1.0f, static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.k)))};
        p.gemms.push_back(
            GemmCall{gemmDim(s.rows, node), gemmDim(s.cols, node), gemmDim(s.k, node), 1.0f});
        break;
      case CudaOp::Attention: {
        // q [rows x d], kᵀ [d x rows], v [rows x d]; scores [rows x rows].
        p.operand_elements = {s.rows * s.k, s.k * s.rows, s.rows * s.k};
        p.operand_bounds = {1.0f, 1.0f, 1.0f};
        const int rows = gemmDim(s.rows, node), d = gemmDim(s.k, node);
        p.gemms.push_back(GemmCall{rows, rows, d, static_cast<float>(1.0 / std::sqrt(d))});
        p.gemms.push_back(GemmCall{rows, d, rows, 1.0f});
        p.scratch_elements = s.rows * s.k + s.rows * s.rows;
        break;
      }
      case CudaOp::Add:
      case CudaOp::Mul:
      case CudaOp::SiluMul:
        p.operand_elements = {s.elements(), s.elements()};
        p.operand_bounds = {1.0f, 1.0f};
        break;
      default:
        p.operand_elements = {s.elements()};
        p.operand_bounds = {1.0f};
        break;
    }
    plan.nodes.push_back(std::move(p));
  }
  for (const Edge& e : g.edges()) {
    const long produced = plan.nodes[e.src].output_elements;
    plan.carried.push_back(
        e.bytes <= 0 ? produced
                     : std::min(produced, std::max(1L, std::lround(e.bytes * size_factor / 4))));
  }
  return plan;
}

SgemmArgs sgemmArgs(const GemmCall& call) {
  return SgemmArgs{call.n, call.m, call.k, call.n, call.k, call.n};
}

double nodeBytes(const CudaNodePlan& node) {
  double elements = static_cast<double>(node.output_elements + node.scratch_elements);
  for (long n : node.operand_elements) elements += static_cast<double>(n);
  return 4.0 * elements;
}

std::vector<double> bytesPerGpu(const DataflowGraph& g, const CudaPlan& plan, const Assignment& a,
                                int devices, int gpus) {
  std::vector<double> bytes(std::max(1, gpus), 0.0);
  std::vector<long> scratch(std::max(1, devices), 0);
  for (int v = 0; v < g.nodeCount(); ++v) {
    const CudaNodePlan& node = plan.nodes[v];
    bytes[physicalGpu(a[v], gpus)] += nodeBytes(node) - 4.0 * node.scratch_elements;
    scratch[a[v]] = std::max(scratch[a[v]], node.scratch_elements);
  }
  for (int e = 0; e < g.edgeCount(); ++e) {
    const Edge& edge = g.edge(e);
    if (a[edge.src] != a[edge.dst]) bytes[physicalGpu(a[edge.dst], gpus)] += 4.0 * plan.carried[e];
  }
  for (int d = 0; d < devices; ++d) bytes[physicalGpu(d, gpus)] += 4.0 * scratch[d];
  return bytes;
}

int physicalGpu(int logical, int gpus) {
  return gpus > 0 ? logical % gpus : 0;
}

bool sharesGpus(int devices, int gpus) {
  return devices > gpus;
}

std::string gpuMappingNote(int devices, int gpus) {
  std::string note = std::to_string(devices) + (devices == 1 ? " device on " : " devices on ") +
                     std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs");
  if (sharesGpus(devices, gpus))
    note += " (device d runs on GPU d mod " + std::to_string(gpus) +
            ": devices share GPUs and compete for their SMs and memory)";
  return note;
}

double cudaDefaultSizeFactor(const DataflowGraph& g, int devices, double target_ms,
                             double gpu_gflops) {
  return defaultSizeFactor(g, devices, target_ms, gpu_gflops);
}

}  // namespace doppler::exec

#include "core/exec/torch_kernels.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

namespace doppler::exec {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// rows x cols = about `elements`, rows <= cols, both near the square root.
void splitNearSquare(long elements, long& rows, long& cols) {
  elements = std::max(1L, elements);
  rows = std::max(1L, static_cast<long>(std::sqrt(static_cast<double>(elements))));
  cols = std::max(1L, (elements + rows - 1) / rows);
}

}  // namespace

const char* toString(KernelKind kind) {
  switch (kind) {
    case KernelKind::Matmul:
      return "matmul";
    case KernelKind::Elementwise:
      return "elementwise";
    case KernelKind::Binary:
      return "binary";
    case KernelKind::Softmax:
      return "softmax";
    case KernelKind::Norm:
      return "norm";
    case KernelKind::Attention:
      return "attention";
  }
  return "?";
}

KernelKind kernelKind(const Node& node) {
  const std::string op = lower(node.op);
  if (contains(op, "attention")) return KernelKind::Attention;
  if (contains(op, "softmax")) return KernelKind::Softmax;
  if (contains(op, "norm")) return KernelKind::Norm;  // layernorm(alisation), rmsnorm, batchnorm
  if (op == "matmul" || op == "gemm" || op == "mm" || op == "bmm" || op == "linear" ||
      contains(op, "conv"))
    return KernelKind::Matmul;
  // Nodes with FLOPs but no output cannot be shaped as an elementwise op: a matmul of their FLOPs.
  if (node.flops > 0 && node.output_bytes <= 0) return KernelKind::Matmul;
  if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "bias_add" ||
      op == "silu_mul" || op == "rope" || op == "residual")
    return KernelKind::Binary;
  if (op == "relu" || op == "gelu" || op == "silu" || op == "sigmoid" || op == "tanh" ||
      op == "exp" || op == "input" || op == "concat" || op == "copy" || op == "reshape" ||
      op == "transpose" || op == "identity" || node.flops <= 0)
    return KernelKind::Elementwise;
  return KernelKind::Matmul;  // anything else with FLOPs: a matmul of its FLOPs
}

KernelShape kernelShape(const Node& node, double f) {
  KernelShape s;
  s.kind = kernelKind(node);
  const double flops = node.flops * f;
  const long elements =
      std::max(16L, std::lround(node.output_bytes > 0 ? node.output_bytes * f / 4 : flops));
  switch (s.kind) {
    case KernelKind::Matmul:
      if (node.output_bytes > 0) {
        splitNearSquare(std::lround(std::max(1.0, node.output_bytes * f / 4)), s.rows, s.cols);
        s.k = std::max(1L, std::lround(flops / (2.0 * s.rows * s.cols)));
      } else {  // a cube whose product has the node's FLOPs
        const long n = std::max(1L, std::lround(std::cbrt(std::max(flops, 2.0) / 2)));
        s.rows = s.cols = s.k = n;
      }
      s.flops = 2.0 * s.rows * s.cols * s.k;
      s.memory_bytes = 4.0 * (s.rows * s.k + s.k * s.cols + s.rows * s.cols);
      break;
    case KernelKind::Attention: {
      s.k = std::min(64L, elements);  // head dimension
      s.rows = std::max(1L, elements / s.k);
      s.cols = s.k;
      s.flops = 4.0 * s.rows * s.rows * s.k;
      s.memory_bytes = 4.0 * (4.0 * s.rows * s.k + 2.0 * s.rows * s.rows);
      break;
    }
    default:
      splitNearSquare(elements, s.rows, s.cols);
      s.flops = flops;
      // The operand(s) read and the output written.
      s.memory_bytes = 4.0 * s.elements() * (s.kind == KernelKind::Binary ? 3 : 2);
      break;
  }
  return s;
}

DataflowGraph kernelGraph(const DataflowGraph& g, double f) {
  DataflowGraph out;
  out.name = g.name;
  std::vector<KernelShape> shapes;
  for (const Node& node : g.nodes()) shapes.push_back(kernelShape(node, f));
  for (int v = 0; v < g.nodeCount(); ++v) {
    Node node = g.node(v);
    const KernelShape& shape = shapes[v];
    node.flops = shape.flops;
    node.output_bytes = 4.0 * shape.elements();
    for (double& us : node.compute_us) us *= f;
    if (node.memory_bytes > 0) {
      node.memory_bytes *= f;
    } else {
      // Every kernel also reads each input completely (a reduction that seeds its operand).
      double read = 0;
      for (int e : g.inEdges(v)) read += 4.0 * shapes[g.edge(e).src].elements();
      node.memory_bytes = shape.memory_bytes + read;
    }
    out.addNode(node);
  }
  for (const Edge& e : g.edges()) {
    Edge copy = e;
    const double produced = 4.0 * shapes[e.src].elements();
    copy.bytes = e.bytes > 0 ? std::min(produced, std::max(4.0, e.bytes * f)) : produced;
    if (copy.transfer_us) *copy.transfer_us *= f;
    out.addEdge(copy);
  }
  return out;
}

double defaultSizeFactor(const DataflowGraph& g, int devices, double target_ms,
                         double core_gflops) {
  double flops = 0, bytes = 0;
  for (const Node& node : g.nodes()) {
    flops += node.flops;
    bytes += node.output_bytes;
  }
  const double budget_us = target_ms * 1e3 * std::max(1, devices);
  double f = 1;
  if (flops > 0)
    f = budget_us * core_gflops * 1e3 / flops;  // GFLOP/s = 1e3 FLOP/us
  else if (bytes > 0)
    f = budget_us * 2e3 / bytes;  // about 2 GB/s of elementwise traffic per core
  return std::clamp(f, 1e-12, 1.0);
}

bool hasTorchOps(const DataflowGraph& g) {
  for (const Node& node : g.nodes())
    if (!node.op.empty() && node.compute_us.empty() && (node.flops > 0 || node.output_bytes > 0))
      return true;
  return false;
}

}  // namespace doppler::exec

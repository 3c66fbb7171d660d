#pragma once
// What the LibTorch CPU backend (core/train/torch_exec_backend.cpp, inside libdoppler_torch.so)
// runs for each node, in plain C++ so the CLI can size, simulate and describe a run without
// loading LibTorch. A node's kernel is chosen by its op and shaped by its FLOPs and output bytes,
// both multiplied by a size factor so that a paper graph runs in tens to hundreds of milliseconds
// on CPU cores (docs/exec.md).
#include <functional>
#include <string>

#include "core/graph/dataflow_graph.h"

namespace doppler::exec {

enum class KernelKind {
  Matmul,       // torch::matmul of [rows x k] by [k x cols]
  Elementwise,  // unary: relu, gelu, silu, ... (and nodes without FLOPs: a copy)
  Binary,       // add, mul, bias_add, silu_mul, rope: two operands
  Softmax,      // softmax over the last dimension of [rows x cols]
  Norm,         // layer_norm / rmsnorm over the last dimension of [rows x cols]
  Attention,    // softmax(q k^T) v with q, k, v [rows x d]
};

// The kernel a node runs and its shape after the size factor.
struct KernelShape {
  KernelKind kind = KernelKind::Elementwise;
  long rows = 1, cols = 1, k = 1;  // elements = rows x cols; k: matmul inner / attention head dim
  double flops = 0;                // what the kernel computes (scaled)
  double memory_bytes = 0;         // what it reads and writes besides its inputs (scaled)
  long elements() const { return rows * cols; }
};

KernelKind kernelKind(const Node& node);
// The kernel of `node` with its FLOPs and output bytes multiplied by size_factor.
KernelShape kernelShape(const Node& node, double size_factor);
const char* toString(KernelKind kind);

// What the torch backend needs besides the graph (plain data: crosses the module's interface).
struct TorchKernelSpec {
  double size_factor = 1;  // multiplies every node's FLOPs and output bytes and every edge's bytes
  int threads = 1;         // LibTorch intra-op threads (each device worker is pinned to a core)
  uint64_t seed = 1;       // the operands' values (outputs are deterministic given it)
  // Per cross-device edge: how long its copy should take (empty: as fast as the clone goes).
  std::function<double(int e, int from, int to)> pace_us;
};

// The graph the torch kernels run, for the simulation beside a run: FLOPs, output bytes and edge
// bytes times size_factor, and each node's memory_bytes (when it has none) the bytes its kernel
// reads and writes (inputs, operands, output), so that memory-bound kernels cost by the roofline.
DataflowGraph kernelGraph(const DataflowGraph& g, double size_factor);

// A size factor that makes the graph's kernels take about target_ms on `devices` CPU cores of
// about `core_gflops` each (1 for graphs without FLOPs or bytes).
double defaultSizeFactor(const DataflowGraph& g, int devices, double target_ms,
                         double core_gflops = 20);

// Whether a graph has op kinds the torch kernels know (otherwise `doppler exec` runs synthetic
// kernels sized by cost).
bool hasTorchOps(const DataflowGraph& g);

}  // namespace doppler::exec

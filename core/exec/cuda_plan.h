#pragma once
// What the CUDA backend (cuda_backend.cpp) runs for each node and where, in plain C++ so that it
// is built and tested on machines without CUDA: each node's kernel (the torch kernels' choice and
// shape, core/exec/torch_kernels.h, refined to the exact op), the cuBLAS calls of its matmuls, the
// elements each edge carries, the memory each GPU needs, and which GPU each logical device runs on.
#include <string>
#include <vector>

#include "core/exec/torch_kernels.h"
#include "core/graph/dataflow_graph.h"
#include "core/sim/schedule.h"

namespace doppler::exec {

// The exact kernel: KernelKind split by op (the CUDA kernels in cuda_kernels.cu).
enum class CudaOp {
  Matmul,     // cublasSgemm, then + shift
  Attention,  // (q + shift) kᵀ / √d (cublasSgemm), softmax per row, then · v (cublasSgemm)
  Softmax,    // per row of [rows x cols]
  LayerNorm,  // per row, no affine, eps 1e-5
  RmsNorm,    // x / rms(x) per row, eps 1e-6
  Add,        // a + b + shift (add, sub, div, bias_add, residual)
  Mul,        // a · b + shift (mul, rope)
  SiluMul,    // silu(a) · b + shift
  Relu,
  Gelu,  // erf form
  Silu,
  Sigmoid,
  Tanh,
  Copy,  // input, concat, reshape, ops without FLOPs: x + shift
};
const char* toString(CudaOp op);
CudaOp cudaOp(const Node& node);  // the kernel kernelKind(node) picks, by op

// A row-major C[m x n] = alpha · A[m x k] · B[k x n] as cuBLAS (column-major) computes it:
// Cᵀ = Bᵀ Aᵀ, that is cublasSgemm(N, N, n, m, k, alpha, B, ldb = n, A, lda = k, beta, C, ldc = n).
struct GemmCall {
  int m = 1, n = 1, k = 1;
  float alpha = 1;
};
// cublasSgemm's own arguments for a GemmCall (both operands not transposed): its m, n, k and
// leading dimensions, with its first matrix our B and its second our A.
struct SgemmArgs {
  int m = 1, n = 1, k = 1;
  int lda = 1, ldb = 1, ldc = 1;
};
SgemmArgs sgemmArgs(const GemmCall& call);

struct CudaNodePlan {
  CudaOp op = CudaOp::Copy;
  KernelShape shape;
  long output_elements = 0;            // what the node writes (rows x cols)
  std::vector<long> operand_elements;  // its operands, made once from the seed (cuda_kernels.h)
  std::vector<float> operand_bounds;   // each operand is uniform in [-bound, bound]
  std::vector<GemmCall> gemms;         // matmul: 1; attention: 2 (scores, then · v)
  long scratch_elements = 0;           // attention: q + shift and the rows x rows scores
};

struct CudaPlan {
  std::vector<CudaNodePlan> nodes;  // per node
  std::vector<long> carried;        // per edge: the first elements of its producer's output
};

// Every node's kernel at this size factor, and what each edge carries (its bytes x the factor / 4,
// at least 1 and at most the producer's output, as in the torch backend). Throws InputError naming
// the node when a dimension exceeds what cuBLAS takes (int): a smaller --size-factor fits.
CudaPlan planCudaKernels(const DataflowGraph& g, double size_factor);

// Bytes of GPU memory node v's kernel needs on its device besides its inputs: operands, output
// and scratch (the backend keeps one scratch per device, as large as its largest node's).
double nodeBytes(const CudaNodePlan& node);
// What each physical GPU holds for this assignment: operands and outputs of the nodes on it, the
// copies it receives, each logical device's scratch.
std::vector<double> bytesPerGpu(const DataflowGraph& g, const CudaPlan& plan, const Assignment& a,
                                int devices, int gpus);

// Logical device d runs on GPU d mod gpus: several logical devices may share one GPU (each has its
// own streams, cuBLAS handle and memory on it; they compete for its SMs).
int physicalGpu(int logical, int gpus);
bool sharesGpus(int devices, int gpus);
// One line for the output: "2 devices on 2 GPUs" or "4 devices on 1 GPU (device d runs on GPU
// d mod 1: devices share GPUs and compete for their SMs and memory)".
std::string gpuMappingNote(int devices, int gpus);

// A size factor that makes the graph's kernels take about target_ms on `devices` GPUs of about
// `gpu_gflops` each (float32 without tensor cores; at most 1: the graph's own size).
double cudaDefaultSizeFactor(const DataflowGraph& g, int devices, double target_ms,
                             double gpu_gflops = 20000);

}  // namespace doppler::exec

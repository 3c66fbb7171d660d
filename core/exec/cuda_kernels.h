#pragma once
// The CUDA backend's device kernels (cuda_kernels.cu, compiled by nvcc), launched on a stream by
// cuda_backend.cpp; the matmuls are cuBLAS's. Every kernel is deterministic: reductions run in a
// fixed order (no atomics), so the same inputs give bitwise the same outputs on any stream, any
// logical device and any GPU of the same model, which is what lets every placement reproduce a
// single device's sink digests. Plain C++17 and the CUDA runtime only (nvcc compiles this).
#include <cuda_runtime.h>

#include <cstdint>

namespace doppler::exec::cuda {

// Partial sums a reduction writes: reduceSum's grid is fixed, so its order is.
constexpr int kReduceBlocks = 128;

enum class UnaryFn : int { Identity, Relu, Gelu, Silu, Sigmoid, Tanh };
enum class BinaryFn : int { Add, Mul, SiluMul };

// x[i] uniform in [-bound, bound], a hash of (seed, stream, i): the same on every GPU.
void fillUniform(float* x, long n, uint64_t seed, uint64_t stream, float bound, cudaStream_t s);

// partials[b] (kReduceBlocks doubles) = the sum of block b's share of x[0..n).
void reduceSum(const float* x, long n, double* partials, cudaStream_t s);
// *acc += (the sum of the partials, in order) / n.
void accumulateMean(const double* partials, long n, double* acc, cudaStream_t s);
// *shift = 0.5 tanh(*acc) + offset: the sum of a node's input means shifts its operand, as in the
// torch backend, so its output depends on every input.
void makeShift(const double* acc, float offset, float* shift, cudaStream_t s);

// y = f(x + *shift), n elements.
void unary(UnaryFn f, const float* x, const float* shift, float* y, long n, cudaStream_t s);
// y = f(a, b) + *shift: a + b, a b, silu(a) b.
void binary(BinaryFn f, const float* a, const float* b, const float* shift, float* y, long n,
            cudaStream_t s);
// y += *shift (after a matmul).
void addShift(float* y, long n, const float* shift, cudaStream_t s);
// Per row of [rows x cols]: y = softmax(x + *shift) (shift may be null: no shift). x may be y.
void rowSoftmax(const float* x, const float* shift, float* y, long rows, long cols, cudaStream_t s);
// Per row: layer norm (no affine, eps 1e-5) or x / rms(x) (eps 1e-6) of x + *shift.
void rowNorm(bool rms, const float* x, const float* shift, float* y, long rows, long cols,
             cudaStream_t s);

}  // namespace doppler::exec::cuda

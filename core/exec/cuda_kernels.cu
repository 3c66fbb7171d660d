// The CUDA backend's device kernels (cuda_kernels.h). Simple on purpose: grid-stride loops for
// elementwise work, one block per row for softmax and norms, tree reductions in shared memory in a
// fixed order. They are not tuned: the matmuls (cuBLAS) carry most of a graph's FLOPs.
#include <algorithm>

#include "core/exec/cuda_kernels.h"

namespace doppler::exec::cuda {
namespace {

constexpr int kThreads = 256;  // every kernel's block size (the reductions assume it)

// Enough blocks to cover n at kThreads per block, capped: the loops stride over the rest.
unsigned blocksFor(long n) {
  return static_cast<unsigned>(std::clamp<long>((n + kThreads - 1) / kThreads, 1, 4096));
}

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fillUniformKernel(float* x, long n, uint64_t key, float bound) {
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const float u = static_cast<float>(splitmix64(key + static_cast<uint64_t>(i)) >> 40) *
                    (1.0f / 16777216.0f);  // 24 bits: [0, 1)
    x[i] = (2.0f * u - 1.0f) * bound;
  }
}

// Sums `value` over the block (kThreads threads) in a fixed tree; thread 0 gets the total.
template <class T>
__device__ T blockSum(T value, T* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  const T total = shared[0];
  __syncthreads();  // shared may be reused right after
  return total;
}

__device__ float blockMax(float value, float* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      shared[threadIdx.x] = fmaxf(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  const float total = shared[0];
  __syncthreads();
  return total;
}

__global__ void reduceSumKernel(const float* x, long n, double* partials) {
  __shared__ double shared[kThreads];
  double sum = 0;
  for (long i = blockIdx.x * static_cast<long>(kThreads) + threadIdx.x; i < n;
       i += static_cast<long>(kReduceBlocks) * kThreads)
    sum += x[i];
  sum = blockSum(sum, shared);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void accumulateMeanKernel(const double* partials, long n, double* acc) {
  double sum = 0;
  for (int b = 0; b < kReduceBlocks; ++b) sum += partials[b];
  *acc += sum / static_cast<double>(n);
}

__global__ void makeShiftKernel(const double* acc, float offset, float* shift) {
  *shift = static_cast<float>(0.5 * tanh(*acc)) + offset;
}

__device__ float sigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}

__device__ float apply(UnaryFn f, float x) {
  switch (f) {
    case UnaryFn::Relu:
      return fmaxf(x, 0.0f);
    case UnaryFn::Gelu:
      return 0.5f * x * (1.0f + erff(x * 0.70710678f));
    case UnaryFn::Silu:
      return x * sigmoid(x);
    case UnaryFn::Sigmoid:
      return sigmoid(x);
    case UnaryFn::Tanh:
      return tanhf(x);
    case UnaryFn::Identity:
      break;
  }
  return x;
}

__global__ void unaryKernel(UnaryFn f, const float* x, const float* shift, float* y, long n) {
  const float c = *shift;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    y[i] = apply(f, x[i] + c);
}

__global__ void binaryKernel(BinaryFn f, const float* a, const float* b, const float* shift,
                             float* y, long n) {
  const float c = *shift;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const float x = a[i];
    const float r =
        f == BinaryFn::Add ? x + b[i] : (f == BinaryFn::Mul ? x : x * sigmoid(x)) * b[i];
    y[i] = r + c;
  }
}

__global__ void addShiftKernel(float* y, long n, const float* shift) {
  const float c = *shift;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    y[i] += c;
}

__global__ void rowSoftmaxKernel(const float* x, const float* shift, float* y, long cols) {
  __shared__ float shared[kThreads];
  const float c = shift ? *shift : 0.0f;
  const float* in = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float top = -INFINITY;
  for (long j = threadIdx.x; j < cols; j += kThreads) top = fmaxf(top, in[j] + c);
  top = blockMax(top, shared);
  float sum = 0;
  for (long j = threadIdx.x; j < cols; j += kThreads) {
    const float e = expf(in[j] + c - top);
    out[j] = e;
    sum += e;
  }
  sum = blockSum(sum, shared);
  const float inv = 1.0f / sum;
  for (long j = threadIdx.x; j < cols; j += kThreads) out[j] *= inv;
}

__global__ void rowNormKernel(bool rms, const float* x, const float* shift, float* y, long cols) {
  __shared__ double shared[kThreads];
  const float c = *shift;
  const float* in = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  double sum = 0, squares = 0;
  for (long j = threadIdx.x; j < cols; j += kThreads) {
    const double v = in[j] + c;
    sum += v;
    squares += v * v;
  }
  sum = blockSum(sum, shared);
  squares = blockSum(squares, shared);
  const double mean = rms ? 0.0 : sum / cols;
  const double variance = squares / cols - mean * mean;
  const float inv = static_cast<float>(1.0 / sqrt(fmax(variance, 0.0) + (rms ? 1e-6 : 1e-5)));
  const float m = static_cast<float>(mean);
  for (long j = threadIdx.x; j < cols; j += kThreads) out[j] = (in[j] + c - m) * inv;
}

}  // namespace

void fillUniform(float* x, long n, uint64_t seed, uint64_t stream, float bound, cudaStream_t s) {
  // Far-apart keys per (seed, stream): the hash of consecutive indices never overlaps another's.
  const uint64_t key = (seed * 0x9E3779B97F4A7C15ull) ^ (stream << 40);
  fillUniformKernel<<<blocksFor(n), kThreads, 0, s>>>(x, n, key, bound);
}

void reduceSum(const float* x, long n, double* partials, cudaStream_t s) {
  reduceSumKernel<<<kReduceBlocks, kThreads, 0, s>>>(x, n, partials);
}

void accumulateMean(const double* partials, long n, double* acc, cudaStream_t s) {
  accumulateMeanKernel<<<1, 1, 0, s>>>(partials, std::max(1L, n), acc);
}

void makeShift(const double* acc, float offset, float* shift, cudaStream_t s) {
  makeShiftKernel<<<1, 1, 0, s>>>(acc, offset, shift);
}

void unary(UnaryFn f, const float* x, const float* shift, float* y, long n, cudaStream_t s) {
  unaryKernel<<<blocksFor(n), kThreads, 0, s>>>(f, x, shift, y, n);
}

void binary(BinaryFn f, const float* a, const float* b, const float* shift, float* y, long n,
            cudaStream_t s) {
  binaryKernel<<<blocksFor(n), kThreads, 0, s>>>(f, a, b, shift, y, n);
}

void addShift(float* y, long n, const float* shift, cudaStream_t s) {
  addShiftKernel<<<blocksFor(n), kThreads, 0, s>>>(y, n, shift);
}

void rowSoftmax(const float* x, const float* shift, float* y, long rows, long cols,
                cudaStream_t s) {
  rowSoftmaxKernel<<<static_cast<unsigned>(rows), kThreads, 0, s>>>(x, shift, y, cols);
}

void rowNorm(bool rms, const float* x, const float* shift, float* y, long rows, long cols,
             cudaStream_t s) {
  rowNormKernel<<<static_cast<unsigned>(rows), kThreads, 0, s>>>(rms, x, shift, y, cols);
}

}  // namespace doppler::exec::cuda

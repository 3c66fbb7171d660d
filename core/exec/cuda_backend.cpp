// The CUDA backend (cuda_backend.h): host code, compiled by g++ against the CUDA runtime; the
// device kernels are in cuda_kernels.cu and the matmuls are cuBLAS's, opened on first use.
//
// Timing: the executor times each node with the host's steady clock around run() (its timeline
// must be comparable across backends). run() therefore launches the node's kernels on its
// device's compute stream and then synchronises that stream before returning, so the host time
// covers the launches and the kernels; CUDA events around the kernels give their time on the GPU
// as well (kernelTimesUs). Likewise receive() synchronises its copy stream. Work on different
// logical devices still overlaps: each has its own streams and host threads.
//
// Every placement computes the same sink digests as one device: operands come from a hash of
// (seed, node, operand) on whichever GPU the node runs, the kernels reduce in a fixed order, and
// cuBLAS runs in its default (not TF32) math mode with one handle per stream, which its
// documentation names as what keeps it bitwise reproducible (on GPUs of one model) while several
// streams run at once; with a shared handle it may pick other algorithms per stream.
#include "core/exec/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <thread>
#include <type_traits>

#include "core/common/input_error.h"
#include "core/exec/cuda_kernels.h"
#include "core/exec/cuda_plan.h"

namespace doppler::exec {
namespace {

using Clock = std::chrono::steady_clock;

std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw ExecError(std::string(what) + ": " + describe(e));
}

// cuBLAS, opened with dlopen on first use: linked, libcublas costs every doppler process about
// 0.4 s at start, and most never touch a GPU. By soname first (the loader's path), then in the
// toolkit this build was configured with.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) setStream = nullptr;
  decltype(&cublasSetMathMode) setMathMode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasGetStatusString) statusString = nullptr;
};

const Cublas& cublas() {
  static const Cublas lib = [] {
    void* handle = dlopen(DOPPLER_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      handle = dlopen(DOPPLER_CUBLAS_DIR "/" DOPPLER_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw ExecError(std::string("cannot load cuBLAS (") + DOPPLER_CUBLAS_SONAME +
                      "): " + dlerror());
    Cublas c;
    auto find = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
      if (!fn) throw ExecError(std::string("cuBLAS has no ") + name);
    };
    find(c.create, "cublasCreate_v2");
    find(c.destroy, "cublasDestroy_v2");
    find(c.setStream, "cublasSetStream_v2");
    find(c.setMathMode, "cublasSetMathMode");
    find(c.sgemm, "cublasSgemm_v2");
    find(c.statusString, "cublasGetStatusString");
    return c;
  }();
  return lib;
}

void checkBlas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw ExecError(std::string(what) + ": " + cublas().statusString(status));
}

// Floats on one GPU, kept across runs and moved when the node or edge moves to another GPU.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // Makes room for n floats on `gpu`; true when the buffer is new (its contents undefined).
  bool ensure(int gpu, long n, const std::string& what, double needed_bytes) {
    if (data_ && gpu == gpu_ && n <= capacity_) return false;
    release();
    check(cudaSetDevice(gpu), "cudaSetDevice");
    const cudaError_t e = cudaMalloc(&data_, sizeof(float) * std::max(1L, n));
    if (e != cudaSuccess) {
      data_ = nullptr;
      cudaGetLastError();  // clear it: the error is reported here, not at the next call
      throw ExecError("cannot allocate " + std::to_string(4.0 * n / (1 << 20)) + " MiB for " +
                      what + " on GPU " + std::to_string(gpu) + " (this assignment needs about " +
                      std::to_string(needed_bytes / (1 << 30)) +
                      " GiB there; a smaller --size-factor fits): " + describe(e));
    }
    gpu_ = gpu;
    capacity_ = n;
    return true;
  }
  void release() {
    if (!data_) return;
    cudaSetDevice(gpu_);
    cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
    gpu_ = -1;
  }
  float* data() const { return data_; }
  int gpu() const { return gpu_; }

 private:
  float* data_ = nullptr;
  long capacity_ = 0;
  int gpu_ = -1;
};

// One logical device: its GPU, streams, cuBLAS handle, events and scratch.
struct Lane {
  int gpu = 0;
  cudaStream_t compute = nullptr, copy = nullptr;
  cublasHandle_t blas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  double* reduce = nullptr;  // kReduceBlocks partial sums, then the accumulated mean
  float* shift = nullptr;
  DeviceBuffer scratch;  // attention: q + shift and the scores
};

class CudaBackendImpl final : public CudaBackend {
 public:
  CudaBackendImpl(const DataflowGraph& g, CudaKernelSpec spec, int gpus)
      : g_(g), spec_(std::move(spec)), plan_(planCudaKernels(g, spec_.size_factor)) {
    gpus_ = gpus;
    for (int i = 0; i < gpus; ++i) {
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties");
      names_.push_back(prop.name);
    }
    // Peer access between every pair of GPUs that allows it; the others' copies are staged
    // through the host by the driver (cudaMemcpyPeerAsync works either way).
    peer_.assign(gpus, std::vector<char>(gpus, 0));
    for (int i = 0; i < gpus; ++i)
      for (int j = 0; j < gpus; ++j) {
        if (i == j) continue;
        int can = 0;
        check(cudaDeviceCanAccessPeer(&can, i, j), "cudaDeviceCanAccessPeer");
        if (!can) continue;
        check(cudaSetDevice(i), "cudaSetDevice");
        const cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
        if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) peer_[i][j] = 1;
        cudaGetLastError();
      }
    outputs_ = std::vector<DeviceBuffer>(g.nodeCount());
    operands_ = std::vector<std::vector<DeviceBuffer>>(g.nodeCount());
    received_ = std::vector<DeviceBuffer>(g.edgeCount());
    kernelUs_.assign(g.nodeCount(), 0);
  }

  ~CudaBackendImpl() override {
    for (Lane& lane : lanes_) {
      cudaSetDevice(lane.gpu);
      if (lane.blas) cublas().destroy(lane.blas);
      for (cudaStream_t s : {lane.compute, lane.copy})
        if (s) cudaStreamDestroy(s);
      for (cudaEvent_t e : {lane.start, lane.stop})
        if (e) cudaEventDestroy(e);
      if (lane.reduce) cudaFree(lane.reduce);
      if (lane.shift) cudaFree(lane.shift);
    }
  }

  std::string name() const override { return "cuda"; }

  void prepare(const Assignment& a, int devices) override {
    a_ = a;
    while (static_cast<int>(lanes_.size()) < devices) addLane();
    const std::vector<double> need = bytesPerGpu(g_, plan_, a, devices, gpus_);
    auto gpuOf = [&](int device) { return physicalGpu(device, gpus_); };
    std::vector<long> scratch(devices, 0);
    for (int v = 0; v < g_.nodeCount(); ++v) {
      const CudaNodePlan& node = plan_.nodes[v];
      const int gpu = gpuOf(a[v]);
      const std::string& id = g_.node(v).id;
      scratch[a[v]] = std::max(scratch[a[v]], node.scratch_elements);
      outputs_[v].ensure(gpu, node.output_elements, "the output of '" + id + "'", need[gpu]);
      // The operands depend on the graph and the seed only: made again only where a node moves.
      std::vector<DeviceBuffer>& ops = operands_[v];
      if (ops.size() != node.operand_elements.size())
        ops = std::vector<DeviceBuffer>(node.operand_elements.size());
      for (size_t j = 0; j < ops.size(); ++j)
        if (ops[j].ensure(gpu, node.operand_elements[j], "an operand of '" + id + "'", need[gpu]))
          cuda::fillUniform(ops[j].data(), node.operand_elements[j], spec_.seed, v * 4ull + j,
                            node.operand_bounds[j], lanes_[a[v]].compute);
    }
    for (int e = 0; e < g_.edgeCount(); ++e) {
      const Edge& edge = g_.edge(e);
      if (a[edge.src] == a[edge.dst]) {
        received_[e].release();
      } else {
        const int gpu = gpuOf(a[edge.dst]);
        received_[e].ensure(gpu, plan_.carried[e], "a copy of '" + g_.node(edge.src).id + "'",
                            need[gpu]);
      }
    }
    for (int d = 0; d < devices; ++d)
      if (scratch[d] > 0)
        lanes_[d].scratch.ensure(lanes_[d].gpu, scratch[d], "attention scores", need[gpuOf(d)]);
    for (Lane& lane : lanes_) {
      check(cudaSetDevice(lane.gpu), "cudaSetDevice");
      check(cudaStreamSynchronize(lane.compute), "preparing operands");
    }
    std::fill(kernelUs_.begin(), kernelUs_.end(), 0.0);
  }

  void run(int v, int device) override {
    Lane& lane = lanes_[device];
    check(cudaSetDevice(lane.gpu), "cudaSetDevice");
    const cudaStream_t s = lane.compute;
    const CudaNodePlan& node = plan_.nodes[v];
    const KernelShape& shape = node.shape;
    check(cudaEventRecord(lane.start, s), "cudaEventRecord");
    // Read every input completely: the sum of their means shifts the operand.
    double* acc = lane.reduce + cuda::kReduceBlocks;
    check(cudaMemsetAsync(acc, 0, sizeof(double), s), "cudaMemsetAsync");
    for (int e : g_.inEdges(v)) {
      cuda::reduceSum(input(e), plan_.carried[e], lane.reduce, s);
      cuda::accumulateMean(lane.reduce, plan_.carried[e], acc, s);
    }
    cuda::makeShift(acc, 1e-3f * static_cast<float>(v % 1000), lane.shift, s);
    const std::vector<DeviceBuffer>& x = operands_[v];
    float* out = outputs_[v].data();
    const long n = node.output_elements;
    switch (node.op) {
      case CudaOp::Matmul:
        gemm(lane, node.gemms[0], x[0].data(), x[1].data(), out);
        cuda::addShift(out, n, lane.shift, s);
        break;
      case CudaOp::Attention: {
        float* q = lane.scratch.data();
        float* scores = q + shape.rows * shape.k;
        cuda::unary(cuda::UnaryFn::Identity, x[0].data(), lane.shift, q, shape.rows * shape.k, s);
        gemm(lane, node.gemms[0], q, x[1].data(), scores);
        cuda::rowSoftmax(scores, nullptr, scores, shape.rows, shape.rows, s);
        gemm(lane, node.gemms[1], scores, x[2].data(), out);
        break;
      }
      case CudaOp::Softmax:
        cuda::rowSoftmax(x[0].data(), lane.shift, out, shape.rows, shape.cols, s);
        break;
      case CudaOp::LayerNorm:
      case CudaOp::RmsNorm:
        cuda::rowNorm(node.op == CudaOp::RmsNorm, x[0].data(), lane.shift, out, shape.rows,
                      shape.cols, s);
        break;
      case CudaOp::Add:
      case CudaOp::Mul:
      case CudaOp::SiluMul:
        cuda::binary(node.op == CudaOp::Add   ? cuda::BinaryFn::Add
                     : node.op == CudaOp::Mul ? cuda::BinaryFn::Mul
                                              : cuda::BinaryFn::SiluMul,
                     x[0].data(), x[1].data(), lane.shift, out, n, s);
        break;
      default:
        cuda::unary(unaryFn(node.op), x[0].data(), lane.shift, out, n, s);
        break;
    }
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(lane.stop, s), "cudaEventRecord");
    check(cudaStreamSynchronize(s), "kernel");  // see the top of the file: the host clock times it
    float ms = 0;
    check(cudaEventElapsedTime(&ms, lane.start, lane.stop), "cudaEventElapsedTime");
    kernelUs_[v] = 1e3 * ms;
  }

  void receive(int e, int from, int to) override {
    const auto t0 = Clock::now();
    Lane& lane = lanes_[to];
    check(cudaSetDevice(lane.gpu), "cudaSetDevice");
    const Edge& edge = g_.edge(e);
    const DeviceBuffer& src = outputs_[edge.src];
    const size_t bytes = sizeof(float) * plan_.carried[e];
    if (src.gpu() == lane.gpu)
      check(cudaMemcpyAsync(received_[e].data(), src.data(), bytes, cudaMemcpyDeviceToDevice,
                            lane.copy),
            "cudaMemcpyAsync");
    else
      check(cudaMemcpyPeerAsync(received_[e].data(), lane.gpu, src.data(), src.gpu(), bytes,
                                lane.copy),
            "cudaMemcpyPeerAsync");
    check(cudaStreamSynchronize(lane.copy), "copy");
    if (spec_.pace_us) exec::paceCopy(t0, spec_.pace_us(e, from, to));
  }

  std::vector<double> outputDigest() const override {
    std::vector<double> digest;
    std::vector<float> host;
    for (int v = 0; v < g_.nodeCount(); ++v) {
      if (!g_.outEdges(v).empty() || !outputs_[v].data()) continue;
      host.resize(plan_.nodes[v].output_elements);
      check(cudaSetDevice(outputs_[v].gpu()), "cudaSetDevice");
      check(cudaMemcpy(host.data(), outputs_[v].data(), sizeof(float) * host.size(),
                       cudaMemcpyDeviceToHost),
            "reading a sink's output");
      double sum = 0;
      for (float f : host) sum += f;
      digest.push_back(sum);
    }
    return digest;
  }

  std::vector<double> kernelTimesUs() const override { return kernelUs_; }

  std::string copyPath() const override {
    if (gpus_ < 2) return "none";
    int pairs = 0, peers = 0;
    for (int i = 0; i < gpus_; ++i)
      for (int j = 0; j < gpus_; ++j)
        if (i != j) ++pairs, peers += peer_[i][j];
    return peers == pairs ? "peer" : peers == 0 ? "staged" : "mixed";
  }

 private:
  void addLane() {
    Lane& lane = lanes_.emplace_back();
    lane.gpu = physicalGpu(static_cast<int>(lanes_.size()) - 1, gpus_);
    check(cudaSetDevice(lane.gpu), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&lane.compute, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&lane.copy, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&lane.start), "cudaEventCreate");
    check(cudaEventCreate(&lane.stop), "cudaEventCreate");
    check(cudaMalloc(&lane.reduce, sizeof(double) * (cuda::kReduceBlocks + 1)), "cudaMalloc");
    check(cudaMalloc(&lane.shift, sizeof(float)), "cudaMalloc");
    checkBlas(cublas().create(&lane.blas), "cublasCreate");
    checkBlas(cublas().setStream(lane.blas, lane.compute), "cublasSetStream");
    // Plain float32 (no TF32 tensor cores): as the CPU backends compute, and deterministic.
    checkBlas(cublas().setMathMode(lane.blas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }

  // Row-major C = alpha A B (cuda_plan.h's GemmCall says how cuBLAS sees it).
  void gemm(Lane& lane, const GemmCall& call, const float* a, const float* b, float* c) {
    const float beta = 0;
    const SgemmArgs g = sgemmArgs(call);
    checkBlas(cublas().sgemm(lane.blas, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &call.alpha, b,
                             g.lda, a, g.ldb, &beta, c, g.ldc),
              "cublasSgemm");
  }

  static cuda::UnaryFn unaryFn(CudaOp op) {
    switch (op) {
      case CudaOp::Relu:
        return cuda::UnaryFn::Relu;
      case CudaOp::Gelu:
        return cuda::UnaryFn::Gelu;
      case CudaOp::Silu:
        return cuda::UnaryFn::Silu;
      case CudaOp::Sigmoid:
        return cuda::UnaryFn::Sigmoid;
      case CudaOp::Tanh:
        return cuda::UnaryFn::Tanh;
      default:
        return cuda::UnaryFn::Identity;
    }
  }

  // What node dst of edge e reads: a local producer's output (its first carried elements) or the
  // copy its device received.
  const float* input(int e) const {
    const Edge& edge = g_.edge(e);
    return a_[edge.src] == a_[edge.dst] ? outputs_[edge.src].data() : received_[e].data();
  }

  const DataflowGraph& g_;
  CudaKernelSpec spec_;
  CudaPlan plan_;
  Assignment a_;
  std::vector<std::vector<char>> peer_;  // [from GPU][to GPU]: peer access enabled
  std::deque<Lane> lanes_;               // per logical device (grows; a deque never moves them)
  std::vector<DeviceBuffer> outputs_;    // per node, on its device's GPU
  std::vector<std::vector<DeviceBuffer>> operands_;  // per node
  std::vector<DeviceBuffer> received_;               // per cross-device edge, on the consumer's GPU
  std::vector<double> kernelUs_;                     // per node, of the last run
};

}  // namespace

bool cudaBackendBuiltIn() {
  return true;
}

int cudaDeviceCount(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = describe(e);
    return 0;
  }
  if (count == 0 && why) *why = "the CUDA runtime sees no GPU";
  return count;
}

std::unique_ptr<CudaBackend> makeCudaBackend(const DataflowGraph& g, const CudaKernelSpec& spec) {
  std::string why;
  const int gpus = cudaDeviceCount(&why);
  if (gpus == 0) throw InputError("", "--kernels", "cuda: no CUDA device: " + why);
  return std::make_unique<CudaBackendImpl>(g, spec, gpus);
}

}  // namespace doppler::exec

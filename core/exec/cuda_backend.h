#pragma once
// The executor's CUDA backend (core/exec/executor.h): the same kernels as the LibTorch CPU backend
// (core/exec/cuda_plan.h) on NVIDIA GPUs, through the CUDA runtime and cuBLAS (Debian's LibTorch
// is CPU-only). Each logical device has a compute stream, a copy stream and a cuBLAS handle on
// GPU d mod count, so several logical devices may share one GPU. Transfers are peer copies when the
// GPUs can reach each other (cudaDeviceEnablePeerAccess), staged through the host by the driver
// otherwise, and device-to-device copies between logical devices on one GPU.
//
// Declared in plain C++: defined in cuda_backend.cpp when the build has CUDA (DOPPLER_CUDA), in
// cuda_backend_none.cpp otherwise, so callers need no CUDA headers and no #ifdef.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/executor.h"

namespace doppler::exec {

struct CudaKernelSpec {
  double size_factor = 1;  // multiplies every node's FLOPs and output bytes and every edge's bytes
  uint64_t seed = 1;       // the operands' values (outputs are deterministic given it)
  // Per cross-device edge: how long its copy should take (empty: as fast as the copy goes).
  std::function<double(int e, int from, int to)> pace_us;
};

class CudaBackend : public Backend {
 public:
  int gpuCount() const { return gpus_; }
  const std::vector<std::string>& gpuNames() const { return names_; }  // per physical GPU
  // Per node of the last run: its kernels' time on the GPU between two CUDA events (µs). The
  // executor's timeline is the host's steady clock around run(), which includes the launches.
  virtual std::vector<double> kernelTimesUs() const = 0;
  // How copies between different GPUs go: "peer" (every pair reaches the other), "staged" (through
  // the host), "mixed", or "none" (one GPU: copies between logical devices stay on it).
  virtual std::string copyPath() const = 0;

 protected:
  int gpus_ = 0;
  std::vector<std::string> names_;
};

// Whether this build has the CUDA backend.
bool cudaBackendBuiltIn();
// The GPUs the CUDA runtime sees (CUDA_VISIBLE_DEVICES applies); 0 when there are none or CUDA is
// unusable, with the reason in *why (the CUDA error's text, or that the build has no CUDA backend).
int cudaDeviceCount(std::string* why = nullptr);
// The backend for graph `g` (which must outlive it). Throws InputError when the build has no CUDA
// backend or no GPU is usable (naming the CUDA error); kernels and copies that fail later throw
// ExecError naming the CUDA or cuBLAS error.
std::unique_ptr<CudaBackend> makeCudaBackend(const DataflowGraph& g, const CudaKernelSpec& spec);

}  // namespace doppler::exec

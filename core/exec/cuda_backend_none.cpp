// The CUDA backend's functions in a build without CUDA (DOPPLER_CUDA off, or no toolkit found):
// they say so, so `doppler exec --kernels cuda` fails with a clear error instead of not linking.
#include "core/common/input_error.h"
#include "core/exec/cuda_backend.h"

namespace doppler::exec {
namespace {

constexpr const char* kNotBuilt =
    "this build has no CUDA backend (configure with the CUDA toolkit installed, or "
    "-DDOPPLER_CUDA=ON to require it)";

}  // namespace

bool cudaBackendBuiltIn() {
  return false;
}

int cudaDeviceCount(std::string* why) {
  if (why) *why = kNotBuilt;
  return 0;
}

std::unique_ptr<CudaBackend> makeCudaBackend(const DataflowGraph&, const CudaKernelSpec&) {
  throw InputError("", "--kernels", std::string("cuda: ") + kNotBuilt);
}

}  // namespace doppler::exec

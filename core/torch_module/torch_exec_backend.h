#pragma once
// The executor's LibTorch CPU backend (inside libdoppler_torch.so only: callers reach it through
// TorchModule::cpuBackend, torch_module.h).
#include <memory>

#include "core/exec/executor.h"
#include "core/exec/torch_kernels.h"

namespace doppler::train {

std::unique_ptr<exec::Backend> makeTorchCpuBackend(const DataflowGraph& g,
                                                   const exec::TorchKernelSpec& spec);

}  // namespace doppler::train

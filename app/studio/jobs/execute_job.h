#pragma once
// "Execute on CPU": the current placement run for real (core/exec): the snapshot's assignment,
// execution order and discipline on as many devices as it has (worker threads on CPU cores,
// standing in for GPUs). LibTorch kernels with the graph's shapes (sized so its work takes about
// kExecuteTargetMs) when the device set was fitted to this machine by `doppler calibrate`, the
// graph has op kinds and the LibTorch module is built; otherwise synthetic kernels sized so the
// simulated makespan takes that long (the simulation of a GPU preset says nothing about CPU
// kernels). The median of kExecuteRepeat runs, the outputs checked against one device. Runs on
// the job runner's Execution slot; plain data out.
#include "core/common/cancel_token.h"
#include "core/graph/device_set.h"
#include "views/common/measured_run.h"

namespace doppler::studio {

inline constexpr double kExecuteTargetMs = 100;
inline constexpr int kExecuteRepeat = 3;

// Whether `devices` was fitted to this machine's kernels (`doppler calibrate` writes per-op rates):
// then Execute on CPU runs LibTorch kernels.
bool calibratedHere(const DeviceSet& devices);

// Throws exec::ExecError (a kernel failed, the run was cancelled or timed out) or InputError.
views::MeasuredRun executeOnCpu(const views::SnapshotPtr& snapshot, const CancelToken& cancel);

// "Execute on GPU": the same on the CUDA backend (core/exec/cuda_backend.h), logical device d on
// GPU d mod count, kernels sized as `doppler exec --kernels cuda` sizes them. Throws InputError
// when the build has no CUDA backend or no GPU is usable (naming the CUDA error), ExecError as
// above.
views::MeasuredRun executeOnGpu(const views::SnapshotPtr& snapshot, const CancelToken& cancel);

}  // namespace doppler::studio

#include "app/studio/jobs/execute_job.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/common/input_error.h"
#include "core/exec/cuda_backend.h"
#include "core/exec/cuda_plan.h"
#include "core/exec/executor.h"
#include "core/exec/synthetic_backend.h"
#include "core/exec/torch_kernels.h"
#include "core/sim/simulator.h"
#include "core/train/torch_module.h"

namespace doppler::studio {

bool calibratedHere(const DeviceSet& devices) {
  for (const Device& d : devices.devices)
    if (!d.ops.empty()) return true;
  return false;
}

namespace {

// The simulated makespan of the work `factor` gives the kernels, over the snapshot's own: the
// measured microseconds per simulated one that lines the two timelines up.
double kernelScale(const views::PlacementSnapshot& s, double factor) {
  const double simUs = s.makespan();
  const CostTable kernelCosts(exec::kernelGraph(*s.graph, factor), *s.devices);
  const double kernelSimUs =
      Simulator(kernelCosts, s.settings.simOptions()).makespan(s.assignment, s.execution_order);
  return simUs > 0 ? kernelSimUs / simUs : 1;
}

// Runs the snapshot's placement on `backend` (and the single-device reference), and returns the
// measured run in simulated units.
views::MeasuredRun measure(const views::SnapshotPtr& snapshot, exec::Backend& backend, double scale,
                           const CancelToken& cancel) {
  const views::PlacementSnapshot& s = *snapshot;
  const DataflowGraph& graph = *s.graph;
  const int devices = s.devices->size();
  exec::ExecOptions options;
  options.discipline = s.settings.discipline;
  options.order = s.execution_order;
  options.repeat = kExecuteRepeat;
  options.timeout = std::chrono::milliseconds(120000);
  const exec::ExecResult result =
      exec::execute(graph, s.assignment, devices, backend, options, cancel);
  // The same graph on one device: the reference every placement must reproduce.
  exec::ExecOptions reference;
  reference.timeout = options.timeout;
  const exec::ExecResult single =
      exec::execute(graph, Assignment(graph.nodeCount(), 0), 1, backend, reference, cancel);

  views::MeasuredRun run;
  run.snapshot = snapshot;
  run.schedule = result.schedule;
  for (NodeSpan& span : run.schedule.nodes) {
    span.start_us /= scale;
    span.finish_us /= scale;
  }
  for (TransferSpan& span : run.schedule.transfers) {
    span.start_us /= scale;
    span.finish_us /= scale;
  }
  run.schedule.makespan_us /= scale;
  run.repeats_us = result.makespans_us;
  run.measured_makespan_us = result.measured_makespan_us;
  run.scale = scale;
  run.devices = devices;
  run.cores = result.cores;
  run.shared_cores = result.shared_cores;
  run.outputs_match =
      exec::digestDifference(result.output_digest, single.output_digest) <= 1e-6;  // as the CLI
  run.backend = backend.name();
  return run;
}

}  // namespace

views::MeasuredRun executeOnCpu(const views::SnapshotPtr& snapshot, const CancelToken& cancel) {
  const views::PlacementSnapshot& s = *snapshot;
  const DataflowGraph& graph = *s.graph;
  const int devices = s.devices->size();
  const double simUs = s.makespan();
  double scale = simUs > 0 ? kExecuteTargetMs * 1e3 / simUs : 1;

  // LibTorch kernels with the graph's shapes when the device set was fitted to this machine's
  // kernels (`doppler calibrate` writes per-op rates), the graph has op kinds and the module
  // loads; else synthetic work sized by cost. Real CPU kernels beside a simulation of other
  // devices (a GPU preset) would show the CPU's speed, not the placement's: errors of 10,000%.
  std::unique_ptr<exec::Backend> backend;
  if (calibratedHere(*s.devices) && train::torchModuleBuiltIn() && exec::hasTorchOps(graph)) {
    try {
      const train::TorchModule& torch = train::loadTorchModule();
      exec::TorchKernelSpec spec;
      spec.size_factor = exec::defaultSizeFactor(graph, devices, kExecuteTargetMs);
      backend = torch.cpuBackend(graph, spec);
      // The kernels take what they take; the simulation of the work they do sets the scale.
      scale = kernelScale(s, spec.size_factor);
    } catch (const InputError&) {
      backend.reset();  // the module is missing or stale: synthetic kernels still run
    }
  }
  if (!backend) {
    backend = std::make_unique<exec::CpuSyntheticBackend>(
        graph, exec::syntheticWork(graph, *s.costs, s.assignment, scale));
  }
  return measure(snapshot, *backend, scale, cancel);
}

views::MeasuredRun executeOnGpu(const views::SnapshotPtr& snapshot, const CancelToken& cancel) {
  const views::PlacementSnapshot& s = *snapshot;
  exec::CudaKernelSpec spec;
  spec.size_factor =
      exec::cudaDefaultSizeFactor(*s.graph, s.devices->size(), kExecuteTargetMs);  // as exec
  const std::unique_ptr<exec::CudaBackend> backend = exec::makeCudaBackend(*s.graph, spec);
  return measure(snapshot, *backend, kernelScale(s, spec.size_factor), cancel);
}

}  // namespace doppler::studio

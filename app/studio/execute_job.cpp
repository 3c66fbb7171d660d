#include "app/studio/execute_job.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/exec/executor.h"
#include "core/exec/synthetic_backend.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/input_error.h"
#include "core/sim/simulator.h"
#include "core/train/torch_module.h"

namespace doppler::studio {

views::MeasuredRun executeOnCpu(const views::SnapshotPtr& snapshot, const CancelToken& cancel) {
  const views::PlacementSnapshot& s = *snapshot;
  const DataflowGraph& graph = *s.graph;
  const int devices = s.devices->size();
  const double simUs = s.makespan();
  double scale = simUs > 0 ? kExecuteTargetMs * 1e3 / simUs : 1;

  // LibTorch kernels with the graph's shapes when the graph has op kinds and the module loads,
  // as `doppler exec --kernels auto` picks them; else synthetic work sized by cost.
  std::unique_ptr<exec::Backend> backendPtr;
  if (train::torchModuleBuiltIn() && exec::hasTorchOps(graph)) {
    try {
      const train::TorchModule& torch = train::loadTorchModule();
      exec::TorchKernelSpec spec;
      spec.size_factor = exec::defaultSizeFactor(graph, devices, kExecuteTargetMs);
      backendPtr = torch.cpuBackend(graph, spec);
      // The kernels take what they take; the simulation of the work they do (the graph scaled
      // by the size factor) sets the scale that lines the timelines up.
      const CostTable kernelCosts(exec::kernelGraph(graph, spec.size_factor), *s.devices);
      const double kernelSimUs =
          Simulator(kernelCosts, s.settings.simOptions()).makespan(s.assignment, s.execution_order);
      scale = simUs > 0 ? kernelSimUs / simUs : 1;
    } catch (const InputError&) {
      backendPtr.reset();  // the module is missing or stale: synthetic kernels still run
    }
  }
  if (!backendPtr) {
    exec::SyntheticWork work;
    for (int node = 0; node < graph.nodeCount(); ++node)
      work.compute_us.push_back(s.costs->compute(node, s.assignment[node]) * scale);
    for (const Edge& e : graph.edges()) work.bytes.push_back(e.bytes);
    backendPtr = std::make_unique<exec::CpuSyntheticBackend>(graph, std::move(work));
  }
  exec::Backend& backend = *backendPtr;

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

}  // namespace doppler::studio

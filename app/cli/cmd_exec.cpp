// `doppler exec`: run an assignment for real on local devices (core/exec) and put the measured
// makespan beside the simulated one. CPU cores stand in for GPUs: each device is a worker thread
// pinned to its own core, kernels are real LibTorch ops with the graph's shapes (in the LibTorch
// module, --kernels torch) or real arithmetic sized by each node's cost (--kernels synthetic),
// transfers are real copies. With --kernels cuda (or --devices cuda) the same kernels run on
// NVIDIA GPUs instead (core/exec/cuda_backend.h). The run is recorded with its simulated and its
// measured timeline.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/exec/cuda_backend.h"
#include "core/exec/cuda_plan.h"
#include "core/exec/executor.h"
#include "core/exec/synthetic_backend.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/graph_io.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/assignment_io.h"
#include "core/sim/cost_table.h"
#include "core/train/torch_module.h"
#include "interrupt.h"
#include "placement_json.h"
#include "run_recording.h"
#include "sessions/from_core.h"

namespace doppler::cli {
namespace {

struct ExecArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string assignment;
  SimArgs sim;
  int repeat = 3;
  double targetMs = 100;
  double scale = 0;
  bool pace = false;
  std::string kernels = "auto";  // torch, synthetic, cuda, or auto (torch when it can)
  double sizeFactor = 0;         // torch kernels: 0 sizes them for --target-ms
  bool verify = true;
  double timeoutS = 120;
  OutputArgs output;
  RecordArgs record;
};

constexpr double kDigestTolerance = 1e-6;  // relative: float sums of identical data

// `--devices local`: one default device per core of this machine; `--devices cuda`: one per GPU.
DeviceArgs resolveLocal(const DeviceArgs& args) {
  DeviceArgs local;
  if (args.devices == "local") {
    local.devices = std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  } else if (args.devices == "cuda") {
    std::string why;
    const int gpus = exec::cudaDeviceCount(&why);
    if (gpus == 0)
      throw InputError(
          "", "--devices",
          exec::cudaBackendBuiltIn() ? "cuda: no CUDA device: " + why : "cuda: " + why);
    local.devices = std::to_string(gpus);
  } else {
    return args;
  }
  return local;
}

SimResult asSimResult(const Schedule& s, int devices) {
  SimResult r;
  r.schedule = s;
  r.busy_us.assign(devices, 0);
  for (const NodeSpan& n : s.nodes) r.busy_us[n.device] += n.finish_us - n.start_us;
  for (double b : r.busy_us) r.utilization.push_back(s.makespan_us > 0 ? b / s.makespan_us : 0);
  for (const NodeSpan& n : s.nodes) r.order.push_back(n.node);
  std::stable_sort(r.order.begin(), r.order.end(),
                   [&](int x, int y) { return s.nodes[x].start_us < s.nodes[y].start_us; });
  return r;
}

void runExec(const ExecArgs& args) {
  const PlaceSettings settings = placeSettings(args.sim);
  if (args.repeat < 1) throw InputError("", "--repeat", "must be at least 1");
  if (!(args.targetMs > 0)) throw InputError("", "--target-ms", "must be positive");
  if (args.scale < 0) throw InputError("", "--time-scale", "must be positive");
  if (!(args.timeoutS > 0)) throw InputError("", "--timeout", "must be positive (seconds)");
  const Inputs in = loadInputs(args.graph, resolveLocal(args.devices));
  const int devices = in.devices.size();
  AssignmentFile file = parseAssignmentFile(readTextFile(args.assignment, 64u << 20), in.graph,
                                            devices, args.assignment);
  if (usesOrder(settings.discipline) && file.order.empty())
    throw InputError(args.assignment, "order",
                     std::string("the ") + toString(settings.discipline) +
                         " discipline needs an order, and the file has none (`doppler place "
                         "--json --out` writes one)");
  PlaceRequest request = placeRequest(in, settings);
  request.given = file.assignment;
  request.given_order = file.order;
  PlaceOutcome simulated;
  try {
    simulated = placeAndSimulate(request);
  } catch (const InputError& e) {
    throw e.file().empty() ? e.inFile(args.assignment) : e;
  }
  const double simUs = simulated.makespan();

  // CUDA kernels when asked (--kernels cuda, or --devices cuda with --kernels auto).
  if (args.devices.devices == "cuda" && args.kernels != "auto" && args.kernels != "cuda")
    throw InputError("", "--kernels",
                     "--devices cuda runs CUDA kernels: use --kernels cuda or auto");
  const bool useCuda = args.kernels == "cuda" || args.devices.devices == "cuda";

  // The kernels: LibTorch ops with the graph's shapes when the graph has op kinds and the module
  // is there (or when asked), else synthetic work sized by cost.
  const bool useTorch = [&] {
    if (args.kernels == "synthetic" || useCuda) return false;
    if (args.kernels == "torch") {
      train::loadTorchModule();  // InputError naming the module when it is missing
      return true;
    }
    if (!train::torchModuleBuiltIn() || !exec::hasTorchOps(in.graph)) return false;
    try {
      train::loadTorchModule();
      return true;
    } catch (const InputError& e) {
      std::cerr << "doppler exec: synthetic kernels (" << e.what() << ")\n";
      return false;
    }
  }();
  const bool shaped = useTorch || useCuda;  // kernels with the graph's shapes (torch_kernels.h)
  const std::string backendName = useCuda ? "cuda" : useTorch ? "cpu-torch" : "cpu-synthetic";
  if (!shaped && args.sizeFactor > 0)
    throw InputError("", "--size-factor", "applies to --kernels torch and cuda only");

  // Simulated microseconds become measured ones times `scale`. Synthetic kernels take their
  // node's simulated time x scale: by default the scale makes the simulated makespan take
  // --target-ms. Torch and CUDA kernels take what they take: their FLOPs and bytes are the
  // graph's x the size factor (by default sized for --target-ms on these cores or GPUs), and the
  // simulation beside them is of that graph (exec::kernelGraph), so `scale` is its makespan over
  // the unscaled one's.
  double sizeFactor = 0;
  double scaledSimUs = 0;
  DataflowGraph kernelGraph;
  if (shaped) {
    if (args.scale > 0) throw InputError("", "--time-scale", "applies to --kernels synthetic only");
    sizeFactor = args.sizeFactor > 0 ? args.sizeFactor
                 : useCuda           ? exec::cudaDefaultSizeFactor(in.graph, devices, args.targetMs)
                                     : exec::defaultSizeFactor(in.graph, devices, args.targetMs);
    kernelGraph = exec::kernelGraph(in.graph, sizeFactor);
    PlaceRequest scaled = request;
    scaled.graph = &kernelGraph;
    scaled.costs = nullptr;
    scaledSimUs = placeAndSimulate(scaled).makespan();
  }
  const double scale = shaped           ? (simUs > 0 ? scaledSimUs / simUs : 1)
                       : args.scale > 0 ? args.scale
                                        : (simUs > 0 ? args.targetMs * 1e3 / simUs : 1);
  if (!shaped) scaledSimUs = simUs * scale;
  const CostTable costs(in.graph, in.devices);
  exec::SyntheticWork work = exec::syntheticWork(in.graph, costs, file.assignment, scale);
  std::optional<CostTable> kernelCosts;
  if (shaped) kernelCosts.emplace(kernelGraph, in.devices);
  if (args.pace)
    work.pace_us = [&costs, scale](int e, int from, int to) {
      return costs.transfer(e, from, to) * scale;
    };
  exec::TorchKernelSpec kernelSpec;
  kernelSpec.size_factor = sizeFactor;
  if (args.pace && useTorch)
    kernelSpec.pace_us = [&kernelCosts](int e, int from, int to) {
      return kernelCosts->transfer(e, from, to);
    };
  // The CUDA backend is made here, before any run: no GPU (or no CUDA in this build) is a clear
  // error naming the reason, not a failed run.
  std::unique_ptr<exec::CudaBackend> cudaBackend;
  int gpuCount = 0;
  std::vector<std::string> gpuNames;
  std::string copyPath;
  if (useCuda) {
    exec::CudaKernelSpec cudaSpec;
    cudaSpec.size_factor = sizeFactor;
    if (args.pace)
      cudaSpec.pace_us = [&kernelCosts](int e, int from, int to) {
        return kernelCosts->transfer(e, from, to);
      };
    cudaBackend = exec::makeCudaBackend(in.graph, cudaSpec);
    gpuCount = cudaBackend->gpuCount();
    gpuNames = cudaBackend->gpuNames();
    copyPath = cudaBackend->copyPath();
    if (exec::sharesGpus(devices, gpuCount))
      std::cerr << "doppler exec: " << exec::gpuMappingNote(devices, gpuCount) << "\n";
  }
  const std::string deviceNote =
      useCuda
          ? "each device is a CUDA stream pair on a GPU: " + exec::gpuMappingNote(devices, gpuCount)
          : "CPU cores stand in for GPUs: each device is a worker thread on its own core";

  exec::ExecOptions opts;
  opts.discipline = settings.discipline;
  opts.order = file.order;
  opts.repeat = args.repeat;
  opts.timeout = std::chrono::milliseconds(static_cast<long>(args.timeoutS * 1000));
  if (!useCuda && static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) < devices)
    std::cerr << "doppler exec: " << devices << " devices on "
              << std::thread::hardware_concurrency()
              << " cores: devices share cores, so measured times include waiting for a core\n";

  sessions::RunSpec spec = runSpec("exec", "assignment", args.graph, args.devices,
                                   {{"assignment_file", absoluteIfFile(args.assignment)},
                                    {"backend", backendName},
                                    {"size_factor", sizeFactor},
                                    {"discipline", args.sim.discipline},
                                    {"repeat", args.repeat},
                                    {"scale", scale},
                                    {"pace", args.pace}});
  // From here Ctrl-C or SIGTERM stops the execution: the repeats that finished are reported,
  // marked partial, and the run is stored cancelled (none finished: nothing measured, exit 130).
  // Guarded before the run is stored, so a run shown as running always takes the signal.
  CancelToken cancel;
  const InterruptGuard guard(cancel);
  RunRecording rec(args.record, spec, in.graph, in.devices);
  exec::ExecResult result;
  std::optional<double> difference;
  std::vector<double> gpuKernelUs;  // CUDA: per device, the last repeat's kernels by CUDA events
  try {
    std::unique_ptr<exec::Backend> backendPtr;
    if (useCuda)
      backendPtr = std::move(cudaBackend);
    else if (useTorch)
      backendPtr = train::loadTorchModule().cpuBackend(in.graph, kernelSpec);
    else
      backendPtr = std::make_unique<exec::CpuSyntheticBackend>(in.graph, work);
    exec::Backend& backend = *backendPtr;
    result = exec::execute(in.graph, file.assignment, devices, backend, opts, cancel);
    if (useCuda) {
      gpuKernelUs.assign(devices, 0);
      const auto times = static_cast<exec::CudaBackend&>(backend).kernelTimesUs();
      for (int v = 0; v < in.graph.nodeCount(); ++v) gpuKernelUs[file.assignment[v]] += times[v];
    }
    if (args.verify && !result.cancelled) {
      // The same graph on one device, fifo: the reference every placement must reproduce.
      // (Same backend, its buffers reused; a single device makes no copies, so pacing is moot.)
      exec::ExecOptions ref;
      ref.timeout = opts.timeout;
      const auto reference =
          exec::execute(in.graph, Assignment(in.graph.nodeCount(), 0), 1, backend, ref);
      difference = exec::digestDifference(result.output_digest, reference.output_digest);
    }
  } catch (const exec::ExecError& e) {
    if (!cancel.cancelled() || InterruptGuard::received().empty()) {
      rec.fail(e.what());  // the recording is marked failed as it unwinds
      throw InputError(args.graph.graph, "exec", e.what());
    }
    if (result.makespans_us.empty()) {
      rec.savePlacement(in.graph, simulated, false);  // the simulation beside it is kept
      rec.finish(sessions::RunStatus::Cancelled);
      throw Interrupted("interrupted by " + InterruptGuard::received() +
                        " before the first execution finished: nothing was measured (the run is "
                        "stored cancelled, with its simulated timeline)");
    }
    // Interrupted during the single-device run that verifies the outputs: every execution was
    // measured, and is reported as partial, unverified.
    result.cancelled = true;
    difference.reset();
  } catch (const InputError& e) {
    throw e.file().empty() ? e.inFile(args.assignment) : e;
  }
  const bool match = difference && *difference <= kDigestTolerance;

  rec.savePlacement(in.graph, simulated, false);
  rec.save([&](sessions::RunStore& store, int64_t run) {
    store.saveTimeline(run, sessions::timelineRecord(in.graph, result.schedule, "measured"));
    std::map<std::string, double> figures = {{"measured_makespan_us", result.measured_makespan_us},
                                             {"makespan_us", simUs},
                                             {"scaled_simulated_makespan_us", scaledSimUs},
                                             {"lower_bound_us", simulated.lower_bound_us}};
    store.setFigures(run, figures);
  });
  const bool partial = result.cancelled;
  rec.finish(partial ? sessions::RunStatus::Cancelled : sessions::RunStatus::Finished);
  const SimResult measured = asSimResult(result.schedule, devices);
  writeRecordedResult(
      args.output, rec,
      [&] {
        nlohmann::json out = simResultJson(in.graph, measured);
        out["measured_makespan_us"] = result.measured_makespan_us;
        out["repeats_us"] = result.makespans_us;
        out["simulated_makespan_us"] = simUs;
        out["scale"] = scale;
        out["scaled_simulated_makespan_us"] = scaledSimUs;
        out["discipline"] = args.sim.discipline;
        out["backend"] = backendName;
        if (shaped) out["size_factor"] = sizeFactor;
        if (useCuda) {
          out["gpus"] = gpuNames;
          std::vector<int> physical;
          for (int d = 0; d < devices; ++d) physical.push_back(exec::physicalGpu(d, gpuCount));
          out["device_gpus"] = physical;
          out["shared_gpus"] = exec::sharesGpus(devices, gpuCount);
          out["copy_path"] = copyPath;
          out["gpu_kernel_us"] = gpuKernelUs;
        }
        out["devices"] = devices;
        out["cores"] = result.cores;
        out["shared_cores"] = result.shared_cores;
        out["paced_transfers"] = args.pace;
        out["note"] = deviceNote;
        if (partial) {
          out["partial"] = true;
          out["interrupted_by"] = InterruptGuard::received();
        }
        if (difference) {
          out["outputs_match"] = match;
          out["max_output_difference"] = *difference;
        }
        return out;
      },
      [&] {
        std::ostringstream s;
        s.precision(6);
        s << "measured     " << result.measured_makespan_us << " us (median of "
          << result.makespans_us.size()
          << (partial ? " of " + std::to_string(args.repeat) + ", interrupted" : std::string())
          << "; " << (useCuda ? deviceNote : "CPU cores stand in for GPUs") << ")\n";
        s << "simulated    " << scaledSimUs << " us (" << simUs << " us x scale " << scale << ", "
          << args.sim.discipline << ")\n";
        s << "kernels      " << backendName;
        if (shaped) s << " (FLOPs and bytes x " << sizeFactor << ")";
        s << "\n";
        s << "error        " << (result.measured_makespan_us - scaledSimUs) / scaledSimUs * 100
          << "%\n";
        if (partial) s << "outputs      not verified (interrupted)\n";
        if (difference)
          s << "outputs      " << (match ? "match" : "DIFFER") << " a single-device run (max "
            << *difference << ")\n";
        return s.str();
      });
  if (partial)
    throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                      std::to_string(result.makespans_us.size()) + " of " +
                      std::to_string(args.repeat) +
                      " executions: the measurement so far is above (partial)");
  if (difference && !match)
    throw InputError(args.graph.graph, "exec",
                     "the outputs differ from a single-device run (max relative difference " +
                         std::to_string(*difference) + ")");
}

}  // namespace

void addExecCommand(CLI::App& app) {
  auto args = std::make_shared<ExecArgs>();
  CLI::App* cmd = app.add_subcommand(
      "exec", "Execute an assignment for real on local devices (CPU cores stand in for GPUs)");
  addGraphOptions(*cmd, args->graph);
  cmd->add_option("--devices,-d", args->devices.devices,
                  "local (one device per core), cuda (one device per GPU, CUDA kernels), a "
                  "device-set/1 file, a preset, or N: the devices' costs size the kernels")
      ->required();
  cmd->add_option("--assignment,-a", args->assignment,
                  "Assignment JSON ({node: device}, or place --json output with its order)")
      ->required();
  addSimOptions(*cmd, args->sim, "Noise seed of the simulation beside it");
  addDisciplineOption(*cmd, args->sim.discipline);
  cmd->add_option("--repeat,-r", args->repeat, "Executions; the median is reported")
      ->capture_default_str();
  cmd->add_option("--target-ms", args->targetMs,
                  "Scale kernels so the simulated makespan takes this long here")
      ->capture_default_str();
  cmd->add_option("--time-scale", args->scale,
                  "Measured microseconds per simulated microsecond (overrides --target-ms)");
  cmd->add_option("--kernels", args->kernels,
                  "torch (LibTorch ops with the graph's shapes), cuda (the same on NVIDIA GPUs: "
                  "device d on GPU d mod count), synthetic (work sized by cost), or auto: torch "
                  "when the module is there and the graph has op kinds (cuda with --devices cuda)")
      ->check(CLI::IsMember({"auto", "torch", "cuda", "synthetic"}))
      ->capture_default_str();
  cmd->add_option("--size-factor", args->sizeFactor,
                  "Torch and CUDA kernels: multiply FLOPs and bytes by this (default: sized for "
                  "--target-ms)");
  cmd->add_flag("--pace", args->pace, "Stretch each copy to its link's simulated time");
  cmd->add_flag("!--no-verify", args->verify, "Skip the single-device run that checks the outputs");
  cmd->add_option("--timeout", args->timeoutS, "Seconds before the run is stopped")
      ->capture_default_str();
  addOutputOptions(*cmd, args->output);
  addRecordOptions(*cmd, args->record);
  cmd->callback([args] { runExec(*args); });
}

}  // namespace doppler::cli

#include "core/train/real_judge.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/common/input_error.h"
#include "core/exec/synthetic_backend.h"

namespace doppler::train {

namespace {

// Total compute of the graph if every node ran on its fastest device, spread over the devices:
// the reference that sizes synthetic kernels for the target time.
double spreadComputeUs(const CostTable& c) {
  double sum = 0;
  for (int v = 0; v < c.nodes(); ++v) {
    double best = c.compute(v, 0);
    for (int d = 1; d < c.devices(); ++d) best = std::min(best, c.compute(v, d));
    sum += best;
  }
  return sum / std::max(1, c.devices());
}

}  // namespace

ExecutionJudge::ExecutionJudge(const DataflowGraph& g, const DeviceSet& devices,
                               const TrainConfig& config, const CancelToken& cancel,
                               const TorchBackendFactory& torch)
    : g_(g), costs_(g, devices), cancel_(cancel) {
  const bool wantTorch = config.exec_kernels == "torch";
  if (wantTorch && !torch)
    throw InputError("", "--kernels", "torch kernels need the LibTorch module");
  if (wantTorch && !exec::hasTorchOps(g))
    throw InputError(g.name, "--kernels",
                     "torch kernels need op kinds (matmul, ...), and this graph carries costs only "
                     "(use --kernels synthetic)");
  const bool useTorch = config.exec_kernels != "synthetic" && torch && exec::hasTorchOps(g);
  const double reference = spreadComputeUs(costs_);
  if (useTorch) {
    // The kernels run the graph's FLOPs and bytes times a size factor that makes its work take
    // about the target time here; the judge's scale is how much longer that makes each node.
    sizeFactor_ = config.exec_size_factor > 0
                      ? config.exec_size_factor
                      : exec::defaultSizeFactor(g, costs_.devices(), config.exec_target_ms);
    exec::TorchKernelSpec spec;
    spec.size_factor = sizeFactor_;
    spec.seed = config.seed;
    torch_ = torch(g, spec);
    const CostTable scaled(exec::kernelGraph(g, sizeFactor_), devices);
    scale_ = reference > 0 ? spreadComputeUs(scaled) / reference : 1;
    backendName_ = "cpu-torch";
  } else {
    if (config.exec_size_factor > 0)
      throw InputError("", "--size-factor", "applies to torch kernels only");
    scale_ = reference > 0 ? config.exec_target_ms * 1e3 / reference : 1;
    backendName_ = "cpu-synthetic";
  }
  options_.discipline = config.sim.discipline;
  options_.repeat = static_cast<int>(config.exec_repeat);
  options_.timeout = std::chrono::milliseconds(static_cast<long>(config.exec_timeout_s * 1000));
}

ExecutionJudge::~ExecutionJudge() = default;

double ExecutionJudge::makespan(const Assignment& a, const std::vector<int>& order) {
  if (cancel_.cancelled()) throw EpisodeCancelled();
  exec::ExecOptions o = options_;
  if (usesOrder(o.discipline)) o.order = order;
  std::unique_ptr<exec::Backend> synthetic;
  if (!torch_) {
    // Synthetic kernels take their node's simulated time on its device, times the scale: a new
    // backend per placement, since the times follow the devices.
    synthetic =
        std::make_unique<exec::CpuSyntheticBackend>(g_, exec::syntheticWork(g_, costs_, a, scale_));
  }
  try {
    last_ = exec::execute(g_, a, costs_.devices(), torch_ ? *torch_ : *synthetic, o, cancel_);
  } catch (const exec::ExecError& e) {
    if (cancel_.cancelled()) throw EpisodeCancelled();
    throw InputError(g_.name, "exec", e.what());
  }
  ++executions_;
  return last_.measured_makespan_us;
}

std::string ExecutionJudge::describe() const {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string s = backendName_ + " kernels on " + std::to_string(costs_.devices()) +
                  " CPU devices standing in for GPUs, " + toString(options_.discipline) +
                  ", median of " + std::to_string(options_.repeat);
  if (costs_.devices() > cores)
    s += " (" + std::to_string(costs_.devices()) + " devices share " + std::to_string(cores) +
         " cores)";
  return s;
}

}  // namespace doppler::train

// The LibTorch module's entry point (libdoppler_torch.so): TorchModule over Policy and
// runTraining, and the executor's LibTorch CPU backend. Everything LibTorch-backed that the module
// links stays inside it.
#include <utility>

#include "core/fleet/learn/fleet_ppo.h"
#include "core/policy/network_forward.h"
#include "core/policy/policy.h"
#include "core/torch_module/torch_exec_backend.h"
#include "core/train/distributed.h"
#include "core/train/general_trainer.h"
#include "core/train/torch_module.h"
#include "core/train/train_job.h"

namespace doppler::train {
namespace {

class Module final : public TorchModule {
 public:
  std::unique_ptr<LoadedPolicy> loadPolicy(const std::string& checkpoint) const override {
    policy::keepPlacementMemory();  // before the first placement
    nlohmann::json meta;
    const policy::Policy p = policy::Policy::load(checkpoint, &meta);
    return std::make_unique<LoadedPolicy>(
        policy::weightsFromParameters(p.config(), p.parameters(), meta, checkpoint));
  }
  TrainResult train(const TrainRequest& request, const CancelToken& cancel,
                    const TrainProgressFn& progress) const override {
    return runTraining(request, cancel, progress, &makeTorchCpuBackend);
  }
  void setComputeThreads(int threads) const override { policy::setComputeThreads(threads); }
  std::unique_ptr<exec::Backend> cpuBackend(const DataflowGraph& g,
                                            const exec::TorchKernelSpec& spec) const override {
    return makeTorchCpuBackend(g, spec);
  }
  GeneralTrainResult trainGeneral(const GeneralTrainConfig& config, const std::string& from,
                                  const std::string& out, const DistConfig* dist,
                                  const CancelToken& cancel,
                                  const GeneralTrainProgressFn& progress) const override {
    std::unique_ptr<DataParallelGroup> group;
    if (dist && dist->world_size > 1) group = DataParallelGroup::connect(*dist);
    return doppler::train::trainGeneral(config, from, out, group.get(), cancel, progress);
  }
  std::shared_ptr<const fleet::learn::FleetActor> loadFleetPolicy(
      const std::string& checkpoint) const override {
    return fleet::learn::loadFleetActor(checkpoint);
  }
  uint64_t fleetAbi() const override { return fleet::learn::fleetModuleAbi(); }
  fleet::learn::FleetTrainResult trainFleet(
      const fleet::learn::FleetTrainRequest& request, const CancelToken& cancel,
      const fleet::learn::FleetTrainProgressFn& progress) const override {
    return fleet::learn::trainFleetPpo(request, cancel, progress);
  }
};

}  // namespace
}  // namespace doppler::train

extern "C" __attribute__((visibility("default"))) const doppler::train::TorchModule*
doppler_torch_module(uint64_t abi) {
  static const doppler::train::Module module;
  return abi == doppler::train::torchModuleAbi() ? &module : nullptr;
}

// The LibTorch module's entry point (libdoppler_torch.so): TorchModule over Policy and
// runTraining, and the executor's LibTorch CPU backend. Everything LibTorch-backed that the module
// links stays inside it.
#include <malloc.h>

#include <mutex>
#include <utility>

#include "core/fleet/learn/fleet_ppo.h"
#include "core/policy/policy.h"
#include "core/train/distributed.h"
#include "core/train/general_trainer.h"
#include "core/train/torch_exec_backend.h"
#include "core/train/torch_module.h"
#include "core/train/train_job.h"

namespace doppler::train {
namespace {

// A placement allocates and frees tensors of a few MB op after op. Under glibc's defaults each
// one above the mmap threshold (128 KB at first; it rises only after such a block is freed) is a
// fresh mapping whose pages fault in again, which made a fresh process's first placement of
// LLAMA-LAYER about 60 ms against 10 ms for the next ones. Served from the heap, and with freed
// heap kept, later tensors reuse pages already touched: the first placement takes about 30 ms.
// The process keeps up to 512 MB of freed heap in exchange; a policy is loaded to place many
// graphs (the studio) or one (the CLI), so that is memory it would touch again.
void keepTensorMemory() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  });
}

class CheckpointPolicy final : public LoadedPolicy {
 public:
  explicit CheckpointPolicy(const std::string& path)
      : policy_(policy::Policy::load(path, &meta_)) {}
  const policy::PolicyConfig& architecture() const override { return policy_.config(); }
  const nlohmann::json& meta() const override { return meta_; }
  policy::PolicyScores scores(const policy::GraphFeatures& features) const override {
    return policy_.scores(features);
  }

 private:
  nlohmann::json meta_;  // filled while policy_ loads (declared first)
  policy::Policy policy_;
};

class Module final : public TorchModule {
 public:
  std::unique_ptr<LoadedPolicy> loadPolicy(const std::string& checkpoint) const override {
    keepTensorMemory();  // before the policy's first tensor
    return std::make_unique<CheckpointPolicy>(checkpoint);
  }
  TrainResult train(const TrainRequest& request, const CancelToken& cancel,
                    const TrainProgressFn& progress) const override {
    return runTraining(request, cancel, progress, &makeTorchCpuBackend);
  }
  void setComputeThreads(int threads) const override { policy::setComputeThreads(threads); }
  std::string blasLibrary() const override { return policy::loadedBlasLibrary(); }
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

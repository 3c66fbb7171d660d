#pragma once
// The LibTorch half of Doppler Studio (policy networks, training, checkpoints) is a module,
// libdoppler_torch.so, opened on first use: `doppler place` and the studio's start-up never load
// LibTorch, and nothing outside the module includes a LibTorch header. This is its interface:
// plain structs in and out (train_job.h, train_progress.h, episode.h), no tensors.
//
//   const TorchModule& torch = loadTorchModule();   // dlopen on the first call
//   auto policy = torch.loadPolicy("sim.pt");       // InputError naming the file if unreadable
//   (or openPolicy in loaded_policy.h, which reads exported weights without the module)
//   const PolicyScores scores = policy->scores(features);
//   policy::Episode episode(costs, features, &scores);   // then step: ready(), place(), ...
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/common/cancel_token.h"
#include "core/exec/executor.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/policy_config.h"
#include "core/train/distributed.h"
#include "core/train/general_trainer.h"
#include "core/train/loaded_policy.h"
#include "core/train/train_config.h"
#include "core/train/train_job.h"
#include "core/train/train_progress.h"

// TORTA's learned fleet policy crosses this interface too. Its types are declared here, not
// included: the fleet (core/fleet/learn, fleet_actor.h and fleet_train.h) sits above the training
// code and includes this file; callers of loadFleetPolicy and trainFleet include those headers.
namespace doppler::fleet::learn {
class FleetActor;
struct FleetTrainRequest;
struct FleetTrainProgress;
struct FleetTrainResult;
using FleetTrainProgressFn = std::function<void(const FleetTrainProgress&)>;
}  // namespace doppler::fleet::learn

namespace doppler::train {

class TorchModule {
 public:
  virtual ~TorchModule() = default;
  // Reads a checkpoint completely (architecture, metadata, weights) into plain weights (placing
  // runs without LibTorch from then on; see loaded_policy.h, whose openPolicy is the usual way in).
  // Throws InputError naming the file when it is missing, not a Doppler policy checkpoint, or
  // damaged.
  virtual std::unique_ptr<LoadedPolicy> loadPolicy(const std::string& checkpoint) const = 0;
  // runTraining (train_job.h), on the calling thread.
  virtual TrainResult train(const TrainRequest& request, const CancelToken& cancel,
                            const TrainProgressFn& progress) const = 0;
  // LibTorch's intra-op threads and OpenBLAS's threads (0 leaves them as they are).
  virtual void setComputeThreads(int threads) const = 0;
  // The executor's LibTorch CPU backend (core/exec/torch_kernels.h): real LibTorch ops shaped by
  // each node, one intra-op thread. `g` must outlive the backend.
  virtual std::unique_ptr<exec::Backend> cpuBackend(const DataflowGraph& g,
                                                    const exec::TorchKernelSpec& spec) const = 0;
  // TORTA's learned fleet policy (core/fleet/learn): a checkpoint as an actor (InputError naming
  // the file when unreadable), and training it on the calling thread.
  virtual std::shared_ptr<const fleet::learn::FleetActor> loadFleetPolicy(
      const std::string& checkpoint) const = 0;
  // The general policy (general_trainer.h) on the calling thread; with `dist`, this process joins
  // that data-parallel group first (DistributedError when it cannot, or when a worker fails).
  virtual GeneralTrainResult trainGeneral(const GeneralTrainConfig& config, const std::string& from,
                                          const std::string& out, const DistConfig* dist,
                                          const CancelToken& cancel,
                                          const GeneralTrainProgressFn& progress) const = 0;
  // The fleet's own interface check (fleetModuleAbi, fleet_train.h), as the module was built: the
  // fleet's types cannot be part of torchModuleAbi, which is computed below the fleet.
  virtual uint64_t fleetAbi() const = 0;
  virtual fleet::learn::FleetTrainResult trainFleet(
      const fleet::learn::FleetTrainRequest& request, const CancelToken& cancel,
      const fleet::learn::FleetTrainProgressFn& progress) const = 0;
};

// The module, opened on the first call (thread-safe) and kept for the life of the process. It is
// looked for as $DOPPLER_TORCH_MODULE when that is set, else next to the executable, else in
// ../lib/doppler/ from the executable's folder (the installed layout), else in its parent folder
// (the build tree's layout for the studio). Throws InputError naming
// the file when it is missing, cannot be loaded, or was built from another version of this
// interface, and when this build has no LibTorch at all (DOPPLER_TORCH=OFF).
const TorchModule& loadTorchModule();

// The module's file name, and whether this build has one (DOPPLER_TORCH).
constexpr const char* kTorchModuleFile = "libdoppler_torch.so";
bool torchModuleBuiltIn();

// Checked when the module is opened: a module built from other definitions of the structs that
// cross its interface is refused instead of misread. Bump the version whenever the interface
// changes in a way the sizes do not show.
constexpr uint64_t torchModuleAbi() {
  uint64_t h = 6;  // interface version
  for (uint64_t size :
       {sizeof(TrainRequest), sizeof(TrainConfig), sizeof(TrainResult), sizeof(TrainProgress),
        sizeof(policy::PolicyScores), sizeof(policy::PolicyConfig), sizeof(policy::NetworkWeights),
        sizeof(policy::GraphFeatures), sizeof(policy::EpisodeResult), sizeof(DataflowGraph),
        sizeof(DeviceSet), sizeof(Device), sizeof(Node), sizeof(CancelToken),
        sizeof(nlohmann::json), sizeof(exec::TorchKernelSpec), sizeof(GeneralTrainConfig),
        sizeof(GeneralTrainResult), sizeof(DistConfig)})
    h = h * 1000003 + size;
  return h;
}

}  // namespace doppler::train

// The module's one exported symbol: its TorchModule, or null when `abi` is not its own.
extern "C" using DopplerTorchModuleEntry = const doppler::train::TorchModule * (*)(uint64_t abi);

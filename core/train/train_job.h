#pragma once
// A training run as one plain function, for whichever thread a job runner gives it: the request
// owns its inputs (graph, devices, configuration, where the policy comes from), progress arrives
// through the callback on the calling thread, the cancel token stops it between updates, and the
// result comes back by value. No LibTorch header; the implementation lives in the LibTorch
// module (core/train/torch_module.h: TorchModule::train calls it).
#include <string>

#include "core/common/cancel_token.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/policy/policy_config.h"
#include "core/train/real_judge.h"
#include "core/train/train_config.h"
#include "core/train/train_progress.h"

namespace doppler::train {

struct TrainRequest {
  DataflowGraph graph;
  DeviceSet devices;
  TrainConfig config;  // graph_name defaults to graph.name
  // The policy: from the checkpoint `from` (resumed when it is an unfinished run of the same
  // stage on the same graph and devices, else its weights only), or new with this architecture
  // and weights seeded by config.seed.
  policy::PolicyConfig architecture;
  std::string from;
};

// Trains as `doppler train` does and writes config.checkpoint_path (when set) at the end.
// Throws InputError for a bad configuration or checkpoint.
// Stage III executes each judged placement (real_judge.h) with `torchKernels` when the graph has
// op kinds (the LibTorch module passes its CPU backend), else with synthetic kernels.
TrainResult runTraining(const TrainRequest& request, const CancelToken& cancel = {},
                        const TrainProgressFn& progress = {},
                        const TorchBackendFactory& torchKernels = {});

}  // namespace doppler::train

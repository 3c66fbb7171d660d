#include "core/train/train_job.h"

#include "core/train/trainer.h"

namespace doppler::train {

TrainResult runTraining(const TrainRequest& request, const CancelToken& cancel,
                        const TrainProgressFn& progress, const TorchBackendFactory& torchKernels) {
  TrainConfig config = request.config;
  config.validate();
  if (config.graph_name.empty()) config.graph_name = request.graph.name;
  policy::Policy policy = request.from.empty() ? policy::Policy(request.architecture, config.seed)
                                               : policy::Policy::load(request.from);
  const CostTable costs(request.graph, request.devices);
  std::unique_ptr<ExecutionJudge> judge;
  if (config.stage == Stage::Real)
    judge = std::make_unique<ExecutionJudge>(request.graph, request.devices, config, cancel,
                                             torchKernels);
  Trainer trainer(costs, policy, config, judge.get());
  if (!request.from.empty()) trainer.resumeFrom(request.from);
  return trainer.run(progress, cancel);
}

}  // namespace doppler::train

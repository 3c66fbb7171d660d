#pragma once
// Stage III's judge: an episode's placement is executed for real (core/exec, CPU cores standing
// in for GPUs) and its makespan is the median of TrainConfig::exec_repeat executions. Plain C++:
// the LibTorch kernels come through a factory, which the LibTorch module fills in
// (torch_exec_backend.h); without one, graphs run synthetic kernels sized by cost.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/exec/executor.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/sim/cost_table.h"
#include "core/train/train_config.h"
#include "core/train/trainer.h"

namespace doppler::train {

using TorchBackendFactory = std::function<std::unique_ptr<exec::Backend>(
    const DataflowGraph& g, const exec::TorchKernelSpec& spec)>;

class ExecutionJudge final : public EpisodeJudge {
 public:
  // `g` and `devices` must outlive the judge. Kernels: config.exec_kernels ("torch"
  // needs `torch` and a graph with op kinds; "auto" takes them when it can). Throws InputError
  // naming --kernels when torch kernels are asked for and cannot run.
  ExecutionJudge(const DataflowGraph& g, const DeviceSet& devices, const TrainConfig& config,
                 const CancelToken& cancel, const TorchBackendFactory& torch = {});
  ~ExecutionJudge() override;

  double makespan(const Assignment& a, const std::vector<int>& order) override;
  double scale() const override { return scale_; }
  std::string describe() const override;

  const std::string& backendName() const { return backendName_; }
  double sizeFactor() const { return sizeFactor_; }  // torch kernels' FLOPs and bytes factor
  long executions() const { return executions_; }    // placements judged so far
  const exec::ExecResult& last() const { return last_; }

 private:
  const DataflowGraph& g_;
  const CostTable costs_;
  CancelToken cancel_;  // a handle on the run's token
  exec::ExecOptions options_;
  std::unique_ptr<exec::Backend> torch_;  // made once: its kernels depend on the graph only
  std::string backendName_;
  double sizeFactor_ = 0, scale_ = 1;
  long executions_ = 0;
  exec::ExecResult last_;
};

}  // namespace doppler::train

#pragma once
// TORTA's networks (LibTorch; only the module's fleet files include this): the policy (a
// Gaussian over actionSize values, MLP obs -> h -> h -> mean, state-independent log std), the
// value (the same trunk shape, separate weights, scalar) and the demand predictor (MLP
// 5n + 2 -> 256 -> 256 -> n; TORTA's 15R -> 512 -> 256 -> R with softmax predicts shares, this
// one predicts each region's log-ratio to its recent mean, so totals are learned too). The
// checkpoint holds all three, the metadata and the optimiser's state.
#include <torch/torch.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/fleet/learn/fleet_actor.h"

namespace doppler::fleet::learn {

struct FleetNetsImpl : torch::nn::Module {
  FleetNetsImpl(int regions, int hidden, double init_log_std);
  torch::Tensor mean(const torch::Tensor& obs);    // [B, actionSize]
  torch::Tensor value(const torch::Tensor& obs);   // [B]
  torch::Tensor predict(const torch::Tensor& in);  // [B, n]

  int regions, hidden;
  torch::nn::Sequential policy{nullptr}, critic{nullptr}, predictor{nullptr};
  torch::Tensor log_std;
};
TORCH_MODULE(FleetNets);

// Saves nets, metadata (with "regions", "hidden") and, when given, the optimiser (atomically:
// written to path.tmp, then renamed). InputError naming the file when it cannot be written.
void saveFleetCheckpoint(const std::string& path, FleetNets& nets, const nlohmann::json& meta,
                         torch::optim::Optimizer* optimizer);
// Reads a checkpoint: InputError naming the file when it is missing, not a fleet policy, or
// damaged. `optimizer` (optional) is restored when the checkpoint has its state.
FleetNets loadFleetCheckpoint(const std::string& path, nlohmann::json* meta,
                              torch::optim::Optimizer* optimizer = nullptr);

// FleetActor over nets (shared with the trainer while it trains; the trainer does not update
// them while a run uses the actor).
std::shared_ptr<const FleetActor> makeFleetActor(FleetNets nets, nlohmann::json meta,
                                                 bool has_predictor);

}  // namespace doppler::fleet::learn

namespace doppler::fleet::learn {
// Restores the optimiser's state from a checkpoint that has one (false when it has none).
bool restoreFleetOptimizer(const std::string& path, torch::optim::Optimizer& optimizer);
}  // namespace doppler::fleet::learn

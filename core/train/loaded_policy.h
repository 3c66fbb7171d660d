#pragma once
// A policy loaded to place graphs: its weights as plain floats, and the plain forward pass over
// them (core/policy/network_forward.h). It opens from a weights file (`doppler policy export`)
// without LibTorch, or from a LibTorch checkpoint through the module (torch_module.h), which
// converts it. Either way the scores come from the same code, so a checkpoint and the weights
// exported from it place alike; only training runs LibTorch's forward pass.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/network_weights.h"
#include "core/policy/policy_config.h"

namespace doppler::train {

class LoadedPolicy {
 public:
  explicit LoadedPolicy(policy::NetworkWeights weights) : weights_(std::move(weights)) {}
  const policy::PolicyConfig& architecture() const { return weights_.config; }
  // The metadata the trainer stored (stage, episodes_done, fingerprint, train_config, ...).
  const nlohmann::json& meta() const { return weights_.meta; }
  // The network's outputs for one graph and device set (one forward pass; empty for a graph
  // without nodes): an Episode steps through them, evaluateScores (evaluation.h) decides from them.
  policy::PolicyScores scores(const policy::GraphFeatures& features) const;
  const policy::NetworkWeights& weights() const { return weights_; }

 private:
  policy::NetworkWeights weights_;
};

// A weights file (doppler-policy-weights/1) is read in plain C++; any other file is opened as a
// LibTorch checkpoint through the module (which loads LibTorch). InputError naming the file when
// it is missing, damaged or neither, or when it is a checkpoint and this build has no LibTorch.
// Also sets the process up for placing (policy::keepPlacementMemory).
std::unique_ptr<LoadedPolicy> openPolicy(const std::string& path);

}  // namespace doppler::train

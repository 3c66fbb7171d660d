#pragma once
// LibTorch internals of the policy, private to the LibTorch module: shared by
// core/policy/policy_network.cpp, core/policy/policy_checkpoint.cpp and core/train/trainer.cpp
// only (each translation unit that includes LibTorch costs ~20 s to compile; keep it at three).
#include <torch/torch.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/policy.h"
#include "core/policy/rollout.h"

namespace doppler::policy {

struct NetImpl : torch::nn::Module {
  explicit NetImpl(const PolicyConfig& c);
  PolicyConfig cfg;
  // Encoder: input projection, edge network (gate and bias per message), message projection
  // (forward and backward halves), GRU update.
  torch::nn::Linear in_proj{nullptr}, edge1{nullptr}, edge2{nullptr}, msg{nullptr};
  torch::nn::GRUCell gru{nullptr};
  // SEL: [sel_z(X) | H | sum over b-path | sum over t-path] -> sel1 -> LeakyReLU -> sel2.
  torch::nn::Linear sel_z{nullptr}, sel1{nullptr}, sel2{nullptr};
  // PLC: [LeakyReLU(plc_y(Y_d)) | plc_z(X_v) | H_v | sum of H on d] -> plc1 -> LeakyReLU -> plc2.
  torch::nn::Linear plc_y{nullptr}, plc_z{nullptr}, plc1{nullptr}, plc2{nullptr};
};
TORCH_MODULE(Net);

// One graph's features as tensors (built once per graph, reused by every episode on it).
struct GraphTensors {
  int n = 0, devices = 0;
  torch::Tensor x, msg_index, msg_dst, msg_x, in_norm, bnode, bmem, tnode, tmem;
  float path_norm = 1, member_norm = 1;
};
GraphTensors toTensors(const GraphFeatures& f);

// The network's per-episode outputs: SEL's logit for every node, PLC's node term (everything of
// plc1's pre-activation that depends on the node only, bias included) and member term (each
// node's contribution to its device's summed embeddings, through plc1, scaled by member_norm).
// The plain float copies (PolicyScores, with PLC's per-device weights) drive the rollout without
// LibTorch calls; with grad, the tensors keep the autograd graph for the batched recompute.
struct Prepared : PolicyScores {
  torch::Tensor sel_logits, plc_node, plc_member;
};
Prepared prepare(Net& net, const GraphTensors& g, bool grad);

// The batched recompute, per step (autograd through the Prepared tensors and the PLC weights).
struct StepTerms {
  torch::Tensor sel_logp, plc_logp;        // log-probability of the taken decisions
  torch::Tensor sel_entropy, plc_entropy;  // entropy of each step's distributions
  torch::Tensor sel_target, plc_target;    // log of the probability of the teacher's ties
  torch::Tensor plc_log_probs;             // steps x devices (undefined if PLC is heuristic)
};
StepTerms recompute(Net& net, const Prepared& p, const Rollout& r, int devices, bool targets);

struct Policy::Impl {
  PolicyConfig config;
  Net net{nullptr};
};

// Writes `archive` to `path` through a temporary file and a rename, so a crash or a full disk
// never leaves a half-written checkpoint where a good one was. InputError naming the file.
// (The fleet policy's checkpoints use it too.)
void saveArchiveAtomically(torch::serialize::OutputArchive& archive, const std::string& path);

// Checkpoint archive: format tag, architecture, metadata JSON, parameters and optionally the
// optimiser's state. Written to a temporary file and renamed.
// `extra`: further tensors (the trainer's best parameters so far), stored in order.
void writeCheckpoint(const std::string& path, const Policy::Impl& impl, const nlohmann::json& meta,
                     torch::optim::Optimizer* optimizer,
                     const std::vector<torch::Tensor>* extra = nullptr);
// Reads the architecture (always) and metadata; loads parameters into `impl` when given (refusing
// another architecture) and the optimiser's state when given and present. Returns the metadata.
// Without `impl`, `make` (when given) builds one for the stored architecture to load into: one
// read of the file for a policy whose architecture is known only from it.
nlohmann::json readCheckpoint(const std::string& path, PolicyConfig* config, Policy::Impl* impl,
                              torch::optim::Optimizer* optimizer, bool* had_optimizer = nullptr,
                              std::vector<torch::Tensor>* extra = nullptr,
                              const std::function<Policy::Impl*(const PolicyConfig&)>& make = {});

}  // namespace doppler::policy

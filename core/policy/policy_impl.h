#pragma once
// LibTorch internals of the policy, shared by core/policy/policy.cpp and core/train/trainer.cpp
// only (each translation unit that includes LibTorch costs ~20 s to compile; keep it at two).
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "core/policy/features.h"
#include "core/policy/policy.h"

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
// Plain float copies (and PLC's per-device weights) drive the rollout without LibTorch calls.
struct Prepared {
  torch::Tensor sel_logits, plc_node, plc_member;
  std::vector<float> sel, node, member;
  std::vector<float> wy1, by1, wy, w2;  // plc_y weight/bias, plc1's device columns, plc2 weight
  int hh = 0, dh = 0;
};
// With grad, the tensors keep the autograd graph for the batched recompute.
Prepared prepare(Net& net, const GraphTensors& g, bool grad);

struct RolloutOptions {
  EpisodeOptions episode;
  bool teacher_targets = false;  // record the critical-path teacher's tie sets (imitation)
  double teacher_mix = 0;        // probability of following the teacher's decision at a step
  bool keep_batch = false;       // record what the batched recompute needs
  // Exploration around a known placement (stage II: the best episode so far): each node takes
  // its device in `guide` except, with probability guide_deviate, a device drawn from PLC's
  // distribution over the other devices. SEL decides as usual.
  const Assignment* guide = nullptr;
  double guide_deviate = 0;
};

// What one episode leaves for the batched recompute of its log-probabilities.
struct Rollout {
  EpisodeResult result;
  std::vector<int64_t> nodes, devices;      // per step
  std::vector<float> dev_x;                 // steps x devices x kDeviceFeatures
  std::vector<uint8_t> allowed;             // steps x devices, empty if everything is allowed
  std::vector<int64_t> cand, cand_step;     // SEL's ready sets, ragged
  std::vector<int64_t> tie_cand, tie_step;  // teacher's node ties, ragged
  std::vector<uint8_t> tie_dev;             // teacher's device ties, steps x devices
  int sel_agree = 0, plc_agree = 0, both_agree = 0;  // greedy choice within the teacher's ties
};
Rollout rollout(const Prepared& p, const CostTable& costs, const GraphFeatures& f,
                const RolloutOptions& o);

// The Rollout record of a given decision sequence (`order`, and each node's device in
// `assignment`), replayed through the episode state: what the batched recompute needs to score
// those decisions under the current network (self-imitation of the best episode so far).
Rollout replay(const CostTable& costs, const GraphFeatures& f, const std::vector<int>& order,
               const Assignment& assignment, const EpisodeOptions& o);

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

// Checkpoint archive: format tag, architecture, metadata JSON, parameters and optionally the
// optimiser's state. Written to a temporary file and renamed.
// `extra`: further tensors (the trainer's best parameters so far), stored in order.
void writeCheckpoint(const std::string& path, const Policy::Impl& impl, const nlohmann::json& meta,
                     torch::optim::Optimizer* optimizer,
                     const std::vector<torch::Tensor>* extra = nullptr);
// Reads the architecture (always) and metadata; loads parameters into `impl` when given (refusing
// another architecture) and the optimiser's state when given and present. Returns the metadata.
nlohmann::json readCheckpoint(const std::string& path, PolicyConfig* config, Policy::Impl* impl,
                              torch::optim::Optimizer* optimizer, bool* had_optimizer = nullptr,
                              std::vector<torch::Tensor>* extra = nullptr);

}  // namespace doppler::policy

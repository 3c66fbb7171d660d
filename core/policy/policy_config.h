#pragma once
// The dual policy's plain data (no LibTorch): its architecture, how an episode decides, and what
// an episode leaves behind. The CLI, the run store and the studio use these without loading the
// network (core/train/torch_module.h loads it on first use).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/policy/features.h"
#include "core/sim/schedule.h"

namespace doppler::policy {

// Bumped whenever the network's structure or its inputs change: older checkpoints are then
// refused as another architecture instead of loading into the wrong places.
// 2: program-order node features and PLC's sibling features (16 device features).
// 3: the same and PLC's join look-ahead (18 device features). A build reads both: the version
// follows from PolicyConfig::device_features.
constexpr int kArchitectureVersion = 3;

// The architecture. Every size is configurable; a checkpoint records it and is refused by a
// policy of another architecture.
struct PolicyConfig {
  int hidden = 128;        // node embedding width
  int mp_steps = 6;        // message-passing steps (shared weights, GRU update)
  int edge_hidden = 32;    // hidden width of the edge network that conditions messages
  int head_hidden = 64;    // hidden width of the SEL and PLC decoders
  int device_hidden = 32;  // width of PLC's per-device feature embedding
  // How many of the per-device features PLC reads: 16 (architecture 2) or 18 (3, with the join
  // look-ahead; see EpisodeState::deviceFeatures).
  int device_features = kDeviceFeaturesV2;

  nlohmann::json toJson() const;
  static PolicyConfig fromJson(const nlohmann::json& j);  // throws InputError on bad values
  void validate() const;                                  // throws InputError
  bool operator==(const PolicyConfig&) const = default;
  std::string describe() const;  // "hidden=128 mp_steps=6 ..."
  int version() const;           // the architecture version (2 or 3) device_features implies
};

enum class DecisionMode { Greedy, Sample, EpsilonGreedy };
// Where each half of a decision comes from: the learned policy, or the critical-path heuristic
// (the dual-policy ablation: learned SEL with the heuristic's earliest-start device, or the
// heuristic's bottom-level order with learned PLC).
enum class Component { Learned, Heuristic };
DecisionMode parseDecisionMode(const std::string& s);  // greedy, sample, epsilon-greedy
const char* toString(DecisionMode m);

struct EpisodeOptions {
  DecisionMode mode = DecisionMode::Greedy;
  // With probability epsilon a uniform choice (every mode), else: the most probable (Greedy,
  // EpsilonGreedy) or a sample from the policy (Sample).
  double epsilon = 0;
  uint64_t seed = 1;
  Component sel = Component::Learned, plc = Component::Learned;
  // Optional nodes x devices mask (1 = allowed, row-major); empty allows everything. A masked
  // device is never chosen; a node with no allowed device is an InputError.
  std::vector<uint8_t> allowed;
  bool record_probs = true;  // fill EpisodeStep's candidates and probabilities
};

struct EpisodeStep {
  int node = -1, device = -1;
  std::vector<int> candidates;   // the ready set SEL chose from (node indices)
  std::vector<float> sel_probs;  // SEL's probability of each candidate (heuristic: 1 on its pick)
  std::vector<float> plc_probs;  // PLC's probability of each device
};

struct EpisodeResult {
  Assignment assignment;           // node -> device
  std::vector<int> order;          // nodes in the order they were assigned
  std::vector<EpisodeStep> steps;  // one per node (empty unless record_probs)
  double planned_makespan_us = 0;  // the plan the episode built (reference cost model)
};

}  // namespace doppler::policy

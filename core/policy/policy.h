#pragma once
// Doppler's dual policy (SEL picks the next node, PLC its device) over a message-passing graph
// encoder, as plain C++: no LibTorch header here (the network lives behind a pimpl in policy.cpp).
//
// The encoder runs once per episode. SEL's scores depend only on the graph, so they are computed
// for every node at once; each step then only updates the per-device state PLC sees. Decisions are
// taken without autograd; training recomputes the episode's log-probabilities in a few batched
// operations (core/train).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"

namespace doppler::policy {

struct GraphFeatures;

// The architecture. Every size is configurable; a checkpoint records it and is refused by a
// policy of another architecture.
struct PolicyConfig {
  int hidden = 128;        // node embedding width
  int mp_steps = 6;        // message-passing steps (shared weights, GRU update)
  int edge_hidden = 32;    // hidden width of the edge network that conditions messages
  int head_hidden = 64;    // hidden width of the SEL and PLC decoders
  int device_hidden = 32;  // width of PLC's per-device feature embedding

  nlohmann::json toJson() const;
  static PolicyConfig fromJson(const nlohmann::json& j);  // throws InputError on bad values
  void validate() const;                                  // throws InputError
  bool operator==(const PolicyConfig&) const = default;
  std::string describe() const;  // "hidden=128 mp_steps=6 ..."
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

class Policy {
 public:
  // Parameters initialised (orthogonally, from `seed`, independent of LibTorch's global RNG).
  explicit Policy(const PolicyConfig& config = {}, uint64_t seed = 1);
  ~Policy();
  Policy(Policy&&) noexcept;
  Policy& operator=(Policy&&) noexcept;
  Policy clone() const;

  const PolicyConfig& config() const;
  int64_t parameterCount() const;

  // One episode on any graph and device count (features are normalised per graph).
  EpisodeResult run(const CostTable& costs, const EpisodeOptions& options = {}) const;
  EpisodeResult run(const CostTable& costs, const GraphFeatures& features,
                    const EpisodeOptions& options = {}) const;

  // Checkpoints (LibTorch serialisation: the archive torch::save writes). `meta` is stored as
  // JSON beside the parameters (the trainer puts its configuration and the graph/device
  // fingerprint there).
  void save(const std::string& path, const nlohmann::json& meta = nlohmann::json::object()) const;
  // A policy of the checkpoint's architecture. Throws InputError naming the file if it is not a
  // Doppler policy checkpoint or cannot be read.
  static Policy load(const std::string& path, nlohmann::json* meta = nullptr);
  // Loads weights into this policy; refuses (InputError) a checkpoint of another architecture.
  void loadWeights(const std::string& path, nlohmann::json* meta = nullptr);
  // The stored architecture and metadata of a checkpoint, without loading the weights.
  static nlohmann::json readMeta(const std::string& path, PolicyConfig* config = nullptr);

  // Parameter names with their values flattened (tests, reproducibility checks).
  std::vector<std::pair<std::string, std::vector<float>>> parameters() const;

  struct Impl;
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  explicit Policy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// LibTorch's intra-op threads and OpenBLAS's threads (0 leaves them as they are).
void setComputeThreads(int threads);
// Runs a matrix product through LibTorch, then returns the path of the BLAS library mapped into
// this process (from /proc/self/maps; empty if none is found). Should contain "openblas".
std::string loadedBlasLibrary();

}  // namespace doppler::policy

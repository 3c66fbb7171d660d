#pragma once
// Doppler's dual policy (SEL picks the next node, PLC its device) over a message-passing graph
// encoder. No LibTorch header here, but the implementation links LibTorch (policy_network.cpp,
// policy_checkpoint.cpp): only the LibTorch module (core/train/torch_module.h), its tests and the
// benchmarks use this class; everything else reaches it through that module.
//
// The encoder runs once per episode and leaves PolicyScores (episode.h); the decisions are then
// plain C++ (rollout.h). Training recomputes the episode's log-probabilities in a few batched
// operations (core/train).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/policy/episode.h"
#include "core/policy/policy_config.h"
#include "core/sim/cost_table.h"

namespace doppler::policy {

class Policy {
 public:
  // Parameters initialised (orthogonally, from `seed`, independent of LibTorch's global RNG).
  explicit Policy(const PolicyConfig& config = {}, uint64_t seed = 1);
  ~Policy();
  Policy(Policy&&) noexcept;
  Policy& operator=(Policy&&) noexcept;
  Policy clone() const;
  // The same policy reading `device_features` device features (at least as many as it reads):
  // the weights of the added ones start at zero, so it decides exactly as this one until
  // training teaches it to use them. How an architecture 2 policy becomes a 3.
  Policy widened(int device_features) const;

  const PolicyConfig& config() const;
  int64_t parameterCount() const;

  // One episode on any graph and device count (features are normalised per graph).
  EpisodeResult run(const CostTable& costs, const EpisodeOptions& options = {}) const;
  EpisodeResult run(const CostTable& costs, const GraphFeatures& features,
                    const EpisodeOptions& options = {}) const;
  // The network's outputs for one graph and device set (empty for a graph without nodes): what
  // an Episode steps through and what runEpisode decides from.
  PolicyScores scores(const GraphFeatures& features) const;

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

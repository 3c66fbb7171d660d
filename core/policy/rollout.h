#pragma once
// Whole episodes from the network's scores, in plain C++ (no LibTorch): the decisions of
// inference and training (greedy, sampled, epsilon-greedy, guided by a known placement, mixed
// with the critical-path teacher), and the record of each step that training's batched
// recompute of the log-probabilities needs (core/policy/policy_impl.h).
#include <cstdint>
#include <vector>

#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/policy_config.h"
#include "core/sim/cost_table.h"

namespace doppler::policy {

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
Rollout rollout(const PolicyScores& scores, const CostTable& costs, const GraphFeatures& f,
                const RolloutOptions& o);

// One episode as Policy::run gives it (an empty result for a graph without nodes).
EpisodeResult runEpisode(const PolicyScores& scores, const CostTable& costs, const GraphFeatures& f,
                         const EpisodeOptions& options = {});

// The Rollout record of a given decision sequence (`order`, and each node's device in
// `assignment`), replayed through the episode state: what the batched recompute needs to score
// those decisions under the current network (self-imitation of the best episode so far).
// `deviceFeatures`: how many device features the scoring policy reads (its
// PolicyConfig::device_features); the look-ahead is computed only for a policy that reads it.
Rollout replay(const CostTable& costs, const GraphFeatures& f, const std::vector<int>& order,
               const Assignment& assignment, const EpisodeOptions& o, int deviceFeatures);

}  // namespace doppler::policy

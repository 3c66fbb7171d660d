#include "core/train/general_policy_start.h"

#include <memory>
#include <mutex>
#include <utility>

#include "core/heuristics/search_start.h"
#include "core/policy/features.h"
#include "core/policy/rollout.h"
#include "core/train/loaded_policy.h"

namespace doppler::train {

namespace {

// The checkpoint, loaded on first use. Searches may run on any thread (the studio's placement
// worker, a benchmark's threads), so loading and the network's forward pass are serialised; the
// decisions and the search itself run unlocked.
class SharedPolicy {
 public:
  explicit SharedPolicy(std::string checkpoint) : checkpoint_(std::move(checkpoint)) {}

  policy::PolicyScores scores(const policy::GraphFeatures& features) {
    std::lock_guard lock(mutex_);
    if (!policy_) policy_ = openPolicy(checkpoint_);
    return policy_->scores(features);
  }

 private:
  const std::string checkpoint_;
  std::mutex mutex_;
  std::unique_ptr<LoadedPolicy> policy_;
};

}  // namespace

void registerGeneralPolicyStart(const std::string& checkpoint) {
  auto shared = std::make_shared<SharedPolicy>(checkpoint);
  registerSearchStart(
      kGeneralPolicyStart,
      "the shipped general policy's greedy placement (doppler place --method doppler)",
      [shared](const PlaceContext& ctx) {
        // The greedy episode, as `doppler eval` decides it; the search simulates it first.
        const policy::GraphFeatures features = policy::graphFeatures(ctx.costs);
        policy::EpisodeOptions greedy;
        greedy.record_probs = false;
        policy::EpisodeResult e =
            policy::runEpisode(shared->scores(features), ctx.costs, features, greedy);
        Placement start;
        start.assignment = std::move(e.assignment);
        start.order = std::move(e.order);
        return start;
      });
}

}  // namespace doppler::train

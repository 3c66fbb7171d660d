#include "core/train/general_policy_start.h"

#include <memory>
#include <mutex>

#include "core/heuristics/search_start.h"
#include "core/policy/features.h"
#include "core/train/evaluation.h"
#include "core/train/torch_module.h"

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
    if (!policy_) policy_ = loadTorchModule().loadPolicy(checkpoint_);
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
        const policy::GraphFeatures features = policy::graphFeatures(ctx.costs);
        const EvalResult greedy =
            evaluateScores(shared->scores(features), ctx.costs, features, 1, ctx.seed, ctx.sim);
        Placement start;
        start.assignment = greedy.episode.assignment;
        start.order = greedy.episode.order;
        return start;
      });
}

}  // namespace doppler::train

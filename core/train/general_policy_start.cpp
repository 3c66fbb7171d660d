#include "core/train/general_policy_start.h"

#include <memory>
#include <utility>

#include "core/heuristics/search_start.h"
#include "core/policy/features.h"
#include "core/policy/rollout.h"
#include "core/train/shared_policy.h"

namespace doppler::train {

void registerGeneralPolicyStart(std::shared_ptr<SharedPolicy> shared) {
  registerSearchStart(
      kGeneralPolicyStart,
      "the shipped general policy's greedy placement (doppler place -m doppler -p decode=greedy)",
      [shared = std::move(shared)](const PlaceContext& ctx) {
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

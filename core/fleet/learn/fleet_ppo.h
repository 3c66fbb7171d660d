#pragma once
// The fleet trainer (docs/fleet_learn.md, "Training"), implemented with LibTorch inside the
// module: callers go through TorchModule::trainFleet or fleet_methods.h's trainFleetPolicy.
#include <memory>
#include <string>

#include "core/common/cancel_token.h"
#include "core/fleet/learn/fleet_actor.h"
#include "core/fleet/learn/fleet_train.h"

namespace doppler::fleet::learn {

// 1. The demand predictor, on the training seeds' demand (full batch, MSE on log-ratios plus
//    1e-4 L2), scored on a held-out seed against the mean of the last 5 slots.
// 2. PPO in the slot-level simulator, one episode per training seed in turn, with rewards taken
//    relative to the OT plan's run on the same seed, so 0 means "as good as OT".
FleetTrainResult trainFleetPpo(const FleetTrainRequest& request, const CancelToken& cancel,
                               const FleetTrainProgressFn& progress);

// A checkpoint as an actor (InputError naming the file when unreadable).
std::shared_ptr<const FleetActor> loadFleetActor(const std::string& checkpoint);

}  // namespace doppler::fleet::learn

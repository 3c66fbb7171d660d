#pragma once
// Training TORTA's learned layer (docs/fleet_learn.md): the demand predictor and the PPO policy,
// trained in the slot-level simulator. Plain structs: they cross the LibTorch module's interface
// (core/train/torch_module.h), which runs the training.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/fleet/sim/harness.h"

namespace doppler::fleet::learn {

struct FleetTrainConfig {
  int episodes = 60;    // PPO episodes (one 480-slot run of the slot model each)
  int train_seeds = 4;  // scenario seeds trained on: kTrainSeedBase, kTrainSeedBase + 1, ...
  uint64_t seed = 1;    // network initialisation and action sampling
  int hidden = 256;     // width of the policy's and value's two hidden layers
  double lr = 3e-4;     // Adam (TORTA: 3e-4, x0.995 every 100 episodes)
  int ppo_epochs = 4;   // passes over each episode's slots
  int minibatch = 120;  // slots per PPO minibatch
  double clip = 0.2;    // PPO's clipped ratio
  double gamma = 0.9;   // discount per slot
  double gae_lambda = 0.9;
  double entropy = 1e-3;
  double init_log_std = -1.5;  // exploration around the OT plan at the start (sd 0.22)
  // Reward per slot, all costs (TORTA's Eq. 3 plus response time and power):
  // -(response / response_scale) - ot_weight ||A - P*||^2 / n - switch_weight ||A - A_prev||^2 / n
  // - queue_weight queued / arrivals - power_weight power / mean power.
  double response_weight = 1.0;
  double ot_weight = 0.05;
  double switch_weight = 0.05;
  double queue_weight = 0.2;
  double power_weight = 0.05;
  // The OT layer's power term (sim::OtCost::power_weight): 0 is latency alone over balanced
  // columns; above 0 the regions' electricity per request joins the cost, over capacity columns.
  double ot_power_weight = 0;
  int predictor_epochs = 300;  // demand predictor: full-batch Adam epochs
  // The safety layer (torta_policy.h).
  double safety_threshold = 0.10;
  int safety_window = 4;
};

// Scenario seeds the policy trains on start here, far from the evaluation seeds (1, 2, ...), so
// `fleet compare` never evaluates on a demand draw it trained on.
inline constexpr uint64_t kTrainSeedBase = 1000;

struct FleetTrainRequest {
  sim::RunOptions scenario;  // topology, trace, slots, load, ... (seed is replaced per episode)
  FleetTrainConfig config;
  std::string out;   // checkpoint written at the end and every `checkpoint_every` episodes
  std::string from;  // resume from this checkpoint ("" = fresh)
  int checkpoint_every = 10;
};

struct FleetTrainProgress {
  std::string phase;  // "predictor", "ppo", "done"
  int episode = 0, episodes = 0;
  double reward = 0;              // mean reward per slot of the episode
  double response_s = 0;          // the episode's mean response
  double ot_response_s = 0;       // the OT plan alone on the same seed
  int fallbacks = 0;              // slots the safety layer fell back in the episode
  double predictor_accuracy = 0;  // PA = exp(-mean relative error) on held-out slots
  double elapsed_s = 0;
};
using FleetTrainProgressFn = std::function<void(const FleetTrainProgress&)>;

struct FleetTrainResult {
  std::string checkpoint;
  int episodes_done = 0;
  bool cancelled = false;
  double predictor_accuracy = 0;  // the learned predictor, held-out slots
  double baseline_accuracy = 0;   // the mean of the last 5 slots, same slots
  double train_s = 0;
  std::vector<FleetTrainProgress> history;  // one per PPO episode
};

// The sizes of the fleet's types that cross the LibTorch module's interface (torch_module.h): the
// module returns its own value and the fleet refuses a module built with other ones.
constexpr uint64_t fleetModuleAbi() {
  uint64_t h = 1;
  for (uint64_t size :
       {sizeof(FleetTrainConfig), sizeof(FleetTrainRequest), sizeof(FleetTrainResult),
        sizeof(FleetTrainProgress), sizeof(sim::RunOptions)})
    h = h * 1000003 + size;
  return h;
}

// The means over the last `count` PPO episodes (fewer if the run had fewer): what `fleet train`
// and the studio report at the end of a run.
struct FleetTrainTail {
  size_t episodes = 0;
  double response_s = 0, ot_response_s = 0, reward = 0;
};
FleetTrainTail lastEpisodes(const FleetTrainResult& result, size_t count = 5);
// The figures a training run records in the run store (`fleet train` and the studio alike).
std::map<std::string, double> trainFigures(const FleetTrainResult& result);

}  // namespace doppler::fleet::learn

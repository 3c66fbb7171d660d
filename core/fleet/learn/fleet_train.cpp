#include "core/fleet/learn/fleet_train.h"

#include <algorithm>

namespace doppler::fleet::learn {

FleetTrainTail lastEpisodes(const FleetTrainResult& result, size_t count) {
  FleetTrainTail tail;
  tail.episodes = std::min(count, result.history.size());
  for (size_t k = result.history.size() - tail.episodes; k < result.history.size(); ++k) {
    tail.response_s += result.history[k].response_s / static_cast<double>(tail.episodes);
    tail.ot_response_s += result.history[k].ot_response_s / static_cast<double>(tail.episodes);
    tail.reward += result.history[k].reward / static_cast<double>(tail.episodes);
  }
  return tail;
}

std::map<std::string, double> trainFigures(const FleetTrainResult& result) {
  const FleetTrainTail last = lastEpisodes(result);
  return {{"episodes_done", result.episodes_done},
          {"predictor_accuracy", result.predictor_accuracy},
          {"baseline_accuracy", result.baseline_accuracy},
          {"train_s", result.train_s},
          {"last5_response_s", last.response_s},
          {"last5_ot_response_s", last.ot_response_s},
          {"last5_reward", last.reward}};
}

}  // namespace doppler::fleet::learn

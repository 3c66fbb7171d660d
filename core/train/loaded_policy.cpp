#include "core/train/loaded_policy.h"

#include "core/policy/network_forward.h"
#include "core/train/torch_module.h"

namespace doppler::train {

policy::PolicyScores LoadedPolicy::scores(const policy::GraphFeatures& features) const {
  return policy::networkScores(weights_, features);
}

std::unique_ptr<LoadedPolicy> openPolicy(const std::string& path) {
  policy::keepPlacementMemory();
  if (policy::isWeightsFile(path))
    return std::make_unique<LoadedPolicy>(policy::readWeightsFile(path));
  return loadTorchModule().loadPolicy(path);
}

}  // namespace doppler::train

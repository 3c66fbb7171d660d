#include "core/fleet/learn/fleet_methods.h"

#include <stdexcept>

#include "core/common/input_error.h"
#include "core/fleet/learn/torta_policy.h"
#include "core/fleet/sim/baselines.h"
#include "core/train/torch_module.h"

namespace doppler::fleet::learn {

namespace {

// The LibTorch module, checked for the fleet's types as well (torch_module.h checks the rest).
const train::TorchModule& fleetModule() {
  const train::TorchModule& module = train::loadTorchModule();
  if (module.fleetAbi() != fleetModuleAbi())
    throw InputError(train::kTorchModuleFile, "",
                     "the LibTorch module was built from another version of Doppler Studio's "
                     "fleet: rebuild or reinstall it with this doppler");
  return module;
}

}  // namespace

const std::vector<std::string>& fleetMethodNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = sim::policyNames();
    v.push_back(kTortaMethod);
    return v;
  }();
  return names;
}

const std::vector<std::string>& allFleetMethodNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = fleetMethodNames();
    v.push_back(kTortaRoutingMethod);
    v.push_back(kOtAllocatorMethod);
    return v;
  }();
  return names;
}

bool needsCheckpoint(const std::string& name) {
  return name == kTortaMethod || name == kTortaRoutingMethod || name == kOtAllocatorMethod;
}

std::unique_ptr<sim::SchedulingPolicy> makeFleetPolicy(const std::string& name,
                                                       const std::string& checkpoint) {
  if (!needsCheckpoint(name)) return sim::makePolicy(name);
  if (checkpoint.empty())
    throw InputError("", "--policy",
                     "method " + name + " needs a trained fleet policy (--policy FILE)");
  const train::TorchModule& torch = fleetModule();
  TortaOptions options;
  // The safety layer's settings are the ones the policy was trained with.
  std::shared_ptr<const FleetActor> actor = torch.loadFleetPolicy(checkpoint);
  const nlohmann::json& config = actor->meta().value("config", nlohmann::json::object());
  options.safety.threshold = config.value("safety_threshold", options.safety.threshold);
  options.safety.window = config.value("safety_window", options.safety.window);
  options.allocator = name != kTortaRoutingMethod;
  options.learned = name != kOtAllocatorMethod;
  return std::make_unique<TortaPolicy>(std::move(actor), options, name);
}

void checkFleetPolicy(const std::string& checkpoint, int regions) {
  const std::shared_ptr<const FleetActor> actor = fleetModule().loadFleetPolicy(checkpoint);
  if (actor->regions() != regions)
    throw InputError(checkpoint, "regions",
                     "the policy was trained for " + std::to_string(actor->regions()) +
                         " regions (" + actor->meta().value("topology", std::string("?")) +
                         "); this fleet has " + std::to_string(regions));
}

sim::SimResult runFleetMethod(const sim::PreparedScenario& prepared, const std::string& method,
                              const sim::RunOptions& options, const std::string& checkpoint) {
  std::unique_ptr<sim::SchedulingPolicy> policy = makeFleetPolicy(method, checkpoint);
  return sim::runPolicy(prepared, *policy, options);
}

sim::Comparison compareFleetMethods(const sim::RunOptions& options,
                                    const std::vector<std::string>& methods, int seeds,
                                    const std::string& checkpoint, const CancelToken& cancel) {
  return sim::compareMethods(
      options, methods, seeds,
      [&](const std::string& name) { return makeFleetPolicy(name, checkpoint); }, cancel);
}

FleetTrainResult trainFleetPolicy(const FleetTrainRequest& request, const CancelToken& cancel,
                                  const FleetTrainProgressFn& progress) {
  return fleetModule().trainFleet(request, cancel, progress);
}

}  // namespace doppler::fleet::learn

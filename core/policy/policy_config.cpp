#include "core/policy/policy_config.h"

#include <cstdint>

#include "core/common/input_error.h"
#include "core/policy/features.h"

namespace doppler::policy {

namespace {
constexpr const char* kKind = "doppler-dual-policy";
}  // namespace

nlohmann::json PolicyConfig::toJson() const {
  return {{"kind", kKind},
          {"version", version()},
          {"node_features", kNodeFeatures},
          {"edge_features", kEdgeFeatures},
          {"device_features", device_features},
          {"hidden", hidden},
          {"mp_steps", mp_steps},
          {"edge_hidden", edge_hidden},
          {"head_hidden", head_hidden},
          {"device_hidden", device_hidden}};
}

PolicyConfig PolicyConfig::fromJson(const nlohmann::json& j) {
  if (!j.is_object()) throw InputError("", "architecture", "not an object");
  auto num = [&](const char* key) -> int {
    if (!j.contains(key) || !j[key].is_number_integer())
      throw InputError("", std::string("architecture.") + key, "missing or not an integer");
    const int64_t v = j[key].get<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX)
      throw InputError("", std::string("architecture.") + key, "out of range");
    return static_cast<int>(v);
  };
  // A kind of another type (a number where the name belongs) is refused like a wrong name: the
  // JSON library would throw its own type error for it (found by fuzz_policy_weights).
  const auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string() || kind->get<std::string>() != kKind)
    throw InputError("", "architecture.kind", std::string("not a ") + kKind);
  const int version = num("version");
  // Architecture 2 reads 16 device features, 3 reads 18; the rest is the same.
  const int deviceFeatures = version == 2 ? kDeviceFeaturesV2 : kDeviceFeatures;
  if ((version != 2 && version != kArchitectureVersion) || num("node_features") != kNodeFeatures ||
      num("edge_features") != kEdgeFeatures || num("device_features") != deviceFeatures)
    throw InputError(
        "", "architecture",
        "another architecture: version " + std::to_string(version) + " with " +
            std::to_string(num("node_features")) + "/" + std::to_string(num("edge_features")) +
            "/" + std::to_string(num("device_features")) +
            " node/edge/device features; this build reads version 2 with " +
            std::to_string(kNodeFeatures) + "/" + std::to_string(kEdgeFeatures) + "/" +
            std::to_string(kDeviceFeaturesV2) + " and version " +
            std::to_string(kArchitectureVersion) + " with " + std::to_string(kNodeFeatures) + "/" +
            std::to_string(kEdgeFeatures) + "/" + std::to_string(kDeviceFeatures));
  PolicyConfig c;
  c.device_features = deviceFeatures;
  c.hidden = num("hidden");
  c.mp_steps = num("mp_steps");
  c.edge_hidden = num("edge_hidden");
  c.head_hidden = num("head_hidden");
  c.device_hidden = num("device_hidden");
  c.validate();
  return c;
}

void PolicyConfig::validate() const {
  auto check = [](int v, int lo, int hi, const char* name) {
    if (v < lo || v > hi)
      throw InputError("", name,
                       "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                           ", got " + std::to_string(v));
  };
  check(hidden, 1, 4096, "hidden");
  check(mp_steps, 0, 64, "mp_steps");
  check(edge_hidden, 1, 4096, "edge_hidden");
  check(head_hidden, 1, 4096, "head_hidden");
  check(device_hidden, 1, 4096, "device_hidden");
  if (device_features != kDeviceFeaturesV2 && device_features != kDeviceFeatures)
    throw InputError("", "device_features",
                     "must be " + std::to_string(kDeviceFeaturesV2) + " (architecture 2) or " +
                         std::to_string(kDeviceFeatures) + " (architecture 3), got " +
                         std::to_string(device_features));
}

int PolicyConfig::version() const {
  return device_features == kDeviceFeaturesV2 ? 2 : kArchitectureVersion;
}

std::string PolicyConfig::describe() const {
  return "hidden=" + std::to_string(hidden) + " mp_steps=" + std::to_string(mp_steps) +
         " edge_hidden=" + std::to_string(edge_hidden) +
         " head_hidden=" + std::to_string(head_hidden) +
         " device_hidden=" + std::to_string(device_hidden) +
         " device_features=" + std::to_string(device_features);
}

DecisionMode parseDecisionMode(const std::string& s) {
  if (s == "greedy") return DecisionMode::Greedy;
  if (s == "sample") return DecisionMode::Sample;
  if (s == "epsilon-greedy") return DecisionMode::EpsilonGreedy;
  throw InputError("", "decision mode",
                   "unknown mode '" + s + "' (known: greedy, sample, epsilon-greedy)");
}

const char* toString(DecisionMode m) {
  switch (m) {
    case DecisionMode::Greedy:
      return "greedy";
    case DecisionMode::Sample:
      return "sample";
    case DecisionMode::EpsilonGreedy:
      return "epsilon-greedy";
  }
  return "?";
}

}  // namespace doppler::policy

#include "core/fleet/learn/fleet_methods.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
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
    // OT routing with torta's predictor and allocator beside torta: what the learned routing
    // adds over it is the learned method's own contribution (within a few per cent, measured).
    v.push_back(kOtAllocatorMethod);
    v.push_back(kTortaNoPredictorMethod);
    v.push_back(kTortaMethod);
    return v;
  }();
  return names;
}

const std::vector<std::string>& allFleetMethodNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = fleetMethodNames();
    v.push_back(kTortaRoutingMethod);
    for (const std::string& baseline : sim::policyNames()) v.push_back(baseline + kAllocatorSuffix);
    return v;
  }();
  return names;
}

namespace {

// "least-loaded" of "least-loaded+allocator"; empty for any other name.
std::string routingOf(const std::string& name) {
  const std::string suffix = kAllocatorSuffix;
  if (name.size() <= suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix))
    return {};
  const std::string baseline = name.substr(0, name.size() - suffix.size());
  const std::vector<std::string>& known = sim::policyNames();
  return std::find(known.begin(), known.end(), baseline) != known.end() ? baseline : "";
}

}  // namespace

bool needsCheckpoint(const std::string& name) {
  return name == kTortaMethod || name == kTortaRoutingMethod || name == kOtAllocatorMethod ||
         name == kTortaNoPredictorMethod || !routingOf(name).empty();
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
  options.ot_cost.power_weight = config.value("ot_power_weight", 0.0);  // older checkpoints: 0
  options.allocator = name != kTortaRoutingMethod;
  options.predictor = name != kTortaNoPredictorMethod;
  options.routing = routingOf(name);
  options.learned = name != kOtAllocatorMethod && options.routing.empty();
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

namespace {

// A topology or trace named by its stem, so "abilene" and ".../abilene.txt" are one.
std::string stemOf(const std::string& nameOrPath) {
  const std::string stem = std::filesystem::path(nameOrPath).stem().string();
  return stem.empty() ? nameOrPath : stem;
}

std::string numberText(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

PolicyProvenance policyProvenance(const std::string& checkpoint, const sim::RunOptions& here,
                                  const sim::PreparedScenario& prepared) {
  const std::shared_ptr<const FleetActor> actor = fleetModule().loadFleetPolicy(checkpoint);
  const nlohmann::json& meta = actor->meta();
  // A field of the wrong type (a damaged or hand-made checkpoint) reads as missing, not as an
  // internal error.
  auto text = [&](const char* key, const std::string& fallback) {
    const auto it = meta.find(key);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : fallback;
  };
  auto number = [&](const char* key, double fallback) {
    const auto it = meta.find(key);
    return it != meta.end() && it->is_number() ? it->get<double>() : fallback;
  };
  auto whole = [&](const char* key) {
    return static_cast<long>(std::clamp(std::round(number(key, 0)), -1e15, 1e15));
  };
  PolicyProvenance p;
  const std::string topology = text("topology_name", text("topology", ""));
  const std::string trace = text("trace_name", text("trace", ""));
  if (topology.empty() || trace.empty()) {
    p.known = false;
    return p;
  }
  const double load = number("load", 0), timeScale = number("time_scale", 1);
  const double slotSeconds = number("slot_seconds", 0), poolScale = number("pool_scale", 0);
  const long slots = whole("slots");
  const std::string horizon = text("horizon", "tile"), model = text("model", "");
  p.trained_on = {{"topology", topology},
                  {"trace", trace},
                  {"load", load},
                  {"time_scale", timeScale},
                  {"slots", slots},
                  {"slot_seconds", slotSeconds},
                  {"pool_scale", poolScale},
                  {"horizon", horizon},
                  {"model", model},
                  {"train_seed_base", whole("train_seed_base")}};
  auto differ = [&](const std::string& field, const std::string& was, const std::string& now) {
    if (was != now) p.differences.push_back(field + " " + was + " (here " + now + ")");
  };
  differ("topology", stemOf(topology), stemOf(prepared.scenario.world.topology));
  differ("trace", stemOf(trace), stemOf(prepared.scenario.demand.source));
  differ("load", numberText(load), numberText(here.load));
  differ("time scale", numberText(timeScale), numberText(here.time_scale));
  differ("slots", std::to_string(slots), std::to_string(here.slots));
  differ("slot seconds", numberText(slotSeconds), numberText(here.slot_seconds));
  differ("pool scale", numberText(poolScale), numberText(here.pool_scale));
  differ("horizon", horizon, toString(here.horizon));
  differ("model", model, here.model);
  // Training has no spikes or outages: each given here is a difference.
  auto events = [&](const char* field, const std::vector<std::string>& specs) {
    if (specs.empty()) return;
    std::string joined;
    for (const std::string& x : specs) joined += (joined.empty() ? "" : " ") + x;
    differ(field, "none", joined);
  };
  events("spikes", here.spikes);
  events("outages", here.outages);
  // On the calendar, training drew its days and its half of the trace so that evaluation can
  // avoid both: each one avoided is a difference.
  const auto calendar = meta.find("calendar");
  if (horizon == "calendar" && here.horizon == HorizonRule::Calendar && calendar != meta.end() &&
      calendar->is_object()) {
    p.trained_on["calendar"] = *calendar;
    const Demand& demand = prepared.scenario.demand;
    const auto field = [&](const char* key) {
      const auto it = calendar->find(key);
      return it != calendar->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    differ("profile", field("profile"), demand.profile);
    const std::string part = field("trace_part");
    if (part == toString(TracePart::Train) && demand.part == TracePart::HeldOut)
      differ("trace part", part, toString(demand.part));
    const double hours = demand.horizon_s / 3600.0;
    if (trainingHoursIn(demand.start_week_hour, hours) == 0)
      differ("days", field("days"),
             weekTimeText(demand.start_week_hour) + " to " +
                 weekTimeText(demand.start_week_hour + hours));
  }
  return p;
}

std::string provenanceLine(const PolicyProvenance& p) {
  if (!p.known) return "trained on a scenario its checkpoint does not record";
  if (p.differences.empty() && p.trained_on.contains("calendar")) {
    return "trained on this demand (" + p.trained_on.value("topology", std::string()) + ", " +
           p.trained_on.value("trace", std::string()) + ", load " +
           numberText(p.trained_on.value("load", 0.0)) +
           ", calendar: these hours reach the training days or the training half of the trace): "
           "not held out";
  }
  if (p.differences.empty()) {
    const int base = p.trained_on.value("train_seed_base", 0);
    return "trained on this demand (" + p.trained_on.value("topology", std::string()) + ", " +
           p.trained_on.value("trace", std::string()) + ", load " +
           numberText(p.trained_on.value("load", 0.0)) + ", " +
           p.trained_on.value("horizon", std::string()) + "; its scenario seeds from " +
           std::to_string(base) +
           " differ from these in pools, prices and bursts, not in the trace): not held out";
  }
  std::string s = "trained on other demand:";
  for (size_t k = 0; k < p.differences.size(); ++k) s += (k ? ", " : " ") + p.differences[k];
  return s;
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

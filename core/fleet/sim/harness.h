#pragma once
// One harness for every method (docs/fleet_sim.md, "Harness"): builds the scenario with the
// demand scaled to a target load, runs a method on either simulator, and compares methods over
// several seeds with identical seeds per method. The CLI, the benchmarks and the studio call it.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/fleet/sim/simulate.h"
#include "core/fleet/world/scenario.h"

namespace doppler::fleet::sim {

enum class Fidelity { Slot, Request };
Fidelity parseFidelity(const std::string& name);  // "slot", "request"; InputError otherwise

struct RunOptions {
  std::string topology = "abilene";
  std::string trace = "conv";
  int slots = 480;
  double slot_seconds = 45;
  uint64_t seed = 1;
  // The demand is scaled (the trace's times, or the synthetic rate) so the fleet's mean load,
  // demand over the roofline capacity of every pool (estimateCapacity), is this. With the
  // default pools the shipped traces load the fleet below 1% (docs/fleet.md, "Load"): without
  // scaling every method looks the same. 0 leaves the demand as time_scale gives it.
  double load = 0.7;
  double time_scale = 1.0;
  // Pools at 0.02 of TORTA's counts (4-6 GPUs a region) keep the request count at the target
  // load in the millions, not tens of millions, for the 6 h horizon.
  double pool_scale = 0.02;
  HorizonRule horizon = HorizonRule::Calendar;
  CalendarRule calendar;  // the calendar horizon's start, profile and trace part
  // Regional spikes, "REGION:START_H:MINUTES:FACTOR" (parseSpike). They come on top of the
  // demand the load target sets: the load is met without them, then they are added.
  std::vector<std::string> spikes;
  // Regional outages, "REGION:START_H:MINUTES" (parseOutage); the slot-level simulator only.
  std::vector<std::string> outages;
  std::string model = "llama-2-7b";
  Fidelity fidelity = Fidelity::Slot;
  SimOptions sim;
};

struct PreparedScenario {
  Scenario scenario;
  CapacityEstimate capacity;  // after scaling
  double time_scale = 1;      // the factor applied to the trace's times (trace demand)
  double rate_scale = 1;      // demand rate over the unscaled demand's
  // False when RunOptions::load was not applied: the stretch and once horizons lay one copy of
  // the trace over the horizon, so its request count, and with it the mean load, is the trace's
  // (compressing it would only crowd every request into the first minutes).
  bool load_applied = true;
  std::vector<Outage> outages;  // RunOptions::outages, read against the world
};

// The one way a fleet scenario (topology, GPU pools, demand, horizon) is built from options: the
// CLI's fleet commands, the harness, the training and the studio all come here. The demand is
// rescaled to `options.load` when it is above 0. Throws InputError for bad files and options.
PreparedScenario prepareScenario(const RunOptions& options);

// The options a training scenario gets under `seed`: on the calendar horizon, windows from the
// training half of the trace and a start drawn from the seed on the training days (week_profile.h),
// so a policy never trains on the days or the requests evaluation uses. Other horizons: the seed.
RunOptions trainingRun(const RunOptions& options, uint64_t seed);

// Runs `method` on the prepared scenario with options.fidelity and options.seed.
SimResult runMethod(const PreparedScenario& prepared, const std::string& method,
                    const RunOptions& options);
// The same with a policy the caller built (the learned method, tests).
SimResult runPolicy(const PreparedScenario& prepared, SchedulingPolicy& policy,
                    const RunOptions& options);

// Builds a method by name (makePolicy, or one that also knows the learned method).
using PolicyFactory = std::function<std::unique_ptr<SchedulingPolicy>(const std::string&)>;

// Every method on seeds seed, seed + 1, ...: the same scenario and routing draws for each method
// under one seed. Results per method, one FleetMetrics per seed, in seed order.
struct Comparison {
  std::vector<std::string> methods;
  std::map<std::string, std::vector<FleetMetrics>> runs;
  std::vector<CapacityEstimate> capacity;  // per seed
  // Cancelled between two runs: only the seeds every method finished are kept (the methods stay
  // compared on the same seeds), possibly none.
  bool cancelled = false;
  int seeds() const { return static_cast<int>(capacity.size()); }
};
Comparison compareMethods(const RunOptions& options, const std::vector<std::string>& methods,
                          int seeds, const PolicyFactory& factory = {},
                          const CancelToken& cancel = {});

// The figures `fleet compare` reports, by name, from one run.
std::map<std::string, double> headlineFigures(const FleetMetrics& m);
// Every figure of a run, for the run store and --json.
std::map<std::string, double> allFigures(const FleetMetrics& m);

}  // namespace doppler::fleet::sim

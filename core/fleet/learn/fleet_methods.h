#pragma once
// Every fleet method by name, the learned one included: the CLI and the studio build and run
// methods through here. The baselines come from core/fleet/sim; "torta" (the OT-guided PPO policy
// with its demand predictor, per-region allocator and safety layer) is loaded from a checkpoint
// through the LibTorch module, so nothing here includes a LibTorch header.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/fleet/learn/fleet_train.h"
#include "core/fleet/sim/harness.h"

namespace doppler::fleet::learn {

inline constexpr const char* kTortaMethod = "torta";
// Ablations of torta (same checkpoint): its learned routing with the simulator's reactive
// autoscaler instead of the per-region allocator (not in the default comparison), and the OT
// plan with torta's allocator and predictor but no learned routing (in it, beside torta).
inline constexpr const char* kTortaRoutingMethod = "torta-routing";
inline constexpr const char* kOtAllocatorMethod = "ot-allocator";
// torta with the simulators' mean-of-5 forecast instead of its learned predictor (in the default
// comparison: what the predictor adds).
inline constexpr const char* kTortaNoPredictorMethod = "torta-no-predictor";
// Any baseline's routing with torta's predictor and per-region allocator ("least-loaded+allocator",
// "skylb+allocator", ...), so routing is compared with routing under the same micro layer.
inline constexpr const char* kAllocatorSuffix = "+allocator";
// Whether `name` needs a fleet policy checkpoint.
bool needsCheckpoint(const std::string& name);

// The baselines' names, "ot-allocator", "torta-no-predictor" and "torta" (what `fleet compare`
// runs by default).
const std::vector<std::string>& fleetMethodNames();
// Those, torta-routing and each baseline with torta's allocator ("BASELINE+allocator").
const std::vector<std::string>& allFleetMethodNames();

// A method by name. "torta" needs `checkpoint` (InputError naming the file when it is missing or
// not a fleet policy, or when the build has no LibTorch); its regions must match the fleet's
// (checked at reset, InputError naming the checkpoint). InputError for unknown names.
std::unique_ptr<sim::SchedulingPolicy> makeFleetPolicy(const std::string& name,
                                                       const std::string& checkpoint = "");

// Loads `checkpoint` and checks it was trained for a fleet of `regions` regions: InputError
// naming the file otherwise (so a command refuses it before it begins a run).
void checkFleetPolicy(const std::string& checkpoint, int regions);

// What a fleet checkpoint was trained on, against the scenario it is about to be used on. On the
// calendar horizon training draws its days (Mon-Wed, Sat) and the first half of the trace, and
// each of those an evaluation avoids is a difference ("days ...", "trace part ..."). On the tiled
// horizon a seed changes pools, prices and bursts, not the trace, its compression or its tiling:
// a checkpoint evaluated on the topology, trace, load and horizon it trained on has seen this
// demand. Spikes and outages in the evaluation are differences too (training has none).
struct PolicyProvenance {
  nlohmann::json trained_on = nlohmann::json::object();  // the scenario fields of its metadata
  // One entry per scenario field that differs: "topology abilene (here polska)". Empty when the
  // evaluation is on its own training demand.
  std::vector<std::string> differences;
  bool known = true;  // false: the checkpoint records no scenario (an old one)
};
PolicyProvenance policyProvenance(const std::string& checkpoint, const sim::RunOptions& here,
                                  const sim::PreparedScenario& prepared);
// One line for the CLI: "trained on this demand (abilene, conv, load 0.7, tile; scenario seeds
// 1000-1003, these 1-5 differ only in pools, prices and bursts)" or "trained on other demand:
// ...".
std::string provenanceLine(const PolicyProvenance& p);

// sim::runMethod and sim::compareMethods with "torta" available (from `checkpoint`).
sim::SimResult runFleetMethod(const sim::PreparedScenario& prepared, const std::string& method,
                              const sim::RunOptions& options, const std::string& checkpoint = "");
sim::Comparison compareFleetMethods(const sim::RunOptions& options,
                                    const std::vector<std::string>& methods, int seeds,
                                    const std::string& checkpoint = "",
                                    const CancelToken& cancel = {});

// Trains the predictor and the PPO policy (through the LibTorch module), on the calling thread.
// Progress is called from the same thread after each episode.
FleetTrainResult trainFleetPolicy(const FleetTrainRequest& request, const CancelToken& cancel,
                                  const FleetTrainProgressFn& progress);

}  // namespace doppler::fleet::learn

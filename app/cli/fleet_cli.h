#pragma once
// `doppler fleet ...`: multi-region LLM inference scheduling (core/fleet). Each subcommand lives
// in its own cmd_fleet_*.cpp and registers itself under the `fleet` command here.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fleet/sim/harness.h"
#include "core/fleet/world/demand.h"
#include "core/fleet/world/region_pool.h"

namespace doppler::cli {

void addFleetOtCommand(CLI::App& fleet);     // `doppler fleet ot` (cmd_fleet_ot.cpp)
void addFleetWorldCommand(CLI::App& fleet);  // `doppler fleet world` (cmd_fleet_world.cpp)
// `doppler fleet simulate` and `doppler fleet compare` (cmd_fleet_simulate.cpp)
void addFleetSimulateCommands(CLI::App& fleet);
void addFleetTrainCommand(CLI::App& fleet);  // `doppler fleet train` (cmd_fleet_train.cpp)

// Option checks with one plain message. CLI11's PositiveNumber prints its range up to DBL_MAX
// ("Value 0 not in range 0.000000 to 179769313486231570...").
CLI::Validator positiveNumber();  // a finite number above 0

// The options that build a fleet scenario (core/fleet/world/scenario.h), shared by `world`,
// `simulate` and `compare`.
struct FleetScenarioArgs {
  std::string topology;
  std::string trace = "conv";
  int slots = 480;
  double slotSeconds = 45;
  uint64_t seed = 1;
  std::string horizon = "calendar";
  // --horizon calendar only; empty: not given (Thu 14:00, the trace's profile, held-out).
  std::string start, profile, tracePart;
  std::vector<std::string> spikes;  // --spike, repeatable
  double timeScale = 1;
  std::string model = "llama-2-7b";
  double poolScale = fleet::PoolRule{}.scale;
};
// --topology, --trace, --slots, --slot-seconds, --seed, --horizon, --time-scale, --model,
// --pool-scale and, unless `training` (which draws its own), --start and --trace-part; the seed's
// and the time scale's help differ by command.
void addFleetScenarioOptions(CLI::App& cmd, FleetScenarioArgs& args, const std::string& seedHelp,
                             const std::string& timeScaleHelp, bool training = false);
// --horizon's value; InputError naming the option otherwise.
fleet::HorizonRule parseHorizon(const std::string& name);
// The simulator harness's options from the scenario options (the rest keep their defaults).
// --start, --profile and --trace-part with another horizon than calendar are refused.
fleet::sim::RunOptions scenarioRunOptions(const FleetScenarioArgs& args, double load);

// How the demand covers the horizon, for the text outputs ("calendar from Thu 14:00 UTC, conv
// profile, held-out half of the trace, 7,200 windows of 60 s") and the JSON.
std::string demandText(const fleet::Demand& demand);
nlohmann::json demandJson(const fleet::Demand& demand);

}  // namespace doppler::cli

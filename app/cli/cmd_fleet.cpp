// `doppler fleet`: the parent of the fleet subcommands (fleet_cli.h).
#include <cmath>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "fleet_cli.h"

namespace doppler::cli {

CLI::Validator positiveNumber() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double x = 0;
        if (!CLI::detail::lexical_cast(value, x) || !std::isfinite(x) || x <= 0)
          return "expected a positive number, found " + value;
        return {};
      },
      "POSITIVE");
}

fleet::sim::RunOptions scenarioRunOptions(const FleetScenarioArgs& a, double load) {
  fleet::sim::RunOptions o;
  o.topology = a.topology;
  o.trace = a.trace;
  o.slots = a.slots;
  o.slot_seconds = a.slotSeconds;
  o.seed = a.seed;
  o.load = load;
  o.time_scale = a.timeScale;
  o.pool_scale = a.poolScale;
  o.model = a.model;
  o.horizon = parseHorizon(a.horizon);
  return o;
}

void addFleetScenarioOptions(CLI::App& cmd, FleetScenarioArgs& args, const std::string& seedHelp,
                             const std::string& timeScaleHelp) {
  cmd.add_option("--topology,-t", args.topology,
                 "Topology: abilene, polska, cost266, gabriel, germany50, or an SNDlib file")
      ->required();
  cmd.add_option("--trace", args.trace,
                 "Demand: conv, code (Azure LLM traces 2023), synthetic, or a trace CSV file")
      ->capture_default_str();
  cmd.add_option("--slots", args.slots, "Timeslots in the horizon")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd.add_option("--slot-seconds", args.slotSeconds, "Seconds per timeslot")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd.add_option("--seed", args.seed, seedHelp)->check(nonNegativeInteger())->capture_default_str();
  cmd.add_option("--horizon", args.horizon,
                 "How the ~1 h trace covers the horizon: tile, stretch or once")
      ->capture_default_str();
  cmd.add_option("--time-scale", args.timeScale, timeScaleHelp)
      ->check(positiveNumber())
      ->capture_default_str();
  cmd.add_option("--model", args.model, "Served model: llama-2-7b, llama-2-13b, llama-2-70b")
      ->capture_default_str();
  cmd.add_option("--pool-scale", args.poolScale,
                 "GPUs per region as a share of TORTA's per-type ranges")
      ->check(positiveNumber())
      ->capture_default_str();
}

fleet::HorizonRule parseHorizon(const std::string& name) {
  if (name == "tile") return fleet::HorizonRule::Tile;
  if (name == "stretch") return fleet::HorizonRule::Stretch;
  if (name == "once") return fleet::HorizonRule::Once;
  throw InputError("", "--horizon " + name, "expected tile, stretch or once");
}

void addFleetCommands(CLI::App& app) {
  CLI::App* fleet = app.add_subcommand(
      "fleet", "Schedule LLM inference across GPU regions (TORTA-style timeslots)");
  fleet->require_subcommand(1);
  addFleetOtCommand(*fleet);
  addFleetWorldCommand(*fleet);
  addFleetSimulateCommands(*fleet);
  addFleetTrainCommand(*fleet);
}

}  // namespace doppler::cli

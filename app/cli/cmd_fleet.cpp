// `doppler fleet`: the parent of the fleet subcommands (fleet_cli.h).
#include <cmath>
#include <sstream>
#include <utility>

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
  if (o.horizon != fleet::HorizonRule::Calendar)
    for (const auto& [name, value] :
         {std::pair<const char*, const std::string&>{"--start", a.start},
          {"--profile", a.profile},
          {"--trace-part", a.tracePart}})
      if (!value.empty())
        throw InputError("", name, "applies to --horizon calendar only (here " + a.horizon + ")");
  if (!a.start.empty()) o.calendar.start_week_hour = fleet::parseWeekTime(a.start);
  if (!a.profile.empty()) o.calendar.profile = fleet::weekProfile(a.profile).name;
  if (!a.tracePart.empty()) o.calendar.part = fleet::parseTracePart(a.tracePart);
  o.spikes = a.spikes;
  return o;
}

std::string demandText(const fleet::Demand& d) {
  std::ostringstream s;
  if (d.start_week_hour >= 0) {
    s << "calendar from " << fleet::weekTimeText(d.start_week_hour) << " UTC, " << d.profile
      << " profile";
    if (d.source != "synthetic")
      s << ", "
        << (d.part == fleet::TracePart::All
                ? "the whole trace"
                : std::string(fleet::toString(d.part)) + " half of the trace")
        << ", " << d.copies << " windows";
  } else if (d.source != "synthetic") {
    s << fleet::toString(d.horizon) << ", " << d.copies << " copies";
  } else {
    s << "synthetic";
  }
  return s.str();
}

nlohmann::json demandJson(const fleet::Demand& d) {
  nlohmann::json out = {
      {"source", d.source},
      {"horizon",
       d.source == "synthetic" && d.start_week_hour < 0 ? "synthetic" : fleet::toString(d.horizon)},
      {"copies", d.copies}};
  if (d.start_week_hour >= 0) {
    out["start"] = fleet::weekTimeText(d.start_week_hour);
    out["start_week_hour"] = d.start_week_hour;
    out["profile"] = d.profile;
    if (d.source != "synthetic") out["trace_part"] = fleet::toString(d.part);
  }
  return out;
}

void addFleetScenarioOptions(CLI::App& cmd, FleetScenarioArgs& args, const std::string& seedHelp,
                             const std::string& timeScaleHelp, bool training) {
  std::string names;
  for (const std::string& name : fleet::shippedTopologies()) names += name + ", ";
  cmd.add_option("--topology,-t", args.topology, "Topology: " + names + "or an SNDlib file")
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
                 "How the demand covers the horizon: calendar (a day and a week, from random "
                 "windows of the ~1 h trace, never repeating), tile, stretch or once")
      ->capture_default_str();
  cmd.add_option("--profile", args.profile,
                 "calendar: the day-and-week profile the rate follows: conv, code or flat "
                 "(default: code for the code trace, else conv)");
  if (!training) {
    cmd.add_option("--start", args.start,
                   "calendar: the horizon's start, a day and a UTC time (default \"thu 14:00\"; "
                   "Thu, Fri and Sun are never trained on)");
    cmd.add_option("--spike", args.spikes,
                   "A regional spike REGION:START_H:MINUTES:FACTOR (a name or index; hours after "
                   "the start), e.g. 3:2:15:3; repeatable. It comes on top of the --load demand")
        ->allow_extra_args(false);
    cmd.add_option("--trace-part", args.tracePart,
                   "calendar: which half of the trace requests come from: held-out (the second, "
                   "never trained on; default), train or all");
  }
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
  if (name == "calendar") return fleet::HorizonRule::Calendar;
  throw InputError("", "--horizon " + name, "expected calendar, tile, stretch or once");
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

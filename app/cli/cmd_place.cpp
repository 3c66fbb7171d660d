// `doppler place`: place a graph with a method, simulate the placement, record the run.
#include <sstream>

#include "cli_common.h"
#include "core/graph/input_error.h"
#include "core/pipeline/place_and_simulate.h"
#include "placement_json.h"
#include "progress_bar.h"
#include "run_recording.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

struct PlaceArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string method = "critical-path";
  long budget = 5000;
  std::vector<std::string> params;
  SimArgs sim;
  OutputArgs output;
  RecordArgs record;
};

ParamValues parseParams(const std::vector<std::string>& raw) {
  ParamValues values;
  for (const std::string& p : raw) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", "--param " + p, "expected NAME=VALUE");
    values[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return values;
}

nlohmann::json placeJson(const Inputs& in, const PlaceSettings& settings,
                         const PlaceOutcome& outcome) {
  const Placement& placement = outcome.placement;
  nlohmann::json out =
      placementJson(settings.method, in.graph, in.devices, placement.assignment, outcome.sim,
                    outcome.lower_bound_us, toString(settings.cost_model), settings.seed);
  out["planned_makespan_us"] =
      placement.planned ? nlohmann::json(placement.planned->makespan_us) : nlohmann::json();
  out["params"] = outcome.resolved_params;
  out["evaluations"] = placement.evaluations;
  // The method's own schedule, where it builds one, so plan and simulation can be compared.
  if (placement.planned) out["planned_schedule"] = scheduleJson(in.graph, *placement.planned);
  return out;
}

std::string placeText(const Inputs& in, const PlaceSettings& settings, const PlaceOutcome& outcome,
                      bool search) {
  const Placement& placement = outcome.placement;
  const double makespan = outcome.makespan(), lb = outcome.lower_bound_us;
  std::ostringstream s;
  s << "method        " << settings.method << "\n"
    << "graph         " << in.graph.name << " (" << in.graph.nodeCount() << " nodes, "
    << in.graph.edgeCount() << " edges)\n"
    << "devices       " << in.devices.name << " (" << in.devices.size() << ")\n"
    << "makespan      " << fixedNumber(makespan) << " us (simulated, "
    << toString(settings.cost_model) << ")\n";
  if (placement.planned)
    s << "planned       " << fixedNumber(placement.planned->makespan_us) << " us\n";
  s << "lower bound   " << fixedNumber(lb) << " us (ratio " << fixedNumber(makespan / lb) << ")\n";
  s << "utilization  ";
  for (double u : outcome.sim.utilization) s << " " << fixedNumber(u * 100) << "%";
  s << "\n";
  if (search) s << "evaluations   " << placement.evaluations << "\n";
  return s.str();
}

void runPlace(const PlaceArgs& args) {
  PlaceSettings settings = placeSettings(args.sim);
  settings.method = args.method;
  settings.params = parseParams(args.params);
  settings.budget = args.budget;
  const Params params = checkSettings(settings);  // before loading inputs: a typo fails fast
  const bool search = findMethod(settings.method).isSearch();
  const Inputs in = loadInputs(args.graph, args.devices);
  // Begun before the method runs, so a long search shows in the store (and the studio) as it goes.
  sessions::RunSpec spec = runSpec("place", settings.method, args.graph, args.devices,
                                   {{"params", params.values()},
                                    {"budget", args.budget},
                                    {"cost_model", toString(settings.cost_model)},
                                    {"noise", settings.noise}});
  spec.seed = settings.seed;
  RunRecording rec(args.record, spec, in.graph, in.devices);
  ProgressBar bar(settings.method);
  PlaceRequest request = placeRequest(in, settings);
  if (search)
    request.progress = [&](const Progress& p) {
      bar.update(p.done, p.total, "best " + fixedNumber(p.best_makespan_us) + " us");
      rec.metric("best_makespan_us", p.done, p.best_makespan_us);
    };
  PlaceOutcome outcome;
  try {
    outcome = placeAndSimulate(request);
  } catch (const std::exception& e) {
    rec.fail(e.what());
    throw;
  }
  bar.finish();
  rec.savePlacement(in.graph, outcome, search);
  rec.finish();
  writeRecordedResult(
      args.output, rec, [&] { return placeJson(in, settings, outcome); },
      [&] { return placeText(in, settings, outcome, search); });
}

}  // namespace

void addPlaceCommand(CLI::App& app) {
  auto args = std::make_shared<PlaceArgs>();
  CLI::App* place =
      app.add_subcommand("place", "Place a graph on devices with a heuristic or search method");
  addGraphOptions(*place, args->graph);
  addDeviceOptions(*place, args->devices);
  place->add_option("--method,-m", args->method, "Method (see `doppler methods`)")
      ->capture_default_str();
  place->add_option("--budget", args->budget, "Simulator evaluations for search methods")
      ->capture_default_str();
  place->add_option("--param,-p", args->params, "Method parameter NAME=VALUE (repeatable)");
  addSimOptions(*place, args->sim, "Seed for randomised methods and noise");
  addOutputOptions(*place, args->output);
  addRecordOptions(*place, args->record);
  place->callback([args] { runPlace(*args); });
}

}  // namespace doppler::cli

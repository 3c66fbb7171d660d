// `doppler place`: place a graph with a method, simulate the placement, record the run.
#include <sstream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/pipeline/place_and_simulate.h"
#include "decision_cli.h"
#include "interrupt.h"
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
  bool decisions = false;
  std::vector<std::string> overrides;
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
  // Why a search stopped: its budget spent, every placement tried, the lower bound reached, its
  // time limit, or interrupted (then the result is partial: the best so far).
  out["partial"] = placement.cancelled;
  if (placement.evaluations > 0)
    out["stopped"] = placement.cancelled             ? "interrupted"
                     : placement.exhaustive          ? "exhaustive"
                     : placement.reached_lower_bound ? "lower-bound"
                     : placement.out_of_time         ? "time"
                                                     : "budget";
  if (placement.start_makespan_us) out["start_makespan_us"] = *placement.start_makespan_us;
  // The method's own schedule, where it builds one, so plan and simulation can be compared.
  if (placement.planned) out["planned_schedule"] = scheduleJson(in.graph, *placement.planned);
  if (!placement.order.empty()) {
    out["order"] = nlohmann::json::array();
    for (int v : placement.order) out["order"].push_back(in.graph.node(v).id);
  }
  // What the priority and sequence disciplines follow (simulate --assignment reads it back).
  out["discipline"] = toString(settings.discipline);
  out["execution_order"] = nlohmann::json::array();
  for (int v : outcome.execution_order) out["execution_order"].push_back(in.graph.node(v).id);
  out["order_source"] = toString(outcome.order_source);
  if (!placement.decisions.steps.empty()) {
    out["decision_scores"] = decisionScoresJson(placement.decisions);
    out["decisions"] = decisionsJson(in.graph, placement.decisions);
  }
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
    << toString(settings.cost_model) << ", " << toString(settings.discipline) << ")\n";
  if (usesOrder(settings.discipline) && outcome.order_source == OrderSource::Topological)
    s << "order         topological (the method gives none)\n";
  if (placement.planned)
    s << "planned       " << fixedNumber(placement.planned->makespan_us) << " us\n";
  s << "lower bound   " << fixedNumber(lb) << " us (ratio " << fixedNumber(makespan / lb) << ")\n";
  s << "utilization  ";
  for (double u : outcome.sim.utilization) s << " " << fixedNumber(u * 100) << "%";
  s << "\n";
  if (search) {
    s << "evaluations   " << placement.evaluations;
    if (placement.cancelled)
      s << " (interrupted: the best so far, partial)";
    else if (placement.exhaustive)
      s << " (every placement: the search space was no larger than the budget)";
    else if (placement.reached_lower_bound)
      s << " (stopped at the lower bound, which no placement beats)";
    else if (placement.out_of_time)
      s << " (stopped by its time limit, time_ms)";
    s << "\n";
  }
  if (placement.start_makespan_us)
    s << "start         " << fixedNumber(*placement.start_makespan_us) << " us (simulated)\n";
  return s.str();
}

void runPlace(const PlaceArgs& args) {
  PlaceSettings settings = placeSettings(args.sim);
  settings.method = args.method;
  settings.params = parseParams(args.params);
  settings.budget = args.budget;
  const Params params = checkSettings(settings);  // before loading inputs: a typo fails fast
  const Method& method = findMethod(settings.method);
  const bool search = method.isSearch();
  checkDecisionsSupported(method, args.decisions, !args.overrides.empty());
  const Inputs in = loadInputs(args.graph, args.devices);
  PlaceRequest request = placeRequest(in, settings);
  // From here a Ctrl-C or SIGTERM is a request to stop: a search stops at its next check and
  // keeps its best (one arriving before it starts gives its start, simulated, as partial).
  const InterruptGuard guard(request.cancel);
  request.record_decisions = args.decisions;
  request.overrides = parseOverrides(args.overrides, in.graph, in.devices);
  // A method that is not a search takes milliseconds: it runs before the run is recorded, so a
  // bad override (a node not ready at its step) fails without leaving a failed run behind.
  // A method's refusal of the graph itself (the general policy's: too deep for it) names the file.
  auto placeGraph = [&] {
    try {
      return placeAndSimulate(request);
    } catch (const InputError& e) {
      if (e.file().empty() && e.where() == "graph") throw e.inFile(args.graph.graph);
      throw;
    }
  };
  std::optional<PlaceOutcome> early;
  if (!search) early = placeGraph();
  // A search is begun before it runs, so it shows in the store (and the studio) as it goes.
  nlohmann::json recorded = {{"params", params.values()},
                             {"budget", args.budget},
                             {"cost_model", toString(settings.cost_model)},
                             {"discipline", toString(settings.discipline)},
                             {"noise", settings.noise}};
  if (!args.overrides.empty()) recorded["overrides"] = args.overrides;
  sessions::RunSpec spec =
      runSpec("place", settings.method, args.graph, args.devices, std::move(recorded));
  spec.seed = settings.seed;
  RunRecording rec(args.record, spec, in.graph, in.devices);
  ProgressBar bar(settings.method);
  if (search)
    request.progress = [&](const Progress& p) {
      bar.update(p.done, p.total, "best " + fixedNumber(p.best_makespan_us) + " us");
      rec.metric("best_makespan_us", p.done, p.best_makespan_us);
    };
  PlaceOutcome outcome;
  try {
    outcome = early ? std::move(*early) : placeGraph();
  } catch (const std::exception& e) {
    rec.fail(e.what());
    throw;
  }
  bar.finish();
  const bool partial = outcome.placement.cancelled;
  rec.savePlacement(in.graph, outcome, search);
  rec.finish(partial ? sessions::RunStatus::Cancelled : sessions::RunStatus::Finished);
  writeRecordedResult(
      args.output, rec,
      [&] {
        nlohmann::json out = placeJson(in, settings, outcome);
        if (partial) out["interrupted_by"] = InterruptGuard::received();
        return out;
      },
      [&] { return placeText(in, settings, outcome, search); });
  if (partial)
    throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                      std::to_string(outcome.placement.evaluations) +
                      " evaluations: the best placement so far is above (partial)");
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
  place->add_flag("--decisions", args->decisions,
                  "With --json: each step's ready set and device estimates (sequential methods)");
  place->add_option("--override", args->overrides,
                    "Replay with a decision changed: STEP:node=ID or STEP:device=INDEX|NAME "
                    "(steps from 0; repeatable)");
  addSimOptions(*place, args->sim, "Seed for randomised methods and noise");
  addDisciplineOption(*place, args->sim.discipline);
  addOutputOptions(*place, args->output);
  addRecordOptions(*place, args->record);
  place->callback([args] { runPlace(*args); });
}

}  // namespace doppler::cli

// `doppler place` and `doppler methods`.
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_common.h"
#include "core/graph/input_error.h"
#include "core/heuristics/method.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/simulator.h"
#include "placement_json.h"
#include "progress_bar.h"
#include "run_recording.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"

namespace doppler::cli {
namespace {

struct PlaceArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string method = "critical-path";
  uint64_t seed = 1;
  long budget = 5000;
  std::vector<std::string> params;
  std::string costModel = "reference";
  double noise = 0;
  bool json = false;
  std::string out;
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

// Fixed notation for people: "1226510.4", not "1.22651e+06".
std::string fmt(double x) {
  std::ostringstream s;
  s << std::fixed;
  s.precision(x != 0 && std::abs(x) < 10 ? 3 : 1);
  s << x;
  return s.str();
}

void runPlace(const PlaceArgs& args) {
  PlaceSettings settings;
  settings.method = args.method;
  settings.params = parseParams(args.params);
  settings.cost_model = parseCostModel(args.costModel);
  settings.noise = args.noise;
  settings.seed = args.seed;
  settings.budget = args.budget;
  const Params params = checkSettings(settings);  // before loading inputs: a typo fails fast
  const Method& method = findMethod(settings.method);
  DataflowGraph g = loadGraph(args.graph);
  DeviceSet d = loadDevices(args.devices);
  checkFits(g, args.graph, d);
  // Begun before the method runs, so a long search shows in the store (and the studio) as it goes.
  sessions::RunSpec spec;
  spec.kind = "place";
  spec.method = method.name();
  spec.params = {{"graph_file", absoluteIfFile(args.graph.graph)},
                 {"scale", args.graph.scale},
                 {"devices", absoluteIfFile(args.devices.devices)},
                 {"params", params.values()},
                 {"budget", args.budget},
                 {"cost_model", toString(settings.cost_model)},
                 {"noise", args.noise}};
  spec.seed = args.seed;
  RunRecording rec(args.record, spec, g, d);
  std::optional<sessions::MetricWriter> metrics;
  int bestSeries = 0;
  if (rec.enabled() && method.isSearch()) {
    metrics.emplace(rec.store(), rec.id());
    bestSeries = metrics->series("best_makespan_us");
  }
  ProgressBar bar(method.name());
  PlaceRequest request;
  request.graph = &g;
  request.devices = &d;
  request.settings = settings;
  if (method.isSearch())
    request.progress = [&](const Progress& p) {
      bar.update(p.done, p.total, "best " + fmt(p.best_makespan_us) + " us");
      if (metrics) metrics->append(bestSeries, p.done, p.best_makespan_us);
    };
  PlaceOutcome outcome;
  try {
    outcome = placeAndSimulate(request);
    bar.finish();
    if (rec.enabled()) {
      if (metrics) metrics->flush();
      const Placement& placement = outcome.placement;
      sessions::RunStore& store = rec.store();
      store.savePlacement(rec.id(),
                          sessions::placementRecord(g, placement.assignment, placement.order));
      store.saveTimeline(rec.id(), sessions::timelineRecord(g, outcome.sim.schedule, "simulated"));
      if (placement.planned)
        store.saveTimeline(rec.id(), sessions::timelineRecord(g, *placement.planned, "planned"));
      std::map<std::string, double> figures = {{"makespan_us", outcome.makespan()},
                                               {"lower_bound_us", outcome.lower_bound_us}};
      if (placement.planned) figures["planned_makespan_us"] = placement.planned->makespan_us;
      if (method.isSearch()) figures["evaluations"] = static_cast<double>(placement.evaluations);
      store.setFigures(rec.id(), figures);
      rec.finish();
    }
  } catch (const std::exception& e) {
    rec.fail(e.what());
    throw;
  }
  const Placement& placement = outcome.placement;
  const SimResult& r = outcome.sim;
  const double lb = outcome.lower_bound_us;
  const SimOptions sim = settings.simOptions();
  if (args.json) {
    nlohmann::json out = placementJson(method.name(), g, d, placement.assignment, r, lb,
                                       toString(sim.model), args.seed);
    out["planned_makespan_us"] =
        placement.planned ? nlohmann::json(placement.planned->makespan_us) : nlohmann::json();
    out["params"] = params.values();
    out["evaluations"] = placement.evaluations;
    // The method's own schedule, where it builds one, so plan and simulation can be compared.
    if (placement.planned) out["planned_schedule"] = scheduleJson(g, *placement.planned);
    if (rec.enabled()) out["run_id"] = rec.id();
    writeOutput(args.out, dump(out));
    return;
  }
  std::ostringstream s;
  s << "method        " << method.name() << "\n"
    << "graph         " << g.name << " (" << g.nodeCount() << " nodes, " << g.edgeCount()
    << " edges)\n"
    << "devices       " << d.name << " (" << d.size() << ")\n"
    << "makespan      " << fmt(r.schedule.makespan_us) << " us (simulated, " << toString(sim.model)
    << ")\n";
  if (placement.planned) s << "planned       " << fmt(placement.planned->makespan_us) << " us\n";
  s << "lower bound   " << fmt(lb) << " us (ratio " << fmt(r.schedule.makespan_us / lb) << ")\n";
  s << "utilization  ";
  for (double u : r.utilization) s << " " << fmt(u * 100) << "%";
  s << "\n";
  if (method.isSearch()) s << "evaluations   " << placement.evaluations << "\n";
  if (rec.enabled()) s << "run " << rec.id() << " recorded in " << rec.db() << "\n";
  writeOutput(args.out, s.str());
}

void runMethods(bool json) {
  nlohmann::json out = nlohmann::json::array();
  std::ostringstream s;
  for (const auto& m : methods()) {
    nlohmann::json params = nlohmann::json::array();
    s << m->name() << "\n    " << m->description() << "\n";
    for (const ParamSpec& p : m->params()) {
      const char* type = p.type == ParamSpec::Type::Number    ? "number"
                         : p.type == ParamSpec::Type::Integer ? "integer"
                         : p.type == ParamSpec::Type::Choice  ? "choice"
                                                              : "bool";
      nlohmann::json jp = {{"name", p.name},
                           {"type", type},
                           {"default", p.default_value},
                           {"description", p.description}};
      if (p.type == ParamSpec::Type::Choice) jp["choices"] = p.choices;
      if (p.type == ParamSpec::Type::Number || p.type == ParamSpec::Type::Integer) {
        jp["min"] = p.min;
        jp["max"] = p.max;
      }
      params.push_back(jp);
      s << "    --param " << p.name << "=" << p.default_value << "  (" << type;
      if (p.type == ParamSpec::Type::Choice) {
        s << ":";
        for (auto& c : p.choices) s << " " << c;
      }
      s << ") " << p.description << "\n";
    }
    out.push_back({{"name", m->name()},
                   {"description", m->description()},
                   {"search", m->isSearch()},
                   {"params", params}});
  }
  writeOutput("", json ? dump(out) : s.str());
}

}  // namespace

void addPlaceCommands(CLI::App& app) {
  auto args = std::make_shared<PlaceArgs>();
  CLI::App* place =
      app.add_subcommand("place", "Place a graph on devices with a heuristic or search method");
  addGraphOptions(*place, args->graph);
  addDeviceOptions(*place, args->devices);
  place->add_option("--method,-m", args->method, "Method (see `doppler methods`)")
      ->capture_default_str();
  place->add_option("--seed", args->seed, "Seed for randomised methods and noise")
      ->capture_default_str();
  place->add_option("--budget", args->budget, "Simulator evaluations for search methods")
      ->capture_default_str();
  place->add_option("--param,-p", args->params, "Method parameter NAME=VALUE (repeatable)");
  place->add_option("--cost-model", args->costModel, "Simulator cost model: reference or links")
      ->capture_default_str();
  place->add_option("--noise", args->noise, "Log-normal noise sigma on every duration (0 = none)")
      ->capture_default_str();
  place->add_flag("--json", args->json, "Print one JSON object");
  place->add_option("--out,-o", args->out, "Write the result to a file instead of stdout");
  addRecordOptions(*place, args->record);
  place->callback([args] { runPlace(*args); });

  auto json = std::make_shared<bool>(false);
  CLI::App* list = app.add_subcommand("methods", "List placement methods and their parameters");
  list->add_flag("--json", *json, "Print JSON");
  list->callback([json] { runMethods(*json); });
}

}  // namespace doppler::cli

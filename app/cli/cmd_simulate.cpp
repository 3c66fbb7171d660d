// `doppler simulate` and `doppler export-trace`.
#include <sstream>

#include "cli_common.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/assignment_io.h"
#include "core/sim/chrome_trace.h"
#include "placement_json.h"
#include "run_recording.h"
#include "sessions/from_core.h"

namespace doppler::cli {
namespace {

struct SimArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string assignment;
  std::string method;  // export-trace only: place with a method instead of an assignment file
  std::string costModel = "reference";
  double noise = 0;
  uint64_t seed = 1;
  bool json = false;
  std::string out;
  RecordArgs record;
};

struct Loaded {
  DataflowGraph g;
  DeviceSet d;
  PlaceOutcome outcome;
};

// Simulates the --assignment file, or (export-trace) what --method places.
void simulateArgs(const SimArgs& args, Loaded& in) {
  in.g = loadGraph(args.graph);
  in.d = loadDevices(args.devices);
  checkFits(in.g, args.graph, in.d);
  PlaceRequest request;
  request.graph = &in.g;
  request.devices = &in.d;
  request.settings.method = args.method;
  request.settings.cost_model = parseCostModel(args.costModel);
  request.settings.noise = args.noise;
  request.settings.seed = args.seed;
  if (!args.assignment.empty())
    request.given = parseAssignment(readTextFile(args.assignment, 64u << 20), in.g, in.d.size(),
                                    args.assignment);
  in.outcome = placeAndSimulate(request);
}

void runSimulate(const SimArgs& args) {
  Loaded in;
  simulateArgs(args, in);
  const SimResult& r = in.outcome.sim;
  const double lb = in.outcome.lower_bound_us;
  // Simulation is quick: the run is recorded whole once it is done.
  sessions::RunSpec spec;
  spec.kind = "simulate";
  spec.method = "assignment";
  spec.params = {{"graph_file", absoluteIfFile(args.graph.graph)},
                 {"scale", args.graph.scale},
                 {"devices", absoluteIfFile(args.devices.devices)},
                 {"assignment_file", absoluteIfFile(args.assignment)},
                 {"cost_model", args.costModel},
                 {"noise", args.noise}};
  spec.seed = args.seed;
  RunRecording rec(args.record, spec, in.g, in.d);
  if (rec.enabled()) {
    sessions::RunStore& store = rec.store();
    store.savePlacement(rec.id(), sessions::placementRecord(in.g, in.outcome.placement.assignment));
    store.saveTimeline(rec.id(), sessions::timelineRecord(in.g, r.schedule, "simulated"));
    store.setFigures(rec.id(), {{"makespan_us", r.schedule.makespan_us}, {"lower_bound_us", lb}});
    rec.finish();
  }
  if (args.json) {
    nlohmann::json out = simResultJson(in.g, r);
    out["cost_model"] = args.costModel;
    out["lower_bound_us"] = lb;
    if (rec.enabled()) out["run_id"] = rec.id();
    writeOutput(args.out, dump(out));
    return;
  }
  std::ostringstream s;
  s.precision(6);
  s << "makespan     " << r.schedule.makespan_us << " us (" << args.costModel << ")\n";
  for (int d = 0; d < in.d.size(); ++d)
    s << "  " << in.d.devices[d].name << "  busy " << r.busy_us[d] << " us  utilization "
      << r.utilization[d] * 100 << "%\n";
  s << "transfers    " << r.schedule.transfers.size() << "\n";
  if (rec.enabled()) s << "run " << rec.id() << " recorded in " << rec.db() << "\n";
  writeOutput(args.out, s.str());
}

void runExportTrace(const SimArgs& args) {
  Loaded in;
  simulateArgs(args, in);
  writeOutput(args.out, chromeTraceJson(in.g, in.d, in.outcome.sim.schedule));
}

void addCommon(CLI::App& cmd, SimArgs& args) {
  addGraphOptions(cmd, args.graph);
  addDeviceOptions(cmd, args.devices);
  cmd.add_option("--cost-model", args.costModel, "reference (transfers never contend) or links")
      ->capture_default_str();
  cmd.add_option("--noise", args.noise, "Log-normal noise sigma on every duration (0 = none)")
      ->capture_default_str();
  cmd.add_option("--seed", args.seed, "Noise seed")->capture_default_str();
}

}  // namespace

void addSimulateCommands(CLI::App& app) {
  auto args = std::make_shared<SimArgs>();
  CLI::App* sim = app.add_subcommand(
      "simulate", "Simulate an assignment on the work-conserving asynchronous runtime");
  addCommon(*sim, *args);
  sim->add_option("--assignment,-a", args->assignment,
                  "Assignment JSON: {node: device}, {\"assignment\": {...}} (place --json output), "
                  "or [devices]")
      ->required();
  sim->add_flag("--json", args->json, "Print one JSON object");
  sim->add_option("--out,-o", args->out, "Write the result to a file instead of stdout");
  addRecordOptions(*sim, args->record);
  sim->callback([args] { runSimulate(*args); });

  auto targs = std::make_shared<SimArgs>();
  CLI::App* trace = app.add_subcommand(
      "export-trace", "Write a simulated timeline as Chrome Trace Event JSON (Perfetto)");
  addCommon(*trace, *targs);
  auto* a = trace->add_option("--assignment,-a", targs->assignment, "Assignment JSON file");
  auto* m = trace->add_option("--method,-m", targs->method, "Or place with this method first");
  a->excludes(m);
  trace->add_option("--out,-o", targs->out, "Trace file to write (stdout if omitted)");
  trace->callback([targs] {
    if (targs->assignment.empty() && targs->method.empty())
      throw InputError("", "export-trace", "give --assignment FILE or --method NAME");
    runExportTrace(*targs);
  });
}

}  // namespace doppler::cli

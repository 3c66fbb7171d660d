// `doppler simulate`: simulate a given assignment, record the run.
#include <sstream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/assignment_io.h"
#include "placement_json.h"
#include "run_recording.h"

namespace doppler::cli {
namespace {

struct SimulateArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string assignment;
  SimArgs sim;
  OutputArgs output;
  RecordArgs record;
};

std::string simulateText(const Inputs& in, const SimulateArgs& args, const SimResult& r) {
  std::ostringstream s;
  s.precision(6);
  s << "makespan     " << r.schedule.makespan_us << " us (" << args.sim.costModel << ", "
    << args.sim.discipline << ")\n";
  for (int device = 0; device < in.devices.size(); ++device)
    s << "  " << in.devices.devices[device].name << "  busy " << r.busy_us[device]
      << " us  utilization " << r.utilization[device] * 100 << "%\n";
  s << "transfers    " << r.schedule.transfers.size() << "\n";
  return s.str();
}

void runSimulate(const SimulateArgs& args) {
  const PlaceSettings settings = placeSettings(args.sim);  // a bad --discipline fails fast
  const Inputs in = loadInputs(args.graph, args.devices);
  PlaceRequest request = placeRequest(in, settings);
  AssignmentFile file = parseAssignmentFile(readTextFile(args.assignment, 64u << 20), in.graph,
                                            in.devices.size(), args.assignment);
  if (usesOrder(settings.discipline) && file.order.empty())
    throw InputError(args.assignment, "order",
                     std::string("the ") + toString(settings.discipline) +
                         " discipline needs an order, and the file has none (a file of `doppler "
                         "place --json --out` has one; by hand: {\"assignment\": {...}, "
                         "\"order\": [node ids]})");
  request.given = std::move(file.assignment);
  request.given_order = std::move(file.order);
  PlaceOutcome outcome;
  try {
    outcome = placeAndSimulate(request);
  } catch (const InputError& e) {
    throw e.file().empty() ? e.inFile(args.assignment) : e;  // e.g. an order that deadlocks
  }
  // Simulation is quick: the run is recorded whole once it is done.
  sessions::RunSpec spec = runSpec("simulate", "assignment", args.graph, args.devices,
                                   {{"assignment_file", absoluteIfFile(args.assignment)},
                                    {"cost_model", args.sim.costModel},
                                    {"discipline", args.sim.discipline},
                                    {"noise", args.sim.noise}});
  spec.seed = args.sim.seed;
  RunRecording rec(args.record, spec, in.graph, in.devices);
  rec.savePlacement(in.graph, outcome, false);
  rec.finish();
  writeRecordedResult(
      args.output, rec,
      [&] {
        nlohmann::json out = simResultJson(in.graph, outcome.sim);
        out["cost_model"] = args.sim.costModel;
        out["discipline"] = args.sim.discipline;
        out["lower_bound_us"] = outcome.lower_bound_us;
        return out;
      },
      [&] { return simulateText(in, args, outcome.sim); });
}

}  // namespace

void addSimulateCommand(CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Simulate an assignment on the work-conserving asynchronous runtime");
  addGraphOptions(*cmd, args->graph);
  addDeviceOptions(*cmd, args->devices);
  addSimOptions(*cmd, args->sim, "Noise seed");
  addDisciplineOption(*cmd, args->sim.discipline);
  cmd->add_option("--assignment,-a", args->assignment,
                  "Assignment JSON: {node: device}, {\"assignment\": {...}, \"order\": [...]} "
                  "(place --json output), or [devices]")
      ->required();
  addOutputOptions(*cmd, args->output);
  addRecordOptions(*cmd, args->record);
  cmd->callback([args] { runSimulate(*args); });
}

}  // namespace doppler::cli

// `doppler export-trace`: a simulated timeline as Chrome Trace Event JSON, for Perfetto.
#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/chrome_trace.h"

namespace doppler::cli {
namespace {

struct ExportTraceArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string assignment;
  std::string method;  // place with a method instead of reading an assignment
  SimArgs sim;
  OutputArgs output;
};

void runExportTrace(const ExportTraceArgs& args) {
  if (args.assignment.empty() && args.method.empty())
    throw InputError("", "export-trace", "give --assignment FILE or --method NAME");
  const Inputs in = loadInputs(args.graph, args.devices);
  PlaceSettings settings = placeSettings(args.sim);
  settings.method = args.method;
  PlaceRequest request = placeRequest(in, settings);
  if (!args.assignment.empty()) request.given = loadAssignment(args.assignment, in);
  const PlaceOutcome outcome = placeAndSimulate(request);
  writeResult(args.output, chromeTraceJson(in.graph, in.devices, outcome.sim.schedule));
}

}  // namespace

void addExportTraceCommand(CLI::App& app) {
  auto args = std::make_shared<ExportTraceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export-trace", "Write a simulated timeline as Chrome Trace Event JSON (Perfetto)");
  addGraphOptions(*cmd, args->graph);
  addDeviceOptions(*cmd, args->devices);
  addSimOptions(*cmd, args->sim, "Noise seed");
  auto* assignment = cmd->add_option("--assignment,-a", args->assignment, "Assignment JSON file");
  auto* method = cmd->add_option("--method,-m", args->method, "Or place with this method first");
  assignment->excludes(method);
  addOutputOptions(*cmd, args->output, false, "Trace file to write (stdout if omitted)");
  cmd->callback([args] { runExportTrace(*args); });
}

}  // namespace doppler::cli

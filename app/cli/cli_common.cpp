#include "cli_common.h"

#include <cmath>

#include "core/graph/device_spec.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "core/sim/assignment_io.h"

namespace doppler::cli {

void addGraphOptions(CLI::App& cmd, GraphArgs& args) {
  cmd.add_option(
         "--graph,-g", args.graph,
         "Graph file: dataflow-graph/1 JSON or Doppler reference text (detected by content)")
      ->required();
  cmd.add_option("--scale", args.scale,
                 "Doppler text graphs: microseconds per cost unit (default 1e-6)");
}

void addDeviceOptions(CLI::App& cmd, DeviceArgs& args) {
  cmd.add_option("--devices,-d", args.devices,
                 "A device-set/1 file, a preset (see `doppler devices list`), or N identical "
                 "default devices")
      ->required();
}

DataflowGraph loadGraph(const GraphArgs& args) {
  if (!std::isfinite(args.scale) || args.scale <= 0)
    throw InputError("", "--scale", "must be a finite positive number");
  ReadOptions opts;
  opts.doppler_scale = args.scale;
  return readGraphFile(args.graph, opts);
}

DeviceSet loadDevices(const DeviceArgs& args) {
  return resolveDevices(args.devices);
}

void checkFits(const DataflowGraph& g, const GraphArgs& args, const DeviceSet& d) {
  try {
    g.checkDeviceCount(d.size());
  } catch (const InputError& e) {
    throw e.inFile(args.graph);
  }
}

Inputs loadInputs(const GraphArgs& graph, const DeviceArgs& devices) {
  Inputs in{loadGraph(graph), loadDevices(devices)};
  checkFits(in.graph, graph, in.devices);
  return in;
}

void addSimOptions(CLI::App& cmd, SimArgs& args, const std::string& seedHelp) {
  cmd.add_option("--cost-model", args.costModel, "reference (transfers never contend) or links")
      ->capture_default_str();
  cmd.add_option("--noise", args.noise, "Log-normal noise sigma on every duration (0 = none)")
      ->capture_default_str();
  cmd.add_option("--seed", args.seed, seedHelp)->capture_default_str();
}

PlaceSettings placeSettings(const SimArgs& args) {
  PlaceSettings settings;
  settings.cost_model = parseCostModel(args.costModel);
  settings.noise = args.noise;
  settings.seed = args.seed;
  return settings;
}

PlaceRequest placeRequest(const Inputs& in, const PlaceSettings& settings) {
  PlaceRequest request;
  request.graph = &in.graph;
  request.devices = &in.devices;
  request.settings = settings;
  return request;
}

Assignment loadAssignment(const std::string& file, const Inputs& in) {
  return parseAssignment(readTextFile(file, 64u << 20), in.graph, in.devices.size(), file);
}

}  // namespace doppler::cli

#pragma once
// What every `doppler` subcommand shares: loading inputs named on the command line and writing
// results, with bad input reported as InputError (main prints one line and exits 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/pipeline/place_and_simulate.h"
#include "output.h"

namespace doppler::cli {

struct GraphArgs {
  std::string graph;
  double scale = 1e-6;            // Doppler text format: microseconds per cost unit
  std::vector<std::string> dims;  // ONNX models: NAME=VALUE bindings of dynamic dimensions
};
struct DeviceArgs {
  std::string devices;  // a device-set/1 file, a preset name, or a count of default devices
};

// For unsigned options (seeds, counts): refuses "-1", which CLI11 wraps to 2^64 - 1.
CLI::Validator nonNegativeInteger();

void addGraphOptions(CLI::App& cmd, GraphArgs& args);
void addDeviceOptions(CLI::App& cmd, DeviceArgs& args);

DataflowGraph loadGraph(const GraphArgs& args);
// --dim NAME=VALUE strings as a map (InputError naming the bad one).
std::map<std::string, int64_t> parseDims(const std::vector<std::string>& raw);
DeviceSet loadDevices(const DeviceArgs& args);
// Checks that the graph's per-device compute arrays fit the device set, naming the graph file.
void checkFits(const DataflowGraph& g, const GraphArgs& args, const DeviceSet& d);

// --graph and --devices loaded, the graph checked against the device set.
struct Inputs {
  DataflowGraph graph;
  DeviceSet devices;
};
Inputs loadInputs(const GraphArgs& graph, const DeviceArgs& devices);

// --cost-model, --noise and --seed: how the simulator judges (place, simulate, export-trace).
struct SimArgs {
  std::string costModel = "reference";
  double noise = 0;
  uint64_t seed = 1;
  std::string discipline = "fifo";  // only where addDisciplineOption offers it
};
void addSimOptions(CLI::App& cmd, SimArgs& args, const std::string& seedHelp);
// --discipline fifo|priority|sequence (place, simulate, eval).
void addDisciplineOption(CLI::App& cmd, std::string& discipline);
// The pipeline's settings with these options set (an unknown cost model: InputError).
PlaceSettings placeSettings(const SimArgs& args);
// A pipeline request for the inputs with these settings.
PlaceRequest placeRequest(const Inputs& in, const PlaceSettings& settings);
// An --assignment file for the inputs: {node: device}, {"assignment": {...}} or [devices].
Assignment loadAssignment(const std::string& file, const Inputs& in);

// Registration of each command (one file each: cmd_<name>.cpp).
void addGraphCommands(CLI::App& app);         // `doppler graph generate|info|convert`
void addGraphImportCommand(CLI::App& graph);  // `doppler graph import` (cmd_graph_import.cpp)
void addDevicesCommands(CLI::App& app);       // `doppler devices list|show`
void addMethodsCommand(CLI::App& app);
void addPlaceCommand(CLI::App& app);
void addSimulateCommand(CLI::App& app);
void addExportTraceCommand(CLI::App& app);
void addDemoCommand(CLI::App& app);
void addRunsCommands(CLI::App& app);   // `doppler runs ...`: the run store
void addTrainCommands(CLI::App& app);  // `doppler train`, `doppler eval`
void addFleetCommands(CLI::App& app);  // `doppler fleet ...` (fleet_cli.h)
void addExecCommand(CLI::App& app);    // `doppler exec`: real execution (core/exec)
void addCalibrateCommand(CLI::App& app);
void addPolicyCommands(CLI::App& app);  // `doppler policy export|show` (cmd_policy.cpp)

}  // namespace doppler::cli

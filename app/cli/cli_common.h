#pragma once
// What every `doppler` subcommand shares: loading inputs named on the command line and writing
// results, with bad input reported as InputError (main prints one line and exits 2).
#include <CLI/CLI.hpp>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"

namespace doppler::cli {

struct GraphArgs {
  std::string graph;
  double scale = 1e-6;  // Doppler text format: microseconds per cost unit
};
struct DeviceArgs {
  std::string devices;  // a device-set/1 file, a preset name, or a count of default devices
};

void addGraphOptions(CLI::App& cmd, GraphArgs& args);
void addDeviceOptions(CLI::App& cmd, DeviceArgs& args);

DataflowGraph loadGraph(const GraphArgs& args);
DeviceSet loadDevices(const DeviceArgs& args);
// Checks that the graph's per-device compute arrays fit the device set, naming the graph file.
void checkFits(const DataflowGraph& g, const GraphArgs& args, const DeviceSet& d);

// Writes text to `path`, or to stdout when path is empty or "-". Throws InputError if the file
// cannot be written.
void writeOutput(const std::string& path, const std::string& text);

// Registration of each subcommand group (one file each).
void addGraphCommands(CLI::App& app);
void addPlaceCommands(CLI::App& app);
void addSimulateCommands(CLI::App& app);
void addDemoCommand(CLI::App& app);
void addRunsCommands(CLI::App& app);  // `doppler runs ...`: the run store
void addTrainCommands(
    CLI::App& app);  // `doppler train`, `doppler eval` (cmd_train.cpp; DOPPLER_TORCH)

}  // namespace doppler::cli

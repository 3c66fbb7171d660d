#include "cli_common.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/graph/device_spec.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"

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

void writeOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  // Write beside the target and rename, so a failed write never leaves a half file behind.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw InputError(path, "", std::string("cannot write: ") + std::strerror(errno));
    out << text;
    out.close();
    if (!out) throw InputError(path, "", "write failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, "", "cannot write: " + ec.message());
}

}  // namespace doppler::cli

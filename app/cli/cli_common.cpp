#include "cli_common.h"

#include <charconv>
#include <cmath>

#include "core/common/input_error.h"
#include "core/graph/device_spec.h"
#include "core/graph/graph_io.h"
#include "core/sim/assignment_io.h"
#include "core/sim/cost_table.h"

namespace doppler::cli {

void addGraphOptions(CLI::App& cmd, GraphArgs& args) {
  cmd.add_option(
         "--graph,-g", args.graph,
         "Graph file: dataflow-graph/1 JSON or Doppler reference text (detected by content)")
      ->required();
  cmd.add_option("--scale", args.scale,
                 "Doppler text graphs: microseconds per cost unit (default 1e-6)");
  cmd.add_option("--dim", args.dims,
                 "ONNX models: bind a dynamic dimension, NAME=VALUE (repeatable)");
}

std::map<std::string, int64_t> parseDims(const std::vector<std::string>& raw) {
  std::map<std::string, int64_t> dims;
  for (const std::string& d : raw) {
    const auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", "--dim " + d, "expected NAME=VALUE, e.g. --dim batch=8");
    const std::string name = d.substr(0, eq), value = d.substr(eq + 1);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || value.empty() || v <= 0)
      throw InputError("", "--dim " + name, "'" + value + "' is not a positive integer");
    if (!dims.emplace(name, v).second) throw InputError("", "--dim " + name, "given twice");
  }
  return dims;
}

void addDeviceOptions(CLI::App& cmd, DeviceArgs& args) {
  cmd.add_option("--devices,-d", args.devices,
                 "A device-set/1 file, a preset (see `doppler devices list`), or N identical "
                 "default devices")
      ->required();
}

CLI::Validator nonNegativeInteger() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const size_t first = value.find_first_not_of(" \t");
        if (first != std::string::npos && value[first] == '-')
          return "expected a non-negative integer, found " + value;
        // 2^64 and beyond wrapped too.
        uint64_t parsed = 0;
        const char* begin = value.data() + (first == std::string::npos ? 0 : first);
        const auto [end, ec] = std::from_chars(begin, value.data() + value.size(), parsed);
        (void)end;
        if (ec == std::errc::result_out_of_range)
          return "expected an integer below 2^64, found " + value;
        return {};
      },
      "");  // the option's type already reads UINT in --help
}

DataflowGraph loadGraph(const GraphArgs& args) {
  if (!std::isfinite(args.scale) || args.scale <= 0)
    throw InputError("", "--scale", "must be a finite positive number");
  ReadOptions opts;
  opts.doppler_scale = args.scale;
  opts.onnx.dims = parseDims(args.dims);
  return readGraphFile(args.graph, opts);
}

DeviceSet loadDevices(const DeviceArgs& args) {
  return resolveDevices(args.devices);
}

void checkFits(const DataflowGraph& g, const GraphArgs& args, const DeviceSet& d) {
  try {
    g.checkDeviceCount(d.size());
    // The costs resolved once here: an empty graph, or times whose sums overflow, are the
    // file's errors, named with it (not a null makespan later).
    (void)CostTable(g, d);
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
  cmd.add_option("--seed", args.seed, seedHelp)->check(nonNegativeInteger())->capture_default_str();
}

void addDisciplineOption(CLI::App& cmd, std::string& discipline) {
  cmd.add_option("--discipline", discipline,
                 "How a device picks its next node: fifo (first ready), priority (the method's "
                 "order, work-conserving) or sequence (the planned order, waiting for each)")
      ->capture_default_str();
}

PlaceSettings placeSettings(const SimArgs& args) {
  PlaceSettings settings;
  settings.cost_model = parseCostModel(args.costModel);
  settings.discipline = disciplineFromName(args.discipline);
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

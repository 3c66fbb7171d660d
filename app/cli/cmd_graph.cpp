// `doppler graph generate|info|convert` and `doppler devices list|show`.
#include <algorithm>
#include <map>
#include <sstream>

#include "cli_common.h"
#include "core/graph/device_presets.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "core/sim/cost_table.h"
#include "core/sim/lower_bound.h"
#include "placement_json.h"

namespace doppler::cli {
namespace {

std::map<std::string, double> parseGenParams(const std::vector<std::string>& raw) {
  std::map<std::string, double> out;
  for (const std::string& p : raw) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", "--param " + p, "expected NAME=VALUE");
    const std::string value = p.substr(eq + 1);
    try {
      size_t used = 0;
      double x = std::stod(value, &used);
      if (used != value.size()) throw std::invalid_argument("trailing");
      out[p.substr(0, eq)] = x;
    } catch (const std::exception&) {
      throw InputError("", "--param " + p.substr(0, eq), "'" + value + "' is not a number");
    }
  }
  return out;
}

struct GenerateArgs {
  std::string kind;
  std::vector<std::string> params;
  std::string out;
  bool list = false;
};

void runGenerate(const GenerateArgs& a) {
  if (a.list || a.kind.empty()) {
    std::ostringstream s;
    for (const auto& k : generatorKinds()) {
      s << k.kind << "\n    " << k.description << "\n";
      for (const auto& p : k.params)
        s << "    --param " << p.name << "=" << p.value << "  [" << p.min << ", " << p.max << "] "
          << p.description << "\n";
    }
    writeOutput("", s.str());
    return;
  }
  DataflowGraph g = generateGraph(a.kind, parseGenParams(a.params));
  writeOutput(a.out, writeGraphJson(g));
}

struct InfoArgs {
  GraphArgs graph;
  std::string devices;
  bool json = false;
};

void runInfo(const InfoArgs& a) {
  DataflowGraph g = loadGraph(a.graph);
  DeviceArgs da{a.devices.empty() ? "4" : a.devices};
  DeviceSet d = loadDevices(da);
  checkFits(g, a.graph, d);
  CostTable c(g, d);
  std::map<std::string, int> ops;
  double flops = 0, bytes = 0, computeUs = 0;
  int sources = 0, sinks = 0;
  for (int v = 0; v < g.nodeCount(); ++v) {
    ++ops[g.node(v).op.empty() ? "(none)" : g.node(v).op];
    flops += g.node(v).flops;
    computeUs += c.meanCompute(v);
    if (g.inEdges(v).empty()) ++sources;
    if (g.outEdges(v).empty()) ++sinks;
  }
  for (const Edge& e : g.edges()) bytes += e.bytes;
  // Depth: longest path in edges.
  std::vector<int> depth(g.nodeCount(), 0);
  int maxDepth = 0;
  for (int v : g.topologicalOrder())
    for (int e : g.outEdges(v)) {
      depth[g.edge(e).dst] = std::max(depth[g.edge(e).dst], depth[v] + 1);
      maxDepth = std::max(maxDepth, depth[g.edge(e).dst]);
    }
  LowerBound lb = lowerBound(c);
  nlohmann::json out = {{"name", g.name},
                        {"nodes", g.nodeCount()},
                        {"edges", g.edgeCount()},
                        {"sources", sources},
                        {"sinks", sinks},
                        {"depth", maxDepth + 1},
                        {"ops", ops},
                        {"total_flops", flops},
                        {"total_edge_bytes", bytes},
                        {"total_compute_us", computeUs},
                        {"devices", d.size()},
                        {"lower_bound_us", lb.value()},
                        {"critical_path_us", lb.critical_path_us},
                        {"work_bound_us", lb.work_us}};
  if (a.json) {
    writeOutput("", dump(out));
    return;
  }
  std::ostringstream s;
  s.precision(6);
  s << g.name << ": " << g.nodeCount() << " nodes, " << g.edgeCount() << " edges, depth "
    << maxDepth + 1 << ", " << sources << " sources, " << sinks << " sinks\n"
    << "total compute " << computeUs << " us (mean over devices), " << flops << " FLOP, " << bytes
    << " edge bytes\n"
    << "lower bound on " << d.size() << " devices: " << lb.value() << " us (critical path "
    << lb.critical_path_us << ", work " << lb.work_us << ")\nops:";
  for (auto& [op, n] : ops) s << " " << op << "=" << n;
  s << "\n";
  writeOutput("", s.str());
}

}  // namespace

void addGraphCommands(CLI::App& app) {
  CLI::App* graph = app.add_subcommand("graph", "Generate, inspect and convert dataflow graphs");
  graph->require_subcommand(1);

  auto gen = std::make_shared<GenerateArgs>();
  CLI::App* g = graph->add_subcommand(
      "generate", "Generate a paper workload (chainmm, ffnn, llama-block, llama-layer)");
  g->add_option("kind", gen->kind, "Workload kind");
  g->add_option("--param,-p", gen->params, "Generator parameter NAME=VALUE (repeatable)");
  g->add_option("--out,-o", gen->out, "Write the dataflow-graph/1 JSON here (stdout if omitted)");
  g->add_flag("--list", gen->list, "List kinds and their parameters");
  g->callback([gen] { runGenerate(*gen); });

  auto info = std::make_shared<InfoArgs>();
  CLI::App* i = graph->add_subcommand("info", "Summarise a graph: size, ops, work, lower bound");
  addGraphOptions(*i, info->graph);
  i->add_option("--devices,-d", info->devices,
                "Device set for costs and the lower bound (default 4)");
  i->add_flag("--json", info->json, "Print one JSON object");
  i->callback([info] { runInfo(*info); });

  auto conv = std::make_shared<std::pair<GraphArgs, std::string>>();
  CLI::App* c = graph->add_subcommand(
      "convert", "Convert a graph (e.g. Doppler text) to dataflow-graph/1 JSON");
  addGraphOptions(*c, conv->first);
  c->add_option("--out,-o", conv->second, "Output file (stdout if omitted)");
  c->callback([conv] { writeOutput(conv->second, writeGraphJson(loadGraph(conv->first))); });

  CLI::App* devices = app.add_subcommand("devices", "List and write device-set presets");
  devices->require_subcommand(1);
  CLI::App* list = devices->add_subcommand("list", "List device presets");
  list->callback([] {
    std::ostringstream s;
    for (const auto& p : devicePresets())
      s << p.name << "\n    " << p.description << "\n    source: " << p.source << "\n";
    writeOutput("", s.str());
  });
  auto show = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* sh =
      devices->add_subcommand("show", "Write a preset (or N default devices) as device-set/1 JSON");
  sh->add_option("name", show->first, "Preset name or device count")->required();
  sh->add_option("--out,-o", show->second, "Output file (stdout if omitted)");
  sh->callback([show] {
    writeOutput(show->second, writeDeviceSetJson(loadDevices(DeviceArgs{show->first})));
  });
}

}  // namespace doppler::cli

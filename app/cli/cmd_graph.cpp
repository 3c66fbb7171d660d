// `doppler graph generate|info|convert|coarsen`: make, summarise, convert and coarsen dataflow
// graphs.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/coarsening.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/sim/cost_table.h"
#include "core/sim/fixed_costs.h"
#include "core/sim/lower_bound.h"

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
  OutputArgs output;
  bool list = false;
  std::optional<double> fixedCosts;  // the paper's cost convention, edges this times their producer
  std::string devices;               // whose first device fixes the compute times
};

std::string generatorsText() {
  std::ostringstream s;
  for (const auto& kind : generatorKinds()) {
    s << kind.kind << "\n    " << kind.description << "\n";
    for (const auto& p : kind.params)
      s << "    --param " << p.name << "=" << p.value << "  [" << p.min << ", " << p.max << "] "
        << p.description << "\n";
  }
  return s.str();
}

void runGenerate(const GenerateArgs& args) {
  if (args.list || args.kind.empty()) {
    writeOutput("", generatorsText());  // the list goes to the terminal, never to --out
    return;
  }
  DataflowGraph g = generateGraph(args.kind, parseGenParams(args.params));
  if (args.fixedCosts) {
    const DeviceSet d = loadDevices(DeviceArgs{args.devices.empty() ? "4" : args.devices});
    g = withFixedCosts(g, d, *args.fixedCosts);
  } else if (!args.devices.empty()) {
    throw InputError("", "--devices",
                     "only with --fixed-costs (a generated graph's costs follow "
                     "the devices it is placed on)");
  }
  writeResult(args.output, writeGraphJson(g));
}

struct InfoArgs {
  GraphArgs graph;
  std::string devices;
  OutputArgs output;
};

// Size, shape, work and lower bound of a graph on a device set (the JSON of `graph info`).
nlohmann::json graphInfo(const DataflowGraph& g, const DeviceSet& d) {
  const CostTable c(g, d);
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
  const LowerBound lb = lowerBound(c);
  return {{"name", g.name},
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
}

// What a coarsened graph's groups stand for (the "groups" object of `graph info`).
nlohmann::json groupsInfo(const DataflowGraph& g) {
  size_t largest = 0;
  int single = 0;
  for (const auto& members : g.groups->members) {
    largest = std::max(largest, members.size());
    if (members.size() == 1) ++single;
  }
  return {{"fine_nodes", g.groups->fine.nodeCount()},
          {"fine_edges", g.groups->fine.edgeCount()},
          {"largest_group", largest},
          {"groups_of_one", single}};
}

std::string graphInfoText(const nlohmann::json& info) {
  auto number = [&](const char* key) { return info[key].get<double>(); };
  std::ostringstream s;
  s.precision(6);
  s << info["name"].get<std::string>() << ": " << info["nodes"] << " nodes, " << info["edges"]
    << " edges, depth " << info["depth"] << ", " << info["sources"] << " sources, " << info["sinks"]
    << " sinks\n"
    << "total compute " << number("total_compute_us") << " us (mean over devices), "
    << number("total_flops") << " FLOP, " << number("total_edge_bytes") << " edge bytes\n"
    << "lower bound on " << info["devices"] << " devices: " << number("lower_bound_us")
    << " us (critical path " << number("critical_path_us") << ", work " << number("work_bound_us")
    << ")\nops:";
  for (const auto& [op, count] : info["ops"].items()) s << " " << op << "=" << count;
  s << "\n";
  if (info.contains("groups")) {
    const nlohmann::json& groups = info["groups"];
    s << "groups: the " << info["nodes"] << " groups stand for " << groups["fine_nodes"]
      << " fine nodes and " << groups["fine_edges"] << " fine edges (largest group "
      << groups["largest_group"] << " nodes, " << groups["groups_of_one"] << " of one node)\n";
  }
  return s.str();
}

void runInfo(const InfoArgs& args) {
  const Inputs in = loadInputs(args.graph, DeviceArgs{args.devices.empty() ? "4" : args.devices});
  nlohmann::json info = graphInfo(in.graph, in.devices);
  if (in.graph.groups) info["groups"] = groupsInfo(in.graph);
  writeResult(
      args.output, [&] { return info; }, [&] { return graphInfoText(info); });
}

struct ConvertArgs {
  GraphArgs graph;
  double workFactor = 0;  // 0: as it is
  OutputArgs output;
};

// The graph as `doppler exec --kernels torch --size-factor F` runs it: FLOPs and bytes times F,
// with the bytes each kernel moves for the roofline. Placing and training on it makes the
// simulator see the work the executor will do (scripts/experiments/stage3.sh).
void runConvert(const ConvertArgs& args) {
  DataflowGraph g = loadGraph(args.graph);
  if (args.workFactor != 0) {
    if (!(args.workFactor > 0) || !std::isfinite(args.workFactor))
      throw InputError("", "--work-factor", "must be a positive number");
    g = exec::kernelGraph(g, args.workFactor);
  }
  writeResult(args.output, writeGraphJson(g));
}

struct CoarsenArgs {
  GraphArgs graph;
  int maxNodes = 0;
  OutputArgs output;
};

nlohmann::json coarsenSummary(const CoarsenStats& st) {
  return {{"fine_nodes", st.fine_nodes},     {"coarse_nodes", st.coarse_nodes},
          {"input_merges", st.input_merges}, {"chain_merges", st.chain_merges},
          {"scope_merges", st.scope_merges}, {"forced_merges", st.forced_merges},
          {"scope_depth", st.scope_depth}};
}

std::string coarsenSummaryText(const CoarsenStats& st) {
  std::ostringstream s;
  s << "coarsened " << st.fine_nodes << " nodes -> " << st.coarse_nodes
    << " groups: " << st.input_merges << " weight inputs into their consumer, " << st.chain_merges
    << " chain merges, " << st.scope_merges << " scope merges";
  if (st.scope_depth >= 0) s << " (down to scope depth " << st.scope_depth << ")";
  s << ", " << st.forced_merges << " neighbour merges";
  return s.str();
}

// The coarse graph goes to --out (stdout if omitted); the one-line summary to stderr, or with
// --json to stdout as one JSON object (then --out is required).
void runCoarsen(const CoarsenArgs& args) {
  if (args.maxNodes < 1)
    throw InputError("", "--max-nodes",
                     "must be at least 1 (is " + std::to_string(args.maxNodes) + ")");
  if (args.output.json && (args.output.out.empty() || args.output.out == "-"))
    throw InputError("", "--json", "prints the summary on stdout, so the graph needs --out FILE");
  const DataflowGraph g = loadGraph(args.graph);
  CoarsenStats st;
  DataflowGraph coarse;
  try {
    coarse = coarsenGraph(g, args.maxNodes, &st);
  } catch (const InputError& e) {
    throw e.inFile(args.graph.graph);
  }
  writeOutput(args.output.out, writeGraphJson(coarse));
  if (args.output.json)
    writeOutput("", dump(coarsenSummary(st)) + "\n");
  else
    std::cerr << coarsenSummaryText(st) << "\n";
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
  addOutputOptions(*g, gen->output, false,
                   "Write the dataflow-graph/1 JSON here (stdout if omitted)");
  g->add_flag("--list", gen->list, "List kinds and their parameters");
  g->add_option("--fixed-costs", gen->fixedCosts,
                "The Doppler paper's cost convention: fixed compute times (on the first of "
                "--devices) and each edge RATIO times its producer's (the paper's files use 4)");
  g->add_option("--devices,-d", gen->devices,
                "With --fixed-costs: whose first device's compute times to fix (default 4)");
  g->callback([gen] { runGenerate(*gen); });

  auto info = std::make_shared<InfoArgs>();
  CLI::App* i = graph->add_subcommand("info", "Summarise a graph: size, ops, work, lower bound");
  addGraphOptions(*i, info->graph);
  i->add_option("--devices,-d", info->devices,
                "Device set for costs and the lower bound (default 4)");
  addOutputOptions(*i, info->output);
  i->callback([info] { runInfo(*info); });

  auto conv = std::make_shared<ConvertArgs>();
  CLI::App* c = graph->add_subcommand(
      "convert", "Convert a graph (e.g. Doppler text) to dataflow-graph/1 JSON");
  addGraphOptions(*c, conv->graph);
  addOutputOptions(*c, conv->output, false, "Output file (stdout if omitted)");
  c->add_option("--work-factor", conv->workFactor,
                "Multiply FLOPs and bytes by F, as `doppler exec --size-factor F` runs the graph "
                "(and fill each node's memory bytes for the roofline)");
  c->callback([conv] { runConvert(*conv); });

  auto coarsen = std::make_shared<CoarsenArgs>();
  CLI::App* k = graph->add_subcommand(
      "coarsen", "Merge chains and name scopes into groups until at most N nodes remain");
  addGraphOptions(*k, coarsen->graph);
  k->add_option("--max-nodes,-n", coarsen->maxNodes, "The most nodes (groups) to keep")->required();
  addOutputOptions(*k, coarsen->output, true,
                   "Write the coarse dataflow-graph/1 JSON here (stdout if omitted)");
  k->callback([coarsen] { runCoarsen(*coarsen); });
}

}  // namespace doppler::cli

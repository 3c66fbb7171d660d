// `doppler demo`: the main job of the headless install. Generates the four paper workloads,
// places each with every method (and critical-path with the earliest-join device rule) on 4
// devices, the shipped general policy (method doppler) among them where its weights are installed,
// and prints the comparison table.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/graph/device_spec.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/graph/paper_data.h"
#include "core/heuristics/method.h"
#include "core/pipeline/place_and_simulate.h"
#include "progress_bar.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

struct DemoArgs {
  std::string devices = kDefaultDevicesSpec;
  long budget = 5000;
  uint64_t seed = 1;
  bool shipped = true;
  OutputArgs output;
  std::string data_dir;  // holds doppler-graphs/ (the paper graphs)
};

// Microseconds as milliseconds: two decimals, none from 1000 ms up.
std::string milliseconds(double us) {
  return fixedNumber(us / 1000, us < 1e6 ? 2 : 0);
}

struct Workload {
  std::string label;
  DataflowGraph graph;
};

// A column of the table: every method with its defaults, and after critical-path the same with
// the earliest-join device rule (the join look-ahead: the strongest list schedule on the paper's
// graphs, docs/general_policy.md).
struct Column {
  std::string label, method;
  ParamValues params;
};

std::vector<Column> columns() {
  std::vector<Column> out;
  for (const auto& m : methods()) {
    // The general policy searches with the same budget as local search and no time limit, so
    // the table depends on the seed alone.
    if (m->name() == "doppler") {
      out.push_back({"doppler (general policy)", m->name(), {{"time_ms", "0"}}});
      continue;
    }
    out.push_back({m->name(), m->name(), {}});
    if (m->name() == "critical-path")
      out.push_back(
          {"critical-path (earliest-join)", m->name(), {{"device_rule", "earliest-join"}}});
  }
  return out;
}

void runDemo(const DemoArgs& args) {
  DeviceSet d = loadDevices(DeviceArgs{args.devices});
  std::vector<Workload> workloads;
  for (const char* kind : {"chainmm", "ffnn", "llama-block", "llama-layer"})
    workloads.push_back({std::string(kind) + " (generated)", generateGraph(kind)});
  if (args.shipped) {
    // The paper graphs are not in the repository: --data-dir, else $DOPPLER_DATA_DIR, else the
    // built-in default (core/graph/paper_data.h). Missing ones are named once on stderr.
    const std::pair<const char*, const char*> files[] = {
        {"CHAINMM (paper)", "chain_mm_112nodes.txt"},
        {"FFNN (paper)", "ffnn_192nodes.txt"},
        {"LLAMA-BLOCK (paper)", "transformer_block_215nodes.txt"},
        {"LLAMA-LAYER (paper)", "full_transformer_layer_261nodes.txt"}};
    const DataDir dir = findDataDir(args.data_dir);
    std::vector<std::string> wanted;
    for (auto& [label, file] : files) wanted.push_back(file);
    const std::vector<std::string> missing = missingPaperGraphs(dir, wanted);
    if (!missing.empty())
      std::fprintf(stderr, "doppler demo: %s; going on without them\n",
                   missingPaperGraphsMessage(dir, missing).c_str());
    for (auto& [label, file] : files)
      if (const PaperGraph p = paperGraph(file, dir); p.found())
        workloads.push_back({label, readGraphFile(p.path)});
  }
  const std::vector<Column> cols = columns();
  std::vector<std::string> names;
  for (const Column& c : cols) names.push_back(c.label);
  // The shipped general policy is the method `doppler` where its weights are installed (main.cpp
  // registers it); a build installed without them shows the heuristics alone.
  try {
    findMethod("doppler");
  } catch (const InputError&) {
    std::fprintf(stderr, "doppler demo: no shipped general policy; going on without it\n");
  }
  nlohmann::json results = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows = {{"workload", "nodes", "bound"}};
  rows[0].insert(rows[0].end(), names.begin(), names.end());
  ProgressBar bar("demo");
  long step = 0, steps = static_cast<long>(workloads.size() * names.size());
  for (const Workload& w : workloads) {
    const CostTable costs(w.graph, d);
    std::vector<double> makespans;
    double lb = 0;
    nlohmann::json result = {{"workload", w.label}, {"nodes", w.graph.nodeCount()}};
    for (const Column& c : cols) {
      PlaceRequest request;
      request.graph = &w.graph;
      request.devices = &d;
      request.costs = &costs;
      request.settings.method = c.method;
      request.settings.params = c.params;
      request.settings.seed = args.seed;
      request.settings.budget = args.budget;
      const PlaceOutcome outcome = placeAndSimulate(request);
      lb = outcome.lower_bound_us;
      makespans.push_back(outcome.makespan());
      result["makespan_us"][c.label] = makespans.back();
      bar.update(++step, steps, w.label);
    }
    result["lower_bound_us"] = lb;
    results.push_back(result);
    const double best = *std::min_element(makespans.begin(), makespans.end());
    std::vector<std::string> row = {w.label, std::to_string(w.graph.nodeCount()), milliseconds(lb)};
    for (double ms : makespans)
      row.push_back(milliseconds(ms) + " (" + fixedNumber(ms / lb, 2) + ")" +
                    (ms == best ? "*" : " "));
    rows.push_back(row);
  }
  bar.finish();
  std::ostringstream table;
  table << "Makespan in ms on " << d.name << " (" << d.size()
        << " devices, reference cost model; local-search " << args.budget << " evaluations, seed "
        << args.seed << ").\n"
        << "Ratio to the lower bound in brackets; * marks the best method per workload.\n\n";
  std::vector<Align> align(rows[0].size(), Align::Right);  // numbers, right-aligned
  align[0] = Align::Left;
  table << textTable(rows, align);
  writeResult(
      args.output,
      [&] {
        return nlohmann::json{{"devices", d.name}, {"budget", args.budget}, {"results", results}};
      },
      [&] { return table.str(); });
}

}  // namespace

void addDemoCommand(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* demo =
      app.add_subcommand("demo", "Place the four paper workloads with every method and compare");
  demo->add_option("--devices,-d", args->devices, "Device set (file, preset or count)")
      ->capture_default_str();
  demo->add_option("--budget", args->budget, "Local-search evaluations")->capture_default_str();
  demo->add_option("--seed", args->seed, "Seed")
      ->check(nonNegativeInteger())
      ->capture_default_str();
  demo->add_flag("!--no-shipped", args->shipped, "Leave out the paper graphs");
  demo->add_option(
      "--data-dir", args->data_dir,
      "Folder whose doppler-graphs/ holds the paper graphs (default: $DOPPLER_DATA_DIR, else the "
      "built-in default when it exists)");
  addOutputOptions(*demo, args->output);
  demo->callback([args] { runDemo(*args); });
}

}  // namespace doppler::cli

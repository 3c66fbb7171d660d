// `doppler demo`: the main job of the headless install. Generates the four paper workloads,
// places each with every method on 4 devices, and prints the comparison table.
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "cli_common.h"
#include "core/graph/device_presets.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/heuristics/method.h"
#include "core/pipeline/place_and_simulate.h"
#include "placement_json.h"
#include "progress_bar.h"

namespace doppler::cli {
namespace {

struct DemoArgs {
  std::string devices = "4xP100-PCIe";
  long budget = 5000;
  uint64_t seed = 1;
  bool shipped = true;
  bool json = false;
};

struct Workload {
  std::string label;
  DataflowGraph graph;
};

void runDemo(const DemoArgs& args) {
  DeviceSet d = loadDevices(DeviceArgs{args.devices});
  std::vector<Workload> workloads;
  for (const char* kind : {"chainmm", "ffnn", "llama-block", "llama-layer"})
    workloads.push_back({std::string(kind) + " (generated)", generateGraph(kind)});
  const std::string dir = std::string(DOPPLER_SHARED_DATA) + "/doppler-graphs/";
  if (args.shipped && std::filesystem::exists(dir)) {
    const std::pair<const char*, const char*> files[] = {
        {"CHAINMM (paper)", "chain_mm_112nodes.txt"},
        {"FFNN (paper)", "ffnn_192nodes.txt"},
        {"LLAMA-BLOCK (paper)", "transformer_block_215nodes.txt"},
        {"LLAMA-LAYER (paper)", "full_transformer_layer_261nodes.txt"}};
    for (auto& [label, file] : files)
      if (std::filesystem::exists(dir + file))
        workloads.push_back({label, readGraphFile(dir + file)});
  }
  std::vector<std::string> names;
  for (const auto& m : methods()) names.push_back(m->name());
  nlohmann::json results = nlohmann::json::array();
  std::ostringstream table;
  table << "Makespan in ms on " << d.name << " (" << d.size()
        << " devices, reference cost model; local-search " << args.budget << " evaluations, seed "
        << args.seed << ").\n"
        << "Ratio to the lower bound in brackets; * marks the best method per workload.\n\n";
  table << std::left << std::setw(22) << "workload" << std::right << std::setw(6) << "nodes"
        << std::setw(10) << "bound";
  for (auto& n : names) table << " " << std::setw(16) << n;
  table << "\n";
  ProgressBar bar("demo");
  long step = 0, steps = static_cast<long>(workloads.size() * names.size());
  for (const Workload& w : workloads) {
    const CostTable costs(w.graph, d);
    std::vector<double> makespans;
    double lb = 0;
    nlohmann::json row = {{"workload", w.label}, {"nodes", w.graph.nodeCount()}};
    for (const auto& m : methods()) {
      PlaceRequest request;
      request.graph = &w.graph;
      request.devices = &d;
      request.costs = &costs;
      request.settings.method = m->name();
      request.settings.seed = args.seed;
      request.settings.budget = args.budget;
      const PlaceOutcome outcome = placeAndSimulate(request);
      lb = outcome.lower_bound_us;
      makespans.push_back(outcome.makespan());
      row["makespan_us"][m->name()] = makespans.back();
      bar.update(++step, steps, w.label);
    }
    row["lower_bound_us"] = lb;
    results.push_back(row);
    const double best = *std::min_element(makespans.begin(), makespans.end());
    table << std::left << std::setw(22) << w.label << std::right << std::setw(6)
          << w.graph.nodeCount() << std::setw(10) << std::fixed
          << std::setprecision(lb < 1e6 ? 2 : 0) << lb / 1000;
    for (double ms : makespans) {
      std::ostringstream cell;
      cell << std::fixed << std::setprecision(ms < 1e6 ? 2 : 0) << ms / 1000 << " ("
           << std::setprecision(2) << ms / lb << ")" << (ms == best ? "*" : " ");
      table << " " << std::setw(16) << cell.str();
    }
    table << "\n";
  }
  bar.finish();
  writeOutput("", args.json
                      ? dump({{"devices", d.name}, {"budget", args.budget}, {"results", results}})
                      : table.str());
}

}  // namespace

void addDemoCommand(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* demo =
      app.add_subcommand("demo", "Place the four paper workloads with every method and compare");
  demo->add_option("--devices,-d", args->devices, "Device set (file, preset or count)")
      ->capture_default_str();
  demo->add_option("--budget", args->budget, "Local-search evaluations")->capture_default_str();
  demo->add_option("--seed", args->seed, "Seed")->capture_default_str();
  demo->add_flag("!--no-shipped", args->shipped, "Leave out the shipped paper graphs");
  demo->add_flag("--json", args->json, "Print one JSON object");
  demo->callback([args] { runDemo(*args); });
}

}  // namespace doppler::cli

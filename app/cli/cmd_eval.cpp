// `doppler eval`: a trained policy's placement, printed as `place` prints one, with
// "method": "doppler". The checkpoint is read and the network run by the LibTorch module
// (core/train/torch_module.h); the decisions and the simulation are plain C++ here.
#include <sstream>

#include "cli_common.h"
#include "core/graph/input_error.h"
#include "core/policy/features.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "core/train/evaluation.h"
#include "core/train/torch_module.h"
#include "placement_json.h"
#include "policy_cli.h"
#include "run_recording.h"
#include "sessions/from_core.h"

namespace doppler::cli {
namespace {

struct EvalArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string policy;
  int samples = 1;
  uint64_t seed = 1;
  std::string sel = "learned", plc = "learned", costModel = "reference";
  int threads = 1;
  bool json = false, decisions = false;
  std::string out;
  RecordArgs record;
};

nlohmann::json decisionsJson(const DataflowGraph& g, const policy::EpisodeResult& e) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t t = 0; t < e.steps.size(); ++t) {
    const policy::EpisodeStep& s = e.steps[t];
    nlohmann::json cands = nlohmann::json::array();
    for (size_t j = 0; j < s.candidates.size(); ++j)
      cands.push_back({{"node", g.node(s.candidates[j]).id}, {"p", s.sel_probs[j]}});
    out.push_back({{"step", t},
                   {"node", g.node(s.node).id},
                   {"device", s.device},
                   {"sel", cands},
                   {"plc", s.plc_probs}});
  }
  return out;
}

void runEval(const EvalArgs& args) {
  if (args.samples < 1) throw InputError("", "--samples", "must be at least 1");
  const train::TorchModule& torch = train::loadTorchModule();
  const std::unique_ptr<train::LoadedPolicy> pol = torch.loadPolicy(args.policy);
  const nlohmann::json& meta = pol->meta();
  DataflowGraph g = loadGraph(args.graph);
  DeviceSet d = loadDevices(args.devices);
  checkFits(g, args.graph, d);
  torch.setComputeThreads(args.threads);
  CostTable costs(g, d);
  SimOptions sim;
  sim.model = parseCostModel(args.costModel);
  const policy::Component sel = parseComponent(args.sel, "--sel"),
                          plc = parseComponent(args.plc, "--plc");

  sessions::RunSpec spec;
  spec.kind = "eval";
  spec.method = "doppler";
  spec.params = {{"graph_file", absoluteIfFile(args.graph.graph)},
                 {"scale", args.graph.scale},
                 {"devices", absoluteIfFile(args.devices.devices)},
                 {"policy", absoluteIfFile(args.policy)},
                 {"samples", args.samples},
                 {"sel", args.sel},
                 {"plc", args.plc},
                 {"cost_model", toString(sim.model)}};
  spec.seed = args.seed;
  RunRecording rec(args.record, spec, g, d);

  train::EvalResult best;
  SimResult r;
  double lb = 0;
  try {
    const policy::GraphFeatures features = policy::graphFeatures(costs);
    best = train::evaluateScores(pol->scores(features), costs, features, args.samples, args.seed,
                                 sim, sel, plc);
    Simulator simulator(costs, sim);
    r = simulator.run(best.episode.assignment);
    lb = lowerBound(costs).value();
    if (rec.enabled()) {
      sessions::RunStore& store = rec.store();
      store.savePlacement(rec.id(), decisionsRecord(g, best.episode));
      store.saveTimeline(rec.id(), sessions::timelineRecord(g, r.schedule, "simulated"));
      store.setFigures(rec.id(), {{"makespan_us", r.schedule.makespan_us},
                                  {"planned_makespan_us", best.episode.planned_makespan_us},
                                  {"lower_bound_us", lb},
                                  {"evaluations", static_cast<double>(args.samples)}});
      rec.finish();
    }
  } catch (const std::exception& e) {
    rec.fail(e.what());
    throw;
  }
  if (args.json) {
    nlohmann::json out = placementJson("doppler", g, d, best.episode.assignment, r, lb,
                                       toString(sim.model), args.seed);
    out["planned_makespan_us"] = best.episode.planned_makespan_us;
    out["params"] = {
        {"policy", args.policy}, {"samples", args.samples}, {"sel", args.sel}, {"plc", args.plc}};
    out["evaluations"] = args.samples;
    out["best_sample"] = best.best_sample;
    out["order"] = nlohmann::json::array();
    out["policy"] = {{"architecture", pol->architecture().toJson()},
                     {"trained_on", meta.value("fingerprint", "")},
                     {"stage", meta.value("stage", "")},
                     {"episodes", meta.value("episodes_done", 0L)}};
    for (int v : best.episode.order) out["order"].push_back(g.node(v).id);
    if (args.decisions) out["decisions"] = decisionsJson(g, best.episode);
    if (rec.enabled()) out["run_id"] = rec.id();
    writeOutput(args.out, dump(out));
    return;
  }
  std::ostringstream s;
  s << "method        doppler (" << args.policy << ")\n"
    << "graph         " << g.name << " (" << g.nodeCount() << " nodes, " << g.edgeCount()
    << " edges)\n"
    << "devices       " << d.name << " (" << d.size() << ")\n"
    << "makespan      " << fmt(r.schedule.makespan_us) << " us (simulated, " << toString(sim.model)
    << ", best of " << args.samples << ")\n"
    << "lower bound   " << fmt(lb) << " us (ratio " << fmt(r.schedule.makespan_us / lb) << ")\n";
  if (rec.enabled()) s << "run " << rec.id() << " recorded in " << rec.db() << "\n";
  writeOutput(args.out, s.str());
}

}  // namespace

void addEvalCommand(CLI::App& app) {
  auto e = std::make_shared<EvalArgs>();
  CLI::App* eval = app.add_subcommand(
      "eval", "Place a graph with a trained policy (JSON as `place`, method \"doppler\")");
  eval->add_option("--policy,-P", e->policy, "Policy checkpoint (from `doppler train`)")
      ->required();
  addGraphOptions(*eval, e->graph);
  addDeviceOptions(*eval, e->devices);
  eval->add_option("--samples,-k", e->samples,
                   "Best of K placements: the greedy one and K-1 sampled")
      ->capture_default_str();
  eval->add_option("--seed", e->seed, "Seed for the sampled placements")->capture_default_str();
  eval->add_option("--sel", e->sel, "SEL: learned or heuristic")->capture_default_str();
  eval->add_option("--plc", e->plc, "PLC: learned or heuristic")->capture_default_str();
  eval->add_option("--cost-model", e->costModel, "Simulator cost model: reference or links")
      ->capture_default_str();
  eval->add_option("--threads", e->threads, "LibTorch and OpenBLAS threads")->capture_default_str();
  eval->add_flag("--json", e->json, "Print one JSON object");
  eval->add_flag("--decisions", e->decisions,
                 "With --json: every step's SEL candidates and PLC probabilities");
  eval->add_option("--out,-o", e->out, "Write the result to a file instead of stdout");
  addRecordOptions(*eval, e->record);
  eval->callback([e] { runEval(*e); });
}

}  // namespace doppler::cli

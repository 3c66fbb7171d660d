// `doppler eval`: a trained policy's placement, printed as `place` prints one, with
// "method": "doppler". The checkpoint is read and the network run by the LibTorch module
// (core/train/torch_module.h); the decisions and the simulation are plain C++ here.
#include <chrono>
#include <filesystem>
#include <sstream>
#include <utility>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/fleet/world/topology.h"
#include "core/policy/episode_trace.h"
#include "core/policy/features.h"
#include "core/policy/network_forward.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "core/train/doppler_method.h"
#include "core/train/evaluation.h"
#include "core/train/expected_improvement.h"
#include "core/train/loaded_policy.h"
#include "core/train/torch_module.h"
#include "decision_cli.h"
#include "placement_json.h"
#include "policy_cli.h"
#include "run_recording.h"
#include "sessions/from_core.h"
#include "sessions/train_recording.h"

namespace doppler::cli {
namespace {

// The trace of the reported episode: the greedy one replayed with the overrides, or a sampled
// best one replayed by forcing each of its choices (which records the network's probabilities at
// every step just the same).
policy::TracedEpisode traceReported(const policy::PolicyScores& scores, const CostTable& costs,
                                    const policy::GraphFeatures& features,
                                    const train::EvalResult& best,
                                    const std::vector<DecisionOverride>& overrides,
                                    const DataflowGraph& g, policy::Component sel,
                                    policy::Component plc) {
  DecisionControl control{true, overrides, &g};
  const bool sampled = best.best_sample != 0 && overrides.empty();
  if (sampled)
    for (size_t k = 0; k < best.episode.order.size(); ++k) {
      const int v = best.episode.order[k];
      control.overrides.push_back({static_cast<int>(k), v, -1});
      control.overrides.push_back({static_cast<int>(k), -1, best.episode.assignment[v]});
    }
  policy::TracedEpisode t = policy::traceEpisode(&scores, costs, features, &control, sel, plc);
  if (sampled)
    for (DecisionStep& d : t.trace.steps) d.node_overridden = d.device_overridden = false;
  return t;
}

// The overridden episode as evaluateScores reports one (its steps are what the run store keeps).
policy::EpisodeResult episodeOf(const policy::TracedEpisode& t) {
  policy::EpisodeResult e;
  e.assignment = t.assignment;
  e.order = t.order;
  e.planned_makespan_us = t.planned_makespan_us;
  for (const DecisionStep& d : t.trace.steps) {
    policy::EpisodeStep s;
    s.node = d.node;
    s.device = d.device;
    for (const CandidateScore& c : d.ready) {
      s.candidates.push_back(c.node);
      s.sel_probs.push_back(static_cast<float>(c.score));
    }
    for (const DeviceScore& x : d.devices) s.plc_probs.push_back(static_cast<float>(x.score));
    e.steps.push_back(std::move(s));
  }
  return e;
}

}  // namespace

namespace {

// resources/data/policies/general.weights (or its installed copy), and whether it is there: the
// weights exported from general.pt, which place without loading LibTorch.
std::pair<std::string, bool> shippedPolicyFile() {
  std::string path = fleet::resourcesDir() + "/policies/general.weights";
  std::error_code ec;
  const bool present = std::filesystem::is_regular_file(path, ec);
  return {std::move(path), present};
}

}  // namespace

std::string shippedGeneralPolicy() {
  auto [path, present] = shippedPolicyFile();
  if (!present)
    throw InputError(path, "", "the shipped general policy is missing; give one with --policy");
  return path;
}

void registerShippedPolicy() {
  if (auto [path, present] = shippedPolicyFile(); present) {
    train::registerGeneralPolicy(path);
  }
}

void runEval(const EvalArgs& given) {
  EvalArgs args = given;
  if (args.policy.empty()) args.policy = shippedGeneralPolicy();
  if (args.samples < 1) throw InputError("", "--samples", "must be at least 1");
  if (!args.overrides.empty() && args.samples != 1)
    throw InputError("", "--override",
                     "replays the greedy episode, so it takes --samples 1 (the default)");
  // Exported weights place without loading LibTorch; a checkpoint loads it to read the file.
  const std::unique_ptr<train::LoadedPolicy> pol = train::openPolicy(args.policy);
  const nlohmann::json& meta = pol->meta();
  DataflowGraph g = loadGraph(args.graph);
  DeviceSet d = loadDevices(args.devices);
  checkFits(g, args.graph, d);
  policy::setBlasThreads(args.threads);
  CostTable costs(g, d);
  SimOptions sim;
  sim.model = parseCostModel(args.costModel);
  // The best of -k samples is chosen under fifo; the reported one is then simulated under the
  // discipline, following SEL's order (docs/simulator.md#disciplines).
  const Discipline discipline = disciplineFromName(args.discipline);
  const policy::Component sel = parseComponent(args.sel, "--sel"),
                          plc = parseComponent(args.plc, "--plc");
  const std::vector<DecisionOverride> overrides = parseOverrides(args.overrides, g, d);

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
                 {"cost_model", toString(sim.model)},
                 {"discipline", toString(discipline)}};
  if (!args.overrides.empty()) spec.params["overrides"] = args.overrides;
  spec.seed = args.seed;

  // Computed before the run is recorded (it takes milliseconds): a bad override fails without
  // leaving a failed run behind.
  // The placement's own time, as a user waits for it once the policy is loaded: features,
  // encoder and the -k decodes (not the module, checkpoint or graph loading).
  const auto placeStart = std::chrono::steady_clock::now();
  const policy::GraphFeatures features = [&] {
    try {
      return policy::graphFeatures(costs);
    } catch (const InputError& e) {
      throw e.inFile(args.graph.graph);  // too deep for the policy: say which file
    }
  }();
  const policy::PolicyScores scores = pol->scores(features);
  train::EvalResult best =
      train::evaluateScores(scores, costs, features, args.samples, args.seed, sim, sel, plc);
  const double placeMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - placeStart)
          .count();
  std::optional<policy::TracedEpisode> traced;
  if (args.decisions || !overrides.empty()) {
    traced = traceReported(scores, costs, features, best, overrides, g, sel, plc);
    if (!overrides.empty()) best.episode = episodeOf(*traced);
  }
  SimOptions judged = sim;
  judged.discipline = discipline;
  const SimResult r = Simulator(costs, judged).run(best.episode.assignment, best.episode.order);
  const double lb = lowerBound(costs).value();
  // What simulation expects the policy to gain over the heuristic, before any real run (stage
  // III's executions, `doppler exec`).
  train::ExpectedImprovement expected;
  expected.heuristic = args.against;
  expected.heuristic_us = train::simulatedHeuristicMakespan(costs, judged, args.against);
  expected.policy_us = r.schedule.makespan_us;

  RunRecording rec(args.record, spec, g, d);
  try {
    if (rec.enabled()) {
      sessions::RunStore& store = rec.store();
      store.savePlacement(rec.id(), sessions::episodeRecord(g, best.episode));
      store.saveTimeline(rec.id(), sessions::timelineRecord(g, r.schedule, "simulated"));
      store.setFigures(rec.id(), {{"makespan_us", r.schedule.makespan_us},
                                  {"planned_makespan_us", best.episode.planned_makespan_us},
                                  {"lower_bound_us", lb},
                                  {"evaluations", static_cast<double>(args.samples)},
                                  {"placement_ms", placeMs}});
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
    out["placement_ms"] = placeMs;
    out["discipline"] = toString(discipline);
    out["order"] = nlohmann::json::array();
    out["policy"] = {{"architecture", pol->architecture().toJson()},
                     {"trained_on", meta.value("fingerprint", "")},
                     {"stage", meta.value("stage", "")},
                     {"episodes", meta.value("episodes_done", 0L)},
                     {"general", meta.value("general", false)}};
    for (int v : best.episode.order) out["order"].push_back(g.node(v).id);
    out["expected_improvement"] = {{"against", expected.heuristic},
                                   {"heuristic_makespan_us", expected.heuristic_us},
                                   {"policy_makespan_us", expected.policy_us},
                                   {"percent", expected.percent()},
                                   {"source", "simulation"}};
    if (args.decisions) {
      out["decision_scores"] = decisionScoresJson(traced->trace);
      out["decisions"] = decisionsJson(g, traced->trace);
    }
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
    << "placed in     " << fmt(placeMs) << " ms\n"
    << "lower bound   " << fmt(lb) << " us (ratio " << fmt(r.schedule.makespan_us / lb) << ")\n"
    << "expected      " << expected.describe() << "\n";
  if (rec.enabled()) s << "run " << rec.id() << " recorded in " << rec.db() << "\n";
  writeOutput(args.out, s.str());
}

void addEvalCommand(CLI::App& app) {
  auto e = std::make_shared<EvalArgs>();
  CLI::App* eval = app.add_subcommand(
      "eval", "Place a graph with a trained policy (JSON as `place`, method \"doppler\")");
  eval->add_option("--policy,-P", e->policy,
                   "Policy checkpoint (from `doppler train`) or its exported weights (`doppler "
                   "policy export`); default: the shipped general policy");
  addGraphOptions(*eval, e->graph);
  addDeviceOptions(*eval, e->devices);
  eval->add_option("--samples,-k", e->samples,
                   "Best of K placements: the greedy one and K-1 sampled")
      ->capture_default_str();
  eval->add_option("--seed", e->seed, "Seed for the sampled placements")
      ->check(nonNegativeInteger())
      ->capture_default_str();
  eval->add_option("--sel", e->sel, "SEL: learned or heuristic")->capture_default_str();
  eval->add_option("--plc", e->plc, "PLC: learned or heuristic")->capture_default_str();
  eval->add_option("--cost-model", e->costModel, "Simulator cost model: reference or links")
      ->capture_default_str();
  addDisciplineOption(*eval, e->discipline);
  eval->add_option("--threads", e->threads, "LibTorch and OpenBLAS threads")->capture_default_str();
  eval->add_flag("--json", e->json, "Print one JSON object");
  eval->add_flag("--decisions", e->decisions,
                 "With --json: every step's ready set with SEL's probabilities, and each device's "
                 "PLC probability and estimated start and finish");
  eval->add_option("--override", e->overrides,
                   "Replay the greedy episode with a decision changed: STEP:node=ID or "
                   "STEP:device=INDEX|NAME (steps from 0; repeatable)");
  eval->add_option("--against", e->against,
                   "The heuristic the expected improvement is measured against")
      ->capture_default_str();
  eval->add_option("--out,-o", e->out, "Write the result to a file instead of stdout");
  addRecordOptions(*eval, e->record);
  eval->callback([e] { runEval(*e); });
}

}  // namespace doppler::cli

// `doppler train`: stages I, II and III of the dual policy. Option parsing, the run store and the
// output are plain C++ here; the training itself runs in the LibTorch module
// (core/train/torch_module.h), opened when the command starts.
#include <cmath>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cli_common.h"
#include "cmd_train_general.h"
#include "core/common/input_error.h"
#include "core/policy/features.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "core/train/expected_improvement.h"
#include "core/train/torch_module.h"
#include "core/train/train_config.h"
#include "interrupt.h"
#include "placement_json.h"
#include "policy_cli.h"
#include "progress_bar.h"
#include "run_recording.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"
#include "sessions/train_recording.h"

namespace doppler::cli {
namespace {

// After the result of an interrupted run is printed: exit 130 (interrupt.h).
void throwIfInterrupted(const train::TrainResult& result, const std::string& checkpoint) {
  if (!result.cancelled || InterruptGuard::received().empty()) return;
  throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                    std::to_string(result.episodes_done) + " episodes: the result so far is " +
                    "above (partial); resume with --from " + checkpoint);
}

nlohmann::json numberOrNull(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

struct TrainArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string stage = "imitation";
  std::string from, out;
  // Exact to 64 bits: the table's "seed" goes through a double (the studio's spin box).
  uint64_t seed = 1;
  // Every other training and architecture parameter, one option each, made from the tables the
  // studio's training form is made from (train_config.h): the text given, by name.
  std::map<std::string, std::string> text;
  std::map<std::string, CLI::Option*> opts;
  bool json = false;
  RecordArgs record;
  GeneralTrainArgs general;

  bool given(const std::string& name) const {
    auto it = opts.find(name);
    return it != opts.end() && it->second->count() > 0;
  }
  // The parameters given on the command line, architecture ones included.
  ParamValues values() const {
    ParamValues v;
    for (const auto& [name, option] : opts)
      if (option->count() > 0) v[name] = text.at(name);
    return v;
  }
  // The stage's parameters given (the architecture's left out).
  ParamValues stageValues() const {
    ParamValues v;
    for (const auto& [name, value] : values())
      if (!train::isArchitectureParam(name)) v[name] = value;
    return v;
  }
  bool architectureGiven() const {
    for (const auto& [name, value] : values())
      if (train::isArchitectureParam(name)) return true;
    return false;
  }
};

// The run's configuration, as the studio builds it: the stage's defaults and the options given.
train::TrainConfig trainConfig(const TrainArgs& a, const DataflowGraph& g) {
  train::TrainConfig c = train::trainConfigFor(train::parseStage(a.stage), g, a.stageValues());
  c.seed = a.seed;
  c.checkpoint_path = a.out;
  return c;
}

void runTrain(const TrainArgs& args) {
  if (args.general.general) {
    if (!args.graph.graph.empty())
      throw InputError("", "--graph", "--general samples its own graphs; give one or the other");
    // Checked as any run's: names, types and ranges (the graph only sets default budgets).
    const train::TrainConfig c = trainConfig(args, DataflowGraph{});
    const policy::PolicyConfig arch = train::architectureFor(args.values());
    runGeneralTrain(
        args.general,
        {args.stage, args.out, args.from, args.given("episodes") ? c.episodes : 0,
         args.given("lr") ? c.lr : 0, args.seed, args.json, args.graph, args.record,
         args.given("entropy") ? c.entropy : -1, args.given("imitate-best") ? c.imitate_best : -1,
         args.given("device-features") ? arch.device_features : 0});
    return;
  }
  if (args.graph.graph.empty())
    throw InputError("", "--graph", "a graph file is required (or --general)");
  const train::TorchModule& torch = train::loadTorchModule();
  DataflowGraph g = loadGraph(args.graph);
  DeviceSet d = loadDevices(args.devices);
  checkFits(g, args.graph, d);
  if (g.nodeCount() == 0) throw InputError(args.graph.graph, "", "the graph has no nodes");
  const train::TrainConfig cfg = trainConfig(args, g);
  const bool real = cfg.stage == train::Stage::Real;
  if (real && args.from.empty())
    throw InputError("", "--from",
                     "stage real refines a trained policy: give its checkpoint (stage II's)");

  // The policy: from the checkpoint (its architecture), or new with the given architecture.
  const policy::PolicyConfig asked = train::architectureFor(args.values());
  policy::PolicyConfig arch = asked;
  std::unique_ptr<train::LoadedPolicy> start;  // read once: its architecture, stage III's scores
  if (!args.from.empty()) {
    start = torch.loadPolicy(args.from);
    const policy::PolicyConfig stored = start->architecture();
    if (args.architectureGiven() && !(stored == asked))
      throw InputError(args.from, "architecture",
                       "checkpoint holds a policy of another architecture (" + stored.describe() +
                           "); the command line asks for " + asked.describe());
    arch = stored;
  }

  const sessions::RunSpec spec = sessions::trainRunSpec(
      {absoluteIfFile(args.graph.graph), args.graph.scale, absoluteIfFile(args.devices.devices),
       args.from.empty() ? std::string() : absoluteIfFile(args.from), args.out},
      cfg, arch);
  // Before any real run: what simulation expects the policy to gain over the heuristic.
  std::optional<train::ExpectedImprovement> expected;
  if (real) {
    const CostTable costs(g, d);
    const policy::GraphFeatures features = policy::graphFeatures(costs);
    expected = train::expectedImprovement(start->scores(features), costs, features, cfg.sim);
  }
  // Ctrl-C or SIGTERM cancels the run between updates: its checkpoint is written, so it can be
  // resumed, and the command exits 130 after printing what it has. Guarded from before the run
  // is stored: a signal once it shows as running is never the default handler's.
  const CancelToken cancel;
  const InterruptGuard guard(cancel);
  RunRecording rec(args.record, spec, g, d);
  std::optional<sessions::MetricWriter> metrics;
  if (rec.enabled()) metrics.emplace(rec.store(), rec.id());

  ProgressBar bar(std::string("train ") + args.stage);
  bool expectationShown = false;
  auto onProgress = [&](const train::TrainProgress& p) {
    if (expected && !expectationShown) {
      // Computed before any execution; printed once the executor has started, so that a bad
      // kernel choice stays a one-line error.
      bar.finish();
      std::cerr << "doppler train: expected before any real run: the policy is "
                << expected->describe() << "\n";
      expectationShown = true;
    }
    if (!p.event.empty()) {
      bar.finish();
      std::cerr << "doppler train: " << p.event << "\n";
    }
    std::string detail = std::string(real ? "measured " : "makespan ") + fmt(p.makespan_us) +
                         " us, best " + fmt(p.best_makespan_us);
    if (std::isfinite(p.greedy_makespan_us)) detail += ", greedy " + fmt(p.greedy_makespan_us);
    if (std::isfinite(p.agreement)) detail += ", agree " + fmt(p.agreement * 100) + "%";
    detail += ", " + fmt(p.episodes_per_s) + " ep/s";
    bar.update(p.episode, p.episodes, detail);
    if (metrics) sessions::appendTrainMetrics(*metrics, p);
  };

  train::TrainRequest request{g, d, cfg, arch, args.from};
  train::TrainResult result;
  std::exception_ptr error;
  try {
    result = torch.train(request, cancel, onProgress);
  } catch (...) {
    error = std::current_exception();
  }
  try {
    if (error) std::rethrow_exception(error);
  } catch (const std::exception& e) {
    bar.finish();
    rec.fail(e.what());
    throw;
  }
  bar.finish();

  const double lb = lowerBound(CostTable(g, d)).value();
  if (rec.enabled()) {
    metrics->flush();
    sessions::finishTrainRun(rec.store(), rec.id(), g, d, cfg, result, args.out);
    rec.markEnded();
  }

  if (args.json) {
    nlohmann::json out = {{"stage", args.stage},
                          {"checkpoint", args.out},
                          {"episodes_done", result.episodes_done},
                          {"episodes_run", result.episodes_run},
                          {"distill_updates", result.distill_updates},
                          {"resumed", result.resumed},
                          {"cancelled", result.cancelled},
                          {"partial", result.cancelled},
                          {"seconds", result.seconds},
                          {"greedy_makespan_us", result.greedy_makespan_us},
                          {"best_makespan_us", numberOrNull(result.best_makespan_us)},
                          {"lower_bound_us", lb},
                          {"graph", g.name},
                          {"devices", d.name},
                          {"device_count", d.size()},
                          {"train_config", cfg.toJson()},
                          {"architecture", arch.toJson()}};
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& p : result.evaluations)
      curve.push_back({{"episode", p.episode},
                       {"distill_update", p.distill_update},
                       {"greedy_makespan_us", p.greedy_makespan_us},
                       {"best_makespan_us", p.best_makespan_us},
                       {"agreement", numberOrNull(p.agreement)},
                       {"elapsed_s", p.elapsed_s}});
    out["curve"] = curve;
    if (real) {
      out["measured"] = true;
      out["rollbacks"] = result.rollbacks;
      out["stopped_early"] = result.stopped_early;
      out["log"] = result.log;
      // The best measured placement, served: an assignment file `doppler exec` and the studio
      // read, with the order the priority and sequence disciplines follow.
      nlohmann::json served = {{"measured_makespan_us", numberOrNull(result.best_makespan_us)},
                               {"assignment", nlohmann::json::object()},
                               {"order", nlohmann::json::array()}};
      for (int v = 0; v < g.nodeCount() && v < static_cast<int>(result.best_assignment.size()); ++v)
        served["assignment"][g.node(v).id] = result.best_assignment[v];
      for (int v : result.best_order) served["order"].push_back(g.node(v).id);
      out["served"] = served;
      out["expected_improvement"] = {{"against", expected->heuristic},
                                     {"heuristic_makespan_us", expected->heuristic_us},
                                     {"policy_makespan_us", expected->policy_us},
                                     {"percent", expected->percent()}};
      out["note"] = "measured makespans: CPU cores stand in for GPUs";
    }
    if (rec.enabled()) out["run_id"] = rec.id();
    writeOutput("", dump(out));
    throwIfInterrupted(result, args.out);
    return;
  }
  std::ostringstream s;
  s << "stage         " << args.stage << (result.resumed ? " (resumed)" : "") << "\n"
    << "graph         " << g.name << " (" << g.nodeCount() << " nodes), " << d.size()
    << " devices\n"
    << "episodes      " << result.episodes_done << " (" << result.episodes_run << " now, "
    << fmt(result.seconds) << " s)"
    << (result.cancelled ? ", cancelled: resume with --from " + args.out : std::string()) << "\n"
    << "greedy        " << fmt(result.greedy_makespan_us) << " us (ratio to lower bound "
    << fmt(result.greedy_makespan_us / lb) << ")\n"
    << "best episode  " << fmt(result.best_makespan_us) << " us\n";
  if (real) {
    s << "measured      on CPU cores standing in for GPUs; the best placement measured is served "
         "(checkpoint and run store)\n"
      << "expected      " << expected->describe() << "\n"
      << "rollbacks     " << result.rollbacks << (result.stopped_early ? ", stopped early" : "")
      << "\n";
    for (const std::string& line : result.log) s << "log           " << line << "\n";
  }
  if (result.distill_updates > 0) s << "distilled     " << result.distill_updates << " updates\n";
  s << "checkpoint    " << args.out << "\n";
  if (rec.enabled()) s << "run " << rec.id() << " recorded in " << rec.db() << "\n";
  writeOutput("", s.str());
  throwIfInterrupted(result, args.out);
}

}  // namespace

void addTrainCommands(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* train = app.add_subcommand("train",
                                       "Train Doppler's dual policy: stage I imitates "
                                       "critical-path, stage II learns in the simulator, stage "
                                       "III (real) on real executions");
  addGraphOptions(*train, a->graph);
  addDeviceOptions(*train, a->devices);
  train
      ->add_option("--stage", a->stage,
                   "imitation (stage I), sim (stage II) or real (stage III: rewarded by real "
                   "executions on local devices, from a --from checkpoint)")
      ->check(CLI::IsMember({"imitation", "sim", "real"}))
      ->capture_default_str();
  train
      ->add_option("--out,-o", a->out,
                   "Checkpoint to write (at the end, on cancel, and every --checkpoint-every)")
      ->required();
  train->add_option(
      "--from", a->from,
      "Start from this checkpoint: resumes it if it is an unfinished run of the same stage on the "
      "same graph and devices, otherwise takes its weights");
  // Every training and architecture parameter is an option made from its spec (the tables of
  // core/train/train_config.h, which the studio's training form is made from too): its name, its
  // description, its choices. Values are checked by trainConfigFor and architectureFor, as the
  // studio's are; a stage's defaults are the table's.
  std::vector<ParamSpec> specs = train::trainParamSpecs(train::Stage::Imitation);
  for (ParamSpec& spec : train::architectureParamSpecs()) specs.push_back(std::move(spec));
  for (const ParamSpec& spec : specs) {
    const std::string flag = "--" + spec.name;
    if (spec.name == "seed") {
      train->add_option(flag, a->seed, spec.description)
          ->check(nonNegativeInteger())
          ->capture_default_str();
      continue;
    }
    std::string help = spec.description;
    if (spec.type == ParamSpec::Type::Choice) {
      help += " (one of:";
      for (const std::string& c : spec.choices) help += " " + c;
      help += ")";
    }
    a->opts[spec.name] = train->add_option(flag, a->text[spec.name], help);
  }
  train->add_flag("--json", a->json, "Print one JSON object (summary and training curve)");
  addRecordOptions(*train, a->record);
  addGeneralTrainOptions(*train, a->general);
  // --general needs no graph: the graph's presence is checked in runTrain.
  train->get_option("--graph")->required(false);
  train->get_option("--devices")->required(false);
  train->callback([a] { runTrain(*a); });

  addEvalCommand(app);
}

}  // namespace doppler::cli

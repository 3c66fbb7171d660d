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
#include "core/graph/input_error.h"
#include "core/policy/features.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "core/train/expected_improvement.h"
#include "core/train/torch_module.h"
#include "core/train/train_config.h"
#include "core/train/train_recording.h"
#include "interrupt.h"
#include "placement_json.h"
#include "policy_cli.h"
#include "progress_bar.h"
#include "run_recording.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"

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
  uint64_t seed = 1;
  long episodes = 0;
  double lr = 0, lrFinal = 0, epsilon = 0, epsilonFinal = 0, entropy = 0, entropyFinal = 0;
  double teacherMix = 0, teacherMixFinal = 0, clipGrad = 0, baselineDecay = 0;
  int rollouts = 1, threads = 1;
  long evalEvery = 0, checkpointEvery = 0;
  std::string explore = "sample", sel = "learned", plc = "learned", costModel = "reference";
  std::string baseline = "running-mean";
  double imitateBest = 0, guided = 0, guideDeviate = 0, guideDeviateFinal = 0, distillLr = 0;
  long distill = 0;
  // Stage III.
  std::string kernels = "auto", discipline = "fifo";
  double targetMs = 0, execTimeout = 0, rollbackThreshold = 0, sizeFactor = 0;
  long repeat = 0, rollbackWindow = 0, patience = 0;
  policy::PolicyConfig arch;
  bool json = false;
  RecordArgs record;
  GeneralTrainArgs general;
  // Options given on the command line (the rest keep the stage's defaults).
  std::map<std::string, CLI::Option*> opts;
  bool given(const std::string& name) const {
    auto it = opts.find(name);
    return it != opts.end() && it->second->count() > 0;
  }
};

train::TrainConfig trainConfig(const TrainArgs& a, const DataflowGraph& g) {
  const train::Stage stage = train::parseStage(a.stage);
  train::TrainConfig c = train::TrainConfig::defaults(stage);
  // Without --episodes, stage II's budget follows the graph (train_config.h).
  c.episodes = a.given("episodes") ? a.episodes : train::defaultEpisodes(stage, g);
  if (a.given("lr")) c.lr = c.lr_final = a.lr;
  if (a.given("lr-final")) c.lr_final = a.lrFinal;
  if (a.given("epsilon")) c.epsilon = c.epsilon_final = a.epsilon;
  if (a.given("epsilon-final")) c.epsilon_final = a.epsilonFinal;
  if (a.given("entropy")) c.entropy = c.entropy_final = a.entropy;
  if (a.given("entropy-final")) c.entropy_final = a.entropyFinal;
  if (a.given("teacher-mix")) c.teacher_mix = c.teacher_mix_final = a.teacherMix;
  if (a.given("teacher-mix-final")) c.teacher_mix_final = a.teacherMixFinal;
  if (a.given("clip-grad")) c.clip_grad_norm = a.clipGrad;
  if (a.given("baseline-decay")) c.baseline_decay = a.baselineDecay;
  if (a.given("eval-every")) c.eval_every = a.evalEvery;
  if (a.given("imitate-best")) c.imitate_best = a.imitateBest;
  if (a.given("guided")) c.guided = a.guided;
  if (a.given("guide-deviate")) c.guide_deviate = c.guide_deviate_final = a.guideDeviate;
  if (a.given("guide-deviate-final")) c.guide_deviate_final = a.guideDeviateFinal;
  if (a.given("distill")) c.distill_updates = a.distill;
  if (a.given("distill-lr")) c.distill_lr = a.distillLr;
  if (a.baseline == "batch") c.baseline = train::TrainConfig::Baseline::Batch;
  if (a.given("rollouts")) c.rollouts = a.rollouts;
  if (a.given("explore")) c.explore = policy::parseDecisionMode(a.explore);
  c.threads = a.threads;
  c.seed = a.seed;
  c.sel = parseComponent(a.sel, "--sel");
  c.plc = parseComponent(a.plc, "--plc");
  c.sim.model = parseCostModel(a.costModel);
  c.checkpoint_path = a.out;
  c.checkpoint_every = a.checkpointEvery;
  if (a.given("kernels")) c.exec_kernels = a.kernels;
  if (a.given("target-ms")) c.exec_target_ms = a.targetMs;
  if (a.given("repeat")) c.exec_repeat = a.repeat;
  if (a.given("size-factor")) c.exec_size_factor = a.sizeFactor;
  if (a.given("exec-timeout")) c.exec_timeout_s = a.execTimeout;
  if (a.given("rollback-threshold")) c.rollback_threshold = a.rollbackThreshold;
  if (a.given("rollback-window")) c.rollback_window = a.rollbackWindow;
  if (a.given("patience")) c.patience = a.patience;
  c.sim.discipline = disciplineFromName(a.discipline);
  c.graph_name = g.name;
  c.validate();
  return c;
}

void runTrain(const TrainArgs& args) {
  if (args.general.general) {
    for (const char* name : {"entropy", "imitate-best"})
      if (args.given(name) && !((name[0] == 'e' ? args.entropy : args.imitateBest) >= 0))
        throw InputError("", std::string("--") + name, "must be 0 or more");
    if (!args.graph.graph.empty())
      throw InputError("", "--graph", "--general samples its own graphs; give one or the other");
    runGeneralTrain(args.general,
                    {args.stage, args.out, args.from, args.given("episodes") ? args.episodes : 0,
                     args.given("lr") ? args.lr : 0, args.seed, args.json, args.graph, args.record,
                     args.given("entropy") ? args.entropy : -1,
                     args.given("imitate-best") ? args.imitateBest : -1,
                     args.given("device-features") ? args.arch.device_features : 0});
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
  args.arch.validate();
  policy::PolicyConfig arch = args.arch;
  std::unique_ptr<train::LoadedPolicy> start;  // read once: its architecture, stage III's scores
  if (!args.from.empty()) {
    start = torch.loadPolicy(args.from);
    const policy::PolicyConfig stored = start->architecture();
    const bool archGiven = args.given("hidden") || args.given("mp-steps") ||
                           args.given("edge-hidden") || args.given("head-hidden") ||
                           args.given("device-hidden") || args.given("device-features");
    if (archGiven && !(stored == args.arch))
      throw InputError(args.from, "architecture",
                       "checkpoint holds a policy of another architecture (" + stored.describe() +
                           "); the command line asks for " + args.arch.describe());
    arch = stored;
  }

  const sessions::RunSpec spec = train::trainRunSpec(
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
    if (metrics) train::appendTrainMetrics(*metrics, p);
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
    train::finishTrainRun(rec.store(), rec.id(), g, d, cfg, result, args.out);
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
  // The training parameters' help comes from their specs (core/train/train_config.h).
  auto help = [](const char* name) { return train::trainParamSpec(name).description; };
  train->add_option("--seed", a->seed, help("seed"))
      ->check(nonNegativeInteger())
      ->capture_default_str();
  auto opt = [&](const char* name, auto& target) {
    a->opts[name] = train->add_option(std::string("--") + name, target, help(name));
  };
  opt("episodes", a->episodes);
  opt("lr", a->lr);
  opt("lr-final", a->lrFinal);
  opt("epsilon", a->epsilon);
  opt("epsilon-final", a->epsilonFinal);
  opt("entropy", a->entropy);
  opt("entropy-final", a->entropyFinal);
  opt("teacher-mix", a->teacherMix);
  opt("teacher-mix-final", a->teacherMixFinal);
  opt("clip-grad", a->clipGrad);
  opt("baseline-decay", a->baselineDecay);
  opt("eval-every", a->evalEvery);
  opt("imitate-best", a->imitateBest);
  opt("guided", a->guided);
  opt("guide-deviate", a->guideDeviate);
  opt("guide-deviate-final", a->guideDeviateFinal);
  opt("distill", a->distill);
  opt("distill-lr", a->distillLr);
  train->add_option("--baseline", a->baseline, help("baseline"))
      ->check(CLI::IsMember({"running-mean", "batch"}))
      ->capture_default_str();
  opt("rollouts", a->rollouts);
  train->add_option("--threads", a->threads, help("threads"))->capture_default_str();
  train->add_option("--checkpoint-every", a->checkpointEvery, help("checkpoint-every"));
  opt("explore", a->explore);
  train->add_option("--sel", a->sel, help("sel"))->capture_default_str();
  train->add_option("--plc", a->plc, help("plc"))->capture_default_str();
  train->add_option("--cost-model", a->costModel, help("cost-model"))->capture_default_str();
  opt("kernels", a->kernels);
  a->opts["kernels"]->check(CLI::IsMember({"auto", "torch", "synthetic"}));
  opt("target-ms", a->targetMs);
  opt("repeat", a->repeat);
  opt("size-factor", a->sizeFactor);
  opt("exec-timeout", a->execTimeout);
  opt("rollback-threshold", a->rollbackThreshold);
  opt("rollback-window", a->rollbackWindow);
  opt("patience", a->patience);
  addDisciplineOption(*train, a->discipline);
  // The ranges are PolicyConfig::validate's; checked here too so that a value too large for an
  // int is quoted with its range, not "Could not convert".
  auto archOpt = [&](const char* name, int& target, const char* description, int lo = 1,
                     int hi = 4096) {
    a->opts[name] =
        train->add_option(std::string("--") + name, target, description)->check(CLI::Range(lo, hi));
  };
  archOpt("hidden", a->arch.hidden, "Node embedding width (new policies; default 128)");
  archOpt("mp-steps", a->arch.mp_steps, "Message-passing steps (default 6)", 0, 64);
  archOpt("edge-hidden", a->arch.edge_hidden, "Edge network width (default 32)");
  archOpt("head-hidden", a->arch.head_hidden, "SEL/PLC decoder width (default 64)");
  archOpt("device-hidden", a->arch.device_hidden,
          "PLC device-feature embedding width (default 32)");
  archOpt("device-features", a->arch.device_features,
          "PLC device features: 16 (architecture 2) or 18 (3, with the join look-ahead; "
          "--general widens a 16-feature start to it)");
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

// `doppler train` (stages I and II of the dual policy) and `doppler eval` (a trained policy's
// placement, printed as `place` prints one, with "method": "doppler").
#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_common.h"
#include "core/graph/input_error.h"
#include "core/policy/features.h"
#include "core/policy/policy.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "core/train/trainer.h"
#include "placement_json.h"
#include "progress_bar.h"
#include "run_recording.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"

namespace doppler::cli {
namespace {

using policy::Component;

std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) {
  gInterrupted = true;
}

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

Component parseComponent(const std::string& s, const char* option) {
  if (s == "learned") return Component::Learned;
  if (s == "heuristic") return Component::Heuristic;
  throw InputError("", option, "unknown value '" + s + "' (known: learned, heuristic)");
}

nlohmann::json numberOrNull(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

// The per-step decisions of an episode, as the run store and the JSON output record them.
sessions::PlacementRecord decisionsRecord(const DataflowGraph& g, const policy::EpisodeResult& e) {
  sessions::PlacementRecord rec = sessions::placementRecord(g, e.assignment, e.order);
  rec.decisions.clear();
  for (size_t t = 0; t < e.steps.size(); ++t) {
    const policy::EpisodeStep& s = e.steps[t];
    sessions::Decision d;
    d.step = static_cast<int>(t);
    d.node = s.node;
    d.device = s.device;
    for (size_t j = 0; j < s.candidates.size(); ++j) {
      d.sel_candidates.emplace_back(s.candidates[j], s.sel_probs[j]);
      if (s.candidates[j] == s.node) d.sel_prob = s.sel_probs[j];
    }
    d.plc_probs.assign(s.plc_probs.begin(), s.plc_probs.end());
    if (s.device >= 0 && s.device < static_cast<int>(s.plc_probs.size()))
      d.plc_prob = s.plc_probs[s.device];
    rec.decisions.push_back(std::move(d));
  }
  return rec;
}

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

// ---------------------------------------------------------------------------------------------
// train

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
  policy::PolicyConfig arch;
  bool json = false;
  RecordArgs record;
  // Options given on the command line (the rest keep the stage's defaults).
  std::map<std::string, CLI::Option*> opts;
  bool given(const std::string& name) const {
    auto it = opts.find(name);
    return it != opts.end() && it->second->count() > 0;
  }
};

train::TrainConfig trainConfig(const TrainArgs& a, const std::string& graphName) {
  train::TrainConfig c = train::TrainConfig::defaults(train::parseStage(a.stage));
  if (a.given("episodes")) c.episodes = a.episodes;
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
  c.graph_name = graphName;
  c.validate();
  return c;
}

void runTrain(const TrainArgs& args) {
  DataflowGraph g = loadGraph(args.graph);
  DeviceSet d = loadDevices(args.devices);
  checkFits(g, args.graph, d);
  if (g.nodeCount() == 0) throw InputError(args.graph.graph, "", "the graph has no nodes");
  const train::TrainConfig cfg = trainConfig(args, g.name);

  // The policy: from the checkpoint (its architecture), or new with the given architecture.
  policy::Policy pol(args.arch, args.seed);
  if (!args.from.empty()) {
    policy::PolicyConfig stored;
    policy::Policy::readMeta(args.from, &stored);
    const bool archGiven = args.given("hidden") || args.given("mp-steps") ||
                           args.given("edge-hidden") || args.given("head-hidden") ||
                           args.given("device-hidden");
    if (archGiven && !(stored == args.arch))
      throw InputError(args.from, "architecture",
                       "checkpoint holds a policy of another architecture (" + stored.describe() +
                           "); the command line asks for " + args.arch.describe());
    pol = policy::Policy::load(args.from);
  } else {
    args.arch.validate();
  }

  sessions::RunSpec spec;
  spec.kind = "train";
  spec.method = "doppler";
  spec.params = {
      {"graph_file", absoluteIfFile(args.graph.graph)},
      {"scale", args.graph.scale},
      {"devices", absoluteIfFile(args.devices.devices)},
      {"stage", args.stage},
      {"from", args.from.empty() ? nlohmann::json() : nlohmann::json(absoluteIfFile(args.from))},
      {"out", args.out},
      {"train_config", cfg.toJson()},
      {"architecture", pol.config().toJson()}};
  spec.seed = args.seed;
  RunRecording rec(args.record, spec, g, d);
  std::optional<sessions::MetricWriter> metrics;
  if (rec.enabled()) metrics.emplace(rec.store(), rec.id());

  ProgressBar bar(std::string("train ") + args.stage);
  auto onProgress = [&](const train::TrainProgress& p) {
    std::string detail = "makespan " + fmt(p.makespan_us) + " us, best " + fmt(p.best_makespan_us);
    if (std::isfinite(p.greedy_makespan_us)) detail += ", greedy " + fmt(p.greedy_makespan_us);
    if (std::isfinite(p.agreement)) detail += ", agree " + fmt(p.agreement * 100) + "%";
    detail += ", " + fmt(p.episodes_per_s) + " ep/s";
    bar.update(p.episode, p.episodes, detail);
    if (metrics) {
      const int64_t step = p.episode;
      metrics->append("makespan_us", step, p.makespan_us);
      metrics->append("best_makespan_us", step, p.best_makespan_us);
      metrics->append("loss", step, p.loss);
      metrics->append("sel_loss", step, p.sel_loss);
      metrics->append("plc_loss", step, p.plc_loss);
      metrics->append("entropy", step, p.entropy);
      metrics->append("lr", step, p.lr);
      metrics->append("epsilon", step, p.epsilon);
      metrics->append("episodes_per_s", step, p.episodes_per_s);
      if (std::isfinite(p.baseline_us)) metrics->append("baseline_us", step, p.baseline_us);
      if (std::isfinite(p.agreement)) metrics->append("agreement", step, p.agreement);
      if (p.evaluated) metrics->append("greedy_makespan_us", step, p.greedy_makespan_us);
    }
  };

  train::TrainJob job(g, d, std::move(pol), cfg, args.from);
  gInterrupted = false;
  auto previous = std::signal(SIGINT, onInterrupt);
  job.start(onProgress);
  while (!job.finished()) {
    if (gInterrupted) job.cancel();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::signal(SIGINT, previous);
  train::TrainResult result;
  try {
    result = job.wait();
  } catch (const std::exception& e) {
    bar.finish();
    rec.fail(e.what());
    throw;
  }
  bar.finish();

  CostTable costs(g, d);
  Simulator simulator(costs, cfg.sim);
  const SimResult sim = simulator.run(result.greedy.assignment);
  const double lb = lowerBound(costs).value();
  if (rec.enabled()) {
    metrics->flush();
    sessions::RunStore& store = rec.store();
    store.savePlacement(rec.id(), decisionsRecord(g, result.greedy));
    store.saveTimeline(rec.id(), sessions::timelineRecord(g, sim.schedule, "simulated"));
    store.setFigures(rec.id(), {{"makespan_us", result.greedy_makespan_us},
                                {"best_makespan_us", result.best_makespan_us},
                                {"lower_bound_us", lb},
                                {"episodes", static_cast<double>(result.episodes_done)},
                                {"distill_updates", static_cast<double>(result.distill_updates)},
                                {"seconds", result.seconds}});
    store.addCheckpointFile(rec.id(), args.out, result.episodes_done, args.stage);
    if (result.cancelled)
      store.finishRun(rec.id(), sessions::RunStatus::Cancelled);
    else
      rec.finish();
  }

  if (args.json) {
    nlohmann::json out = {{"stage", args.stage},
                          {"checkpoint", args.out},
                          {"episodes_done", result.episodes_done},
                          {"episodes_run", result.episodes_run},
                          {"distill_updates", result.distill_updates},
                          {"resumed", result.resumed},
                          {"cancelled", result.cancelled},
                          {"seconds", result.seconds},
                          {"greedy_makespan_us", result.greedy_makespan_us},
                          {"best_makespan_us", numberOrNull(result.best_makespan_us)},
                          {"lower_bound_us", lb},
                          {"graph", g.name},
                          {"devices", d.name},
                          {"device_count", d.size()},
                          {"train_config", cfg.toJson()},
                          {"architecture", job.policy().config().toJson()}};
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& p : result.evaluations)
      curve.push_back({{"episode", p.episode},
                       {"distill_update", p.distill_update},
                       {"greedy_makespan_us", p.greedy_makespan_us},
                       {"best_makespan_us", p.best_makespan_us},
                       {"agreement", numberOrNull(p.agreement)},
                       {"elapsed_s", p.elapsed_s}});
    out["curve"] = curve;
    if (rec.enabled()) out["run_id"] = rec.id();
    writeOutput("", dump(out));
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
  if (result.distill_updates > 0) s << "distilled     " << result.distill_updates << " updates\n";
  s << "checkpoint    " << args.out << "\n";
  if (rec.enabled()) s << "run " << rec.id() << " recorded in " << rec.db() << "\n";
  writeOutput("", s.str());
}

// ---------------------------------------------------------------------------------------------
// eval

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

void runEval(const EvalArgs& args) {
  if (args.samples < 1) throw InputError("", "--samples", "must be at least 1");
  nlohmann::json meta;
  policy::Policy pol = policy::Policy::load(args.policy, &meta);
  DataflowGraph g = loadGraph(args.graph);
  DeviceSet d = loadDevices(args.devices);
  checkFits(g, args.graph, d);
  policy::setComputeThreads(args.threads);
  CostTable costs(g, d);
  SimOptions sim;
  sim.model = parseCostModel(args.costModel);
  const Component sel = parseComponent(args.sel, "--sel"), plc = parseComponent(args.plc, "--plc");

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
    best = train::evaluatePolicy(pol, costs, args.samples, args.seed, sim, sel, plc);
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
    out["policy"] = {{"architecture", pol.config().toJson()},
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

void addTrainCommands(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* train = app.add_subcommand("train",
                                       "Train Doppler's dual policy: stage I imitates "
                                       "critical-path, stage II learns in the simulator");
  addGraphOptions(*train, a->graph);
  addDeviceOptions(*train, a->devices);
  train->add_option("--stage", a->stage, "imitation (stage I) or sim (stage II)")
      ->check(CLI::IsMember({"imitation", "sim"}))
      ->capture_default_str();
  train
      ->add_option("--out,-o", a->out,
                   "Checkpoint to write (at the end, on cancel, and every --checkpoint-every)")
      ->required();
  train->add_option(
      "--from", a->from,
      "Start from this checkpoint: resumes it if it is an unfinished run of the same stage on the "
      "same graph and devices, otherwise takes its weights");
  train->add_option("--seed", a->seed, "Seed (initial weights and every episode)")
      ->capture_default_str();
  auto opt = [&](const std::string& name, auto& target, const std::string& help) {
    a->opts[name] = train->add_option("--" + name, target, help);
  };
  opt("episodes", a->episodes,
      "Episodes (default: imitation 500, sim 12000; the paper graphs' LLAMA results used 32000)");
  opt("lr", a->lr,
      "Learning rate (constant unless --lr-final; default: imitation 3e-3 -> 3e-4, sim 3e-4 -> "
      "1e-6)");
  opt("lr-final", a->lrFinal, "Learning rate at the last episode (linear schedule)");
  opt("epsilon", a->epsilon,
      "Probability of a uniform exploratory choice (default: imitation 0, sim 0.2 -> 0)");
  opt("epsilon-final", a->epsilonFinal, "Epsilon at the last episode");
  opt("entropy", a->entropy, "Entropy bonus weight (default: imitation 1e-3, sim 1e-2 -> 0)");
  opt("entropy-final", a->entropyFinal, "Entropy weight at the last episode");
  opt("teacher-mix", a->teacherMix,
      "Imitation: probability of following the teacher at a step (default 0.5 -> 0)");
  opt("teacher-mix-final", a->teacherMixFinal, "Teacher mix at the last episode");
  opt("clip-grad", a->clipGrad, "Gradient norm clip (0: none; default 1)");
  opt("baseline-decay", a->baselineDecay,
      "Decay of the running-mean reward baseline (default 0.95)");
  opt("eval-every", a->evalEvery, "Greedy evaluation every N episodes (default 50)");
  opt("imitate-best", a->imitateBest,
      "Stage II: weight of self-imitation of the best episode so far (default 1; 0 = plain "
      "REINFORCE)");
  opt("guided", a->guided,
      "Stage II: fraction of each update's episodes that explore around the best episode so "
      "far (default 0.5)");
  opt("guide-deviate", a->guideDeviate,
      "Stage II, guided episodes: probability that a node leaves the best episode's device "
      "(default 0.03)");
  opt("guide-deviate-final", a->guideDeviateFinal,
      "Stage II: the deviation probability at the last episode (linear schedule)");
  opt("distill", a->distill,
      "Stage II: at most this many final updates of pure imitation of the best episode, until "
      "the greedy policy reaches it (default 1500)");
  opt("distill-lr", a->distillLr, "Learning rate of the distillation updates (default 3e-3)");
  train
      ->add_option(
          "--baseline", a->baseline,
          "Stage II baseline: running-mean, or batch (mean of the update's other episodes)")
      ->check(CLI::IsMember({"running-mean", "batch"}))
      ->capture_default_str();
  opt("rollouts", a->rollouts,
      "Episodes per update; the encoder runs once per update (default: imitation 1, sim 4)");
  train->add_option("--threads", a->threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str();
  train->add_option("--checkpoint-every", a->checkpointEvery,
                    "Also write the checkpoint every N episodes");
  opt("explore", a->explore,
      "Behaviour policy: greedy, epsilon-greedy or sample (default: imitation greedy, sim "
      "epsilon-greedy)");
  train
      ->add_option("--sel", a->sel, "SEL: learned, or heuristic (the ablation: bottom-level order)")
      ->capture_default_str();
  train
      ->add_option("--plc", a->plc,
                   "PLC: learned, or heuristic (the ablation: earliest-start device)")
      ->capture_default_str();
  train
      ->add_option("--cost-model", a->costModel,
                   "Simulator cost model for stage II: reference or links")
      ->capture_default_str();
  opt("hidden", a->arch.hidden, "Node embedding width (new policies; default 128)");
  opt("mp-steps", a->arch.mp_steps, "Message-passing steps (default 6)");
  opt("edge-hidden", a->arch.edge_hidden, "Edge network width (default 32)");
  opt("head-hidden", a->arch.head_hidden, "SEL/PLC decoder width (default 64)");
  opt("device-hidden", a->arch.device_hidden, "PLC device-feature embedding width (default 32)");
  train->add_flag("--json", a->json, "Print one JSON object (summary and training curve)");
  addRecordOptions(*train, a->record);
  train->callback([a] { runTrain(*a); });

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

// `doppler fleet simulate` and `doppler fleet compare`: run fleet scheduling methods on the
// slot-level or the per-request simulator (core/fleet/sim, docs/fleet_sim.md) and print their
// metrics; compare runs every method over several seeds with 95% confidence intervals. Both are
// recorded in the run store as kind "fleet" (figures: the metrics).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/fleet/learn/fleet_methods.h"
#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/harness.h"
#include "core/train/torch_module.h"
#include "fleet_cli.h"
#include "interrupt.h"
#include "output.h"
#include "progress_bar.h"
#include "run_recording.h"
#include "sessions/fleet_runs.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

namespace fs = doppler::fleet::sim;
namespace fw = doppler::fleet;
namespace fl = doppler::fleet::learn;

// The harness's defaults, read once (GCC 12 warned of uninitialised strings in a temporary
// RunOptions built inside a constructor).
const fs::RunOptions kRunDefaults;

struct FleetSimArgs : FleetScenarioArgs {
  FleetSimArgs() { poolScale = kRunDefaults.pool_scale; }  // a loaded fleet: see --load
  double load = kRunDefaults.load;
  std::string fidelity = "slot";
  std::vector<std::string> outages;  // --outage, repeatable
  double ttftSlo = fs::SloTargets{}.ttft_s;
  double tpotSlo = fs::SloTargets{}.tpot_s;
  double forecastAccuracy = 0;  // 0: the simulator's mean-of-5 forecast and torta's predictor
  std::string method = "ot";    // simulate
  int seeds = 3;                // compare
  std::string methods;          // compare: comma-separated, empty = all
  std::string policy;           // torta's checkpoint; compare trains one when none is given
  int trainEpisodes = fl::FleetTrainConfig{}.episodes;
  OutputArgs output;
  RecordArgs record;
};

fs::RunOptions runOptions(const FleetSimArgs& args) {
  fs::RunOptions o = scenarioRunOptions(args, args.load);
  o.fidelity = fs::parseFidelity(args.fidelity);
  o.outages = args.outages;
  fw::findModel(args.model);  // an unknown model is refused before anything is read
  o.sim.slo.ttft_s = args.ttftSlo;
  o.sim.slo.tpot_s = args.tpotSlo;
  o.sim.forecast_accuracy = args.forecastAccuracy;
  return o;
}

void checkMethod(const std::string& name) {
  const std::vector<std::string>& known = fl::allFleetMethodNames();
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  throw InputError("", "--method " + name, "unknown method '" + name + "' (known: " + list + ")");
}

// torta's checkpoint read once up front, so a bad file fails before a run is recorded.
void checkPolicy(const std::string& method, const std::string& policy, int regions) {
  if (!fl::needsCheckpoint(method)) return;
  if (policy.empty())
    throw InputError("", "--policy",
                     "method " + method + " needs a trained fleet policy (--policy FILE)");
  fl::checkFleetPolicy(policy, regions);
}

fs::PreparedScenario prepare(const fs::RunOptions& o) {
  return fs::prepareScenario(o);
}

nlohmann::json loadJson(const fs::PreparedScenario& p, const fs::RunOptions& o) {
  return {{"target_load", p.load_applied ? nlohmann::json(o.load) : nlohmann::json()},
          {"load_applied", p.load_applied},
          {"load_factor", p.capacity.load_factor},
          {"fleet_requests_per_s", p.capacity.fleet_requests_per_s},
          {"demand_requests_per_s", p.capacity.demand_requests_per_s},
          {"time_scale", p.time_scale},
          {"rate_scale", p.rate_scale},
          {"pool_scale", o.pool_scale},
          {"requests", p.scenario.demand.requests.size()}};
}

std::string loadLine(const fs::PreparedScenario& p, const fs::RunOptions& o) {
  std::ostringstream s;
  s << "load        " << fixedNumber(p.capacity.load_factor, 3) << " of "
    << fixedNumber(p.capacity.fleet_requests_per_s, 1) << " requests/s (";
  if (p.load_applied)
    s << "target " << shortNumber(o.load) << "; demand x" << shortNumber(p.rate_scale);
  else
    s << "the trace's own: --horizon " << fleet::toString(o.horizon)
      << " keeps its request count, so --load applies to --horizon calendar and tile only";
  s << ", pool scale " << shortNumber(o.pool_scale) << "), " << p.scenario.demand.requests.size()
    << " requests\n";
  return s.str();
}

nlohmann::json metricsJson(const fs::FleetMetrics& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : fs::allFigures(m)) out[name] = value;
  out["region_utilization"] = m.region_utilization;
  out["rejected_by_reason"] = m.rejected_by_reason;
  out["slo"] = {{"ttft_s", m.slo.ttft_s}, {"tpot_s", m.slo.tpot_s}};
  return out;
}

// Recorded as the studio's fleet workbench records it (sessions/fleet_runs.h).
sessions::RunSpec fleetSpec(const std::string& method, const fs::RunOptions& o,
                            nlohmann::json extra) {
  return sessions::fleetRunSpec(method, o, std::move(extra));
}

// The slots whose learned allocation the safety layer replaced, with the reason.
nlohmann::json fallbackSlots(const fs::SimResult& result) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t t = 0; t < result.explanations.size(); ++t)
    if (result.explanations[t].fallback)
      out.push_back({{"slot", t}, {"reason", result.explanations[t].reason}});
  return out;
}

// What the learned method's checkpoint trained on, for the JSON: its scenario, whether this
// evaluation is held out from it (false when it is the training demand), and the line the text
// output prints.
void addProvenance(nlohmann::json& out, const fl::PolicyProvenance& p) {
  out["policy_trained_on"] = p.trained_on;
  out["policy_held_out"] = p.known ? nlohmann::json(!p.differences.empty()) : nlohmann::json();
  out["policy_differences"] = p.differences;
  out["policy_provenance"] = fl::provenanceLine(p);
}

void runSimulate(const FleetSimArgs& args) {
  const fs::RunOptions o = runOptions(args);
  checkMethod(args.method);
  // Bad input (files, options, a demand too large) exits 2 before a run is begun, so it leaves no
  // failed run in the store, as for the other commands.
  const fs::PreparedScenario prepared = prepare(o);
  checkPolicy(args.method, args.policy, prepared.scenario.world.regionCount());
  RunRecording rec(args.record, fleetSpec(args.method, o, nlohmann::json::object()),
                   sessions::fleetRunGraph(args.topology), sessions::fleetRunDevices(prepared));
  // A learned method says what its checkpoint trained on: this very demand or another.
  std::optional<fl::PolicyProvenance> provenance;
  if (fl::needsCheckpoint(args.method)) provenance = fl::policyProvenance(args.policy, o, prepared);
  const fs::SimResult result = fl::runFleetMethod(prepared, args.method, o, args.policy);
  const fs::FleetMetrics& m = result.metrics;
  for (size_t t = 0; t < result.series.queued.size(); ++t)
    rec.metric("queued", static_cast<int64_t>(t), result.series.queued[t]);
  rec.save(
      [&](sessions::RunStore& store, int64_t run) { store.setFigures(run, fs::allFigures(m)); });
  rec.finish();
  writeRecordedResult(
      args.output, rec,
      [&] {
        nlohmann::json out{{"topology", prepared.scenario.world.topology},
                           {"trace", prepared.scenario.demand.source},
                           {"method", args.method},
                           {"fidelity", args.fidelity},
                           {"seed", o.seed},
                           {"slots", o.slots},
                           {"load", loadJson(prepared, o)},
                           {"demand", demandJson(prepared.scenario.demand)},
                           {"fallbacks", result.fallbacks},
                           {"fallback_slots", fallbackSlots(result)},
                           {"metrics", metricsJson(m)}};
        if (provenance) addProvenance(out, *provenance);
        return out;
      },
      [&] {
        std::ostringstream s;
        s << "fleet       " << prepared.scenario.world.topology << ", "
          << prepared.scenario.demand.source << ", " << args.method << " on the " << args.fidelity
          << " simulator, " << o.slots << " slots, seed " << o.seed << "\n"
          << loadLine(prepared, o) << "demand      " << demandText(prepared.scenario.demand)
          << "\n";
        if (provenance) s << "policy      " << fl::provenanceLine(*provenance) << "\n";
        s << "\n";
        std::vector<std::vector<std::string>> rows = {{"", "mean", "p50", "p90", "p95", "p99"}};
        auto dist = [&](const std::string& name, const fs::Distribution& d) {
          rows.push_back({name, fixedNumber(d.mean, 3), fixedNumber(d.p50, 3),
                          fixedNumber(d.p90, 3), fixedNumber(d.p95, 3), fixedNumber(d.p99, 3)});
        };
        dist("response s", m.e2e_s);
        dist("TTFT s", m.ttft_s);
        dist("TPOT s", m.tpot_s);
        dist("queueing s", m.queue_s);
        std::vector<Align> align(6, Align::Right);
        align[0] = Align::Left;
        s << textTable(rows, align) << "\n"
          << "requests    " << fixedNumber(m.arrivals, 0) << " arrived, "
          << fixedNumber(m.served, 0) << " served, " << fixedNumber(m.queued, 0) << " queued, "
          << fixedNumber(m.rejected, 0) << " rejected\n"
          << "SLO         " << fixedNumber(100 * m.slo_attainment, 1) << "% within TTFT "
          << shortNumber(m.slo.ttft_s) << " s and TPOT " << shortNumber(m.slo.tpot_s)
          << " s; goodput " << fixedNumber(m.goodput_rps, 2) << " requests/s\n"
          << "throughput  " << fixedNumber(m.throughput_rps, 2) << " requests/s, "
          << fixedNumber(m.tokens_per_s, 0) << " tokens/s\n"
          << "cost        power $" << fixedNumber(m.power_cost_usd, 2) << " ("
          << fixedNumber(m.energy_kwh, 1) << " kWh, " << fixedNumber(m.energy_per_token_j, 3)
          << " J/token), GPUs $" << fixedNumber(m.gpu_cost_usd, 2) << "\n"
          << "changes     " << m.switches << " routing switches (cost "
          << fixedNumber(m.switch_cost, 2) << "), " << m.migrations << " cold starts\n"
          << "balance     utilization " << fixedNumber(m.utilization, 3)
          << " (served work / available capacity), CV " << fixedNumber(m.utilization_cv, 3)
          << ", Jain " << fixedNumber(m.jain_index, 3) << ", 1/(1+CV) "
          << fixedNumber(m.load_balance, 3) << "; busy " << fixedNumber(m.busy_share, 3)
          << " of powered time\n"
          << "network     " << fixedNumber(100 * m.cross_region_share, 1)
          << "% served away from home, +" << fixedNumber(m.added_network_s * 1e3, 2)
          << " ms mean added round trip\n"
          << "simulated   in " << fixedNumber(m.wall_s, 3) << " s\n";
        if (fl::needsCheckpoint(args.method)) {
          s << "safety      " << result.fallbacks << " of " << o.slots
            << " slots fell back to the OT plan\n";
          // The first few, with why: the full list is in --json and the studio's trace.
          int shown = 0;
          for (size_t t = 0; t < result.explanations.size() && shown < 5; ++t)
            if (result.explanations[t].fallback)
              s << "            slot " << t << ": " << result.explanations[t].reason << "\n",
                  ++shown;
        }
        return s.str();
      });
}

std::vector<std::string> splitMethods(const std::string& list) {
  if (list.empty()) {
    // Every method; the learned one, and OT routing with its allocator beside it (what the
    // learned routing adds), only where this build has LibTorch to train or load it.
    std::vector<std::string> all = fs::comparedPolicies();
    if (train::torchModuleBuiltIn()) {
      all.push_back(fl::kOtAllocatorMethod);
      all.push_back(fl::kTortaMethod);
    }
    return all;
  }
  std::vector<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    if (item.empty()) throw InputError("", "--methods " + list, "empty method name");
    checkMethod(item);
    out.push_back(item);
  }
  return out;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Where `compare` trains torta when no --policy is given (see runCompare).
std::string onTheSpotPolicyPath(const FleetSimArgs& args) {
  // The topology's stem: a topology given as a path ("nets/one.txt") must not add folders.
  const std::string topology = std::filesystem::path(args.topology).stem().string();
  const std::string name = "torta-" + topology + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(std::chrono::system_clock::now().time_since_epoch() /
                                          std::chrono::milliseconds(1)) +
                           ".pt";
  if (args.record.noRecord) return (std::filesystem::temp_directory_path() / name).string();
  const std::filesystem::path dir =
      std::filesystem::absolute(resolveDbPath(args.record.db)).parent_path() / "checkpoints";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir.string(), "", "cannot create the folder: " + ec.message());
  return (dir / name).string();
}

// Removes a file when the command ends, however it ends.
struct RemoveAtExit {
  std::string path;
  ~RemoveAtExit() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove(path, ec);
  }
};

void runCompare(const FleetSimArgs& args) {
  RemoveAtExit removeAtExit;
  const fs::RunOptions o = runOptions(args);
  const std::vector<std::string> methods = splitMethods(args.methods);
  nlohmann::json extra = {{"seeds", args.seeds}, {"methods", methods}};
  const fs::PreparedScenario first = prepare(o);  // validates options and reports the load
  // From here Ctrl-C or SIGTERM stops the comparison between two runs: the seeds every method
  // finished are reported, marked partial, and the run is stored cancelled (exit 130).
  CancelToken cancel;
  const InterruptGuard guard(cancel);
  const bool torta = std::any_of(methods.begin(), methods.end(), fl::needsCheckpoint);
  std::string policy = args.policy;
  if (torta && !policy.empty())
    checkPolicy(fl::kTortaMethod, policy, first.scenario.world.regionCount());
  fl::FleetTrainResult trained;
  if (torta && policy.empty()) {
    // No checkpoint: train one on the spot for this scenario (on seeds from 1000, never the
    // compared ones), and say where it is. A recorded comparison keeps it beside its session, in
    // checkpoints/ as the studio's trainings do, so the run's `policy` stays a file one can reuse;
    // without recording it is a temporary file, removed when the command ends.
    policy = onTheSpotPolicyPath(args);
    if (args.record.noRecord) removeAtExit.path = policy;
    fl::FleetTrainRequest request;
    request.scenario = o;
    request.config.episodes = args.trainEpisodes;
    request.out = policy;
    request.checkpoint_every = 0;
    ProgressBar bar("training torta");
    trained = fl::trainFleetPolicy(request, cancel, [&](const fl::FleetTrainProgress& p) {
      if (p.phase == "ppo") bar.update(p.episode, p.episodes);
    });
    bar.finish();
    if (trained.cancelled)
      throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                        std::to_string(trained.episodes_done) +
                        " episodes of training torta for the comparison: nothing was compared");
    extra["trained_episodes"] = trained.episodes_done;
  }
  std::optional<fl::PolicyProvenance> provenance;
  if (torta) provenance = fl::policyProvenance(policy, o, first);
  // A policy removed at the end is not named: the JSON would point at a file that is gone.
  extra["policy"] = policy.empty() || !removeAtExit.path.empty() ? "" : absoluteIfFile(policy);
  RunRecording rec(args.record, fleetSpec("compare", o, extra),
                   sessions::fleetRunGraph(args.topology), sessions::fleetRunDevices(first));
  fs::Comparison c;
  c = fl::compareFleetMethods(o, methods, args.seeds, policy, cancel);
  const bool partial = c.cancelled;
  if (partial && c.seeds() == 0) {
    rec.finish(sessions::RunStatus::Cancelled);
    throw Interrupted("interrupted by " + InterruptGuard::received() +
                      " before every method had finished the first seed: nothing to compare");
  }
  // Per method, per figure (every one a run has, p99 and the busy share included): the mean over
  // seeds and its 95% CI half-width. The text table shows the headline ones.
  nlohmann::json table = nlohmann::json::object();
  for (const std::string& m : methods) {
    std::map<std::string, std::vector<double>> values;
    for (const fs::FleetMetrics& run : c.runs[m])
      for (const auto& [name, value] : fs::allFigures(run)) values[name].push_back(value);
    nlohmann::json row = nlohmann::json::object();
    for (const auto& [name, v] : values) {
      row[name] = mean(v);
      row[name + "_ci95"] = fs::ci95HalfWidth(v);
    }
    // Each seed's figures too, in seed order, so that methods can be compared seed by seed (the
    // seeds share scenario and routing draws).
    row["per_seed"] = values;
    table[m] = row;
  }
  rec.save([&](sessions::RunStore& store, int64_t run) {
    store.setFigures(run, sessions::fleetCompareFigures(c));
    if (extra.contains("trained_episodes"))
      store.addCheckpointFile(run, policy, trained.episodes_done, "torta");
  });
  rec.finish(partial ? sessions::RunStatus::Cancelled : sessions::RunStatus::Finished);
  writeRecordedResult(
      args.output, rec,
      [&] {
        nlohmann::json out{{"topology", first.scenario.world.topology},
                           {"trace", first.scenario.demand.source},
                           {"fidelity", args.fidelity},
                           {"seeds", c.seeds()},
                           {"first_seed", o.seed},
                           {"policy", extra["policy"]},
                           {"trained_episodes", extra.value("trained_episodes", 0L)},
                           {"slots", o.slots},
                           {"load", loadJson(first, o)},
                           {"demand", demandJson(first.scenario.demand)},
                           {"methods", table}};
        if (provenance) addProvenance(out, *provenance);
        if (partial) {
          out["partial"] = true;
          out["seeds_asked"] = args.seeds;
          out["interrupted_by"] = InterruptGuard::received();
        }
        return out;
      },
      [&] {
        std::ostringstream s;
        s << "fleet       " << first.scenario.world.topology << ", " << first.scenario.demand.source
          << ", " << args.fidelity << " simulator, " << o.slots << " slots, seeds " << o.seed
          << ".." << o.seed + c.seeds() - 1 << " (mean ± 95% CI"
          << (partial ? "; interrupted: " + std::to_string(c.seeds()) + " of " +
                            std::to_string(args.seeds) + " seeds"
                      : std::string())
          << ")\n"
          << loadLine(first, o) << "demand      " << demandText(first.scenario.demand) << " (seed "
          << o.seed << ")\n";
        if (provenance) s << "policy      " << fl::provenanceLine(*provenance) << "\n";
        s << "\n";
        const std::vector<std::pair<std::string, std::string>> cols = {
            {"mean_response_s", "resp s"},    {"p95_response_s", "p95 s"},
            {"ttft_p95_s", "TTFT95 s"},       {"tpot_p95_s", "TPOT95 s"},
            {"slo_attainment", "SLO"},        {"mean_queue_s", "queue s"},
            {"power_cost", "power $"},        {"switches", "switches"},
            {"load_balance", "LB"},           {"utilization", "util"},
            {"cross_region_share", "remote"}, {"fallbacks", "fallbacks"}};
        std::vector<std::vector<std::string>> rows;
        std::vector<std::string> header = {"method"};
        for (const auto& col : cols) header.push_back(col.second);
        rows.push_back(header);
        for (const std::string& m : methods) {
          std::vector<std::string> row = {m};
          for (const auto& col : cols) {
            const double v = table[m][col.first].get<double>();
            const double ci = table[m][col.first + "_ci95"].get<double>();
            const int digits =
                col.first == "switches" || col.first == "power_cost" || col.first == "fallbacks"
                    ? 1
                    : 3;
            row.push_back(fixedNumber(v, digits) +
                          (c.seeds() > 1 ? "±" + fixedNumber(ci, digits) : ""));
          }
          rows.push_back(row);
        }
        std::vector<Align> align(header.size(), Align::Right);
        align[0] = Align::Left;
        s << textTable(rows, align);
        return s.str();
      });
  if (partial)
    throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                      std::to_string(c.seeds()) + " of " + std::to_string(args.seeds) +
                      " seeds: the comparison so far is above (partial)");
}

void addCommonOptions(CLI::App& cmd, FleetSimArgs& args) {
  addFleetScenarioOptions(cmd, args, "Seed for the world, the demand and the routing draws",
                          "Multiply the trace's times first (0.5 doubles the rate; with --load 0)");
  cmd.add_option("--load", args.load,
                 "Scale demand so the fleet's mean load (demand / roofline capacity) is this; 0: "
                 "as --time-scale gives it")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd.add_option("--fidelity", args.fidelity,
                 "slot (fluid model, fast) or request (discrete-event, per request)")
      ->capture_default_str();
  cmd.add_option("--outage", args.outages,
                 "A region's servers gone REGION:START_H:MINUTES (a name or index; hours after the "
                 "start), e.g. 3:2:60: its queue and its routed demand go elsewhere, its servers "
                 "come back cold; repeatable; slot fidelity only")
      ->allow_extra_args(false);
  cmd.add_option("--ttft-slo", args.ttftSlo, "TTFT target for SLO attainment, s")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd.add_option("--tpot-slo", args.tpotSlo, "TPOT target for SLO attainment, s")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd.add_option("--forecast-accuracy", args.forecastAccuracy,
                 "Impose the next-slot forecast's accuracy PA = exp(-mean relative error), in "
                 "(0, 1] (the true next slot, each region off by ln(1/PA)); 0: the methods' own "
                 "forecasts")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  addOutputOptions(cmd, args.output);
  addRecordOptions(cmd, args.record);
}

}  // namespace

void addFleetSimulateCommands(CLI::App& fleet) {
  auto sim = std::make_shared<FleetSimArgs>();
  CLI::App* simulate = fleet.add_subcommand(
      "simulate", "Run one scheduling method over a fleet scenario and print its metrics");
  addCommonOptions(*simulate, *sim);
  simulate
      ->add_option("--method,-m", sim->method,
                   "local, round-robin, least-loaded, skylb, sdib, ot, ot-smoothed, milp, torta; "
                   "with a checkpoint also ot-allocator, torta-no-predictor, torta-routing and "
                   "BASELINE+allocator (a baseline under torta's allocator)")
      ->capture_default_str();
  simulate->add_option("--policy", sim->policy, "torta's checkpoint (doppler fleet train)");
  simulate->callback([sim] { runSimulate(*sim); });

  auto cmp = std::make_shared<FleetSimArgs>();
  CLI::App* compare = fleet.add_subcommand(
      "compare", "Run every method with identical seeds; means and 95% confidence intervals");
  addCommonOptions(*compare, *cmp);
  compare->add_option("--seeds", cmp->seeds, "Seeds (seed, seed + 1, ...)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  compare->add_option("--methods", cmp->methods,
                      "Comma-separated methods (default: the baselines, ot-allocator, "
                      "torta-no-predictor and torta)");
  compare->add_option("--policy", cmp->policy,
                      "torta's checkpoint (doppler fleet train); without it torta is trained "
                      "first");
  compare
      ->add_option("--train-episodes", cmp->trainEpisodes,
                   "Episodes when torta is trained on the spot")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  compare->callback([cmp] { runCompare(*cmp); });
}

}  // namespace doppler::cli

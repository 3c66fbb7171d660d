// `doppler fleet train`: TORTA's learned layer (core/fleet/learn, docs/fleet_learn.md) trained in
// the slot-level simulator: the demand predictor, then the OT-guided PPO policy. The training runs
// in the LibTorch module; this file parses options, shows progress, records the run (kind
// "fleet", method "train") and prints the result.
#include <sstream>

#include "core/common/input_error.h"
#include "core/fleet/learn/fleet_methods.h"
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
namespace fl = doppler::fleet::learn;

// The harness's defaults, read once (GCC 12 warned of uninitialised strings in a temporary
// RunOptions built inside a constructor).
const fs::RunOptions kRunDefaults;

struct FleetTrainArgs : FleetScenarioArgs {
  FleetTrainArgs() { poolScale = kRunDefaults.pool_scale; }
  double load = kRunDefaults.load;
  fl::FleetTrainConfig config;
  std::string out, from;
  int checkpointEvery = 10;
  OutputArgs output;
  RecordArgs record;
};

fs::RunOptions scenarioOptions(const FleetTrainArgs& a) {
  fs::RunOptions o = scenarioRunOptions(a, a.load);
  o.seed = fl::kTrainSeedBase;  // training seeds are the trainer's (fleet_train.h)
  return o;
}

void runFleetTrain(const FleetTrainArgs& args) {
  if (args.out.empty()) throw InputError("", "--out", "a checkpoint file to write is required");
  fl::FleetTrainRequest request;
  request.scenario = scenarioOptions(args);
  request.config = args.config;
  request.config.seed = args.seed;
  request.out = args.out;
  request.from = args.from;
  request.checkpoint_every = args.checkpointEvery;
  // The scenario is checked (files, options) before a run is recorded.
  const fs::PreparedScenario prepared = fs::prepareScenario(request.scenario);
  nlohmann::json extra = {{"episodes", args.config.episodes},
                          {"train_seeds", args.config.train_seeds},
                          {"out", absoluteIfFile(args.out)},
                          {"from", args.from.empty() ? "" : absoluteIfFile(args.from)}};
  RunRecording rec(args.record, sessions::fleetRunSpec("train", request.scenario, extra),
                   sessions::fleetRunGraph(args.topology), sessions::fleetRunDevices(prepared));

  CancelToken cancel;
  ProgressBar bar("fleet train");
  fl::FleetTrainResult result;
  {
    const InterruptGuard guard(cancel);  // Ctrl-C or SIGTERM ends training between episodes
    result = fl::trainFleetPolicy(request, cancel, [&](const fl::FleetTrainProgress& p) {
      if (p.phase == "predictor") {
        bar.update(0, p.episodes, "training the demand predictor");
        return;
      }
      if (p.phase != "ppo") return;
      rec.metric("reward", p.episode, p.reward);
      rec.metric("response_s", p.episode, p.response_s);
      rec.metric("ot_response_s", p.episode, p.ot_response_s);
      std::ostringstream d;
      d << "response " << fixedNumber(p.response_s, 3) << " s (OT "
        << fixedNumber(p.ot_response_s, 3) << " s), reward " << fixedNumber(p.reward, 4);
      bar.update(p.episode, p.episodes, d.str());
    });
  }
  bar.finish();

  const fl::FleetTrainTail last = fl::lastEpisodes(result);
  const size_t tail = last.episodes;
  const double lastResponse = last.response_s, lastOt = last.ot_response_s,
               lastReward = last.reward;
  const std::map<std::string, double> figures = fl::trainFigures(result);
  rec.save([&](sessions::RunStore& store, int64_t run) { store.setFigures(run, figures); });
  rec.finish(result.cancelled ? sessions::RunStatus::Cancelled : sessions::RunStatus::Finished);
  writeRecordedResult(
      args.output, rec,
      [&] {
        nlohmann::json curve = nlohmann::json::array();
        for (const fl::FleetTrainProgress& p : result.history)
          curve.push_back({{"episode", p.episode},
                           {"reward", p.reward},
                           {"response_s", p.response_s},
                           {"ot_response_s", p.ot_response_s},
                           {"forecast_accuracy", p.predictor_accuracy}});
        return nlohmann::json{{"topology", prepared.scenario.world.topology},
                              {"trace", prepared.scenario.demand.source},
                              {"checkpoint", result.checkpoint},
                              {"cancelled", result.cancelled},
                              {"partial", result.cancelled},
                              {"interrupted_by", InterruptGuard::received()},
                              {"figures", figures},
                              {"curve", curve}};
      },
      [&] {
        std::ostringstream s;
        s << "fleet train " << prepared.scenario.world.topology << ", "
          << prepared.scenario.demand.source << ", " << request.scenario.slots << " slots, "
          << args.config.train_seeds << " training seeds from " << fl::kTrainSeedBase << "\n"
          << "predictor   accuracy " << fixedNumber(result.predictor_accuracy, 3)
          << " on a held-out seed (mean of the last 5 slots: "
          << fixedNumber(result.baseline_accuracy, 3) << ")\n"
          << "policy      " << result.episodes_done << " episodes"
          << (result.cancelled ? " (cancelled)" : "") << "; last " << tail << ": response "
          << fixedNumber(lastResponse, 3) << " s against OT's " << fixedNumber(lastOt, 3)
          << " s, reward " << fixedNumber(lastReward, 4) << "\n"
          << "time        " << fixedNumber(result.train_s, 1) << " s\n"
          << "checkpoint  " << result.checkpoint << "\n";
        return s.str();
      });
  if (result.cancelled && !InterruptGuard::received().empty())
    throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                      std::to_string(result.episodes_done) +
                      " episodes: the result so far is above (partial); resume with --from " +
                      result.checkpoint);
}

}  // namespace

void addFleetTrainCommand(CLI::App& fleet) {
  auto a = std::make_shared<FleetTrainArgs>();
  CLI::App* cmd = fleet.add_subcommand(
      "train", "Train TORTA's demand predictor and OT-guided PPO policy for one topology");
  addFleetScenarioOptions(*cmd, *a, "Seed for the networks' initialisation and the draws",
                          "Multiply the trace's times first (with --load 0)", true);
  cmd->add_option("--load", a->load, "Scale demand to this mean load of the fleet")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--out,-o", a->out, "Checkpoint to write (also every --checkpoint-every)");
  cmd->add_option("--from", a->from, "Resume from this checkpoint (same topology)");
  cmd->add_option("--episodes", a->config.episodes, "PPO episodes")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--train-seeds", a->config.train_seeds,
                  "Scenario seeds trained on (from 1000, never the evaluation seeds)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--hidden", a->config.hidden, "Hidden width of the policy and value networks")
      ->check(CLI::Range(8, 4096))
      ->capture_default_str();
  cmd->add_option("--lr", a->config.lr, "Adam learning rate")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd->add_option("--predictor-epochs", a->config.predictor_epochs,
                  "Full-batch epochs of the demand predictor")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--power-weight", a->config.power_weight,
                  "Reward weight of the slot's electricity cost against the OT plan's")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--ot-power-weight", a->config.ot_power_weight,
                  "Weight of the regions' electricity per request in the OT cost (0: latency "
                  "alone, balanced columns)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--safety-threshold", a->config.safety_threshold,
                  "Fall back to OT when the estimated response regresses by more than this")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd->add_option("--safety-window", a->config.safety_window,
                  "Slots the regression is averaged over")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", a->checkpointEvery, "Write the checkpoint every N episodes")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_flag("--json", a->output.json, "Print one JSON object");  // --out is the checkpoint
  addRecordOptions(*cmd, a->record);
  cmd->callback([a] { runFleetTrain(*a); });
}

}  // namespace doppler::cli

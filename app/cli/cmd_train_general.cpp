// `doppler train --general`: one placement policy trained across the training distribution
// (core/train/general_trainer.h), in this process, as one worker of a data-parallel group
// (--rank/--world-size/--master), or as the launcher of N local workers (--workers N). Training
// runs in the LibTorch module; this file parses, launches and reports.
#include "cmd_train_general.h"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/graph/input_error.h"
#include "core/train/distributed.h"
#include "core/train/dp_worker.h"
#include "core/train/torch_module.h"
#include "output.h"
#include "progress_bar.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

const CancelToken* gCancel = nullptr;
extern "C" void onGeneralInterrupt(int) {
  if (gCancel) gCancel->cancel();
}

std::vector<std::string> splitKinds(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// This command's arguments after the program name (from /proc: main's argv is not kept).
std::vector<std::string> ownArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  if (!args.empty()) args.erase(args.begin());
  return args;
}

// This executable's path, to start the local workers with.
std::string selfPath() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's path: " + ec.message());
  return p.string();
}

}  // namespace

void addGeneralTrainOptions(CLI::App& train, GeneralTrainArgs& g) {
  train.add_flag("--general", g.general,
                 "Train one policy across many generated graphs and device sets (no --graph)");
  train
      .add_option("--graphs", g.graphs,
                  "--general: graph kinds to sample, comma-separated (chainmm, ffnn, "
                  "llama-block, llama-layer, layered)")
      ->capture_default_str();
  train.add_option("--batch", g.batch, "--general: samples per update, over all workers")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  train.add_option("--min-devices", g.minDevices, "--general: fewest devices in a sample")
      ->capture_default_str();
  train.add_option("--max-devices", g.maxDevices, "--general: most devices in a sample")
      ->capture_default_str();
  train.add_option("--workers", g.workers, "--general: start this many local worker processes")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  train.add_option("--rank", g.rank, "--general: this worker's rank in a multi-machine run");
  train.add_option("--world-size", g.worldSize, "--general: the number of workers in the run");
  train.add_option("--master", g.master, "--general: HOST:PORT of rank 0's rendezvous");
  train.add_option("--timeout", g.timeout, "--general: seconds any collective may wait")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
}

void runGeneralTrain(const GeneralTrainArgs& g, const GeneralTrainCommon& c) {
  if (c.out.empty()) throw InputError("", "--out", "a checkpoint file to write is required");
  train::GeneralTrainConfig cfg;
  if (c.stage == "real") throw InputError("", "--stage", "--general trains stage imitation or sim");
  cfg.stage = train::parseStage(c.stage);
  cfg.batch = g.batch;
  if (c.episodes > 0) cfg.updates = (c.episodes + g.batch - 1) / g.batch;
  cfg.seed = c.seed;
  cfg.lr = c.lr > 0 ? c.lr : (cfg.stage == train::Stage::Imitation ? 1e-3 : 1e-4);
  cfg.distribution.kinds = splitKinds(g.graphs);
  cfg.distribution.min_devices = g.minDevices;
  cfg.distribution.max_devices = g.maxDevices;
  cfg.distribution.seed = c.seed;
  cfg.distribution.validate();

  if (g.workers > 1) {
    if (g.worldSize > 1)
      throw InputError("", "--workers", "give --workers or --world-size, not both");
    // N copies of this command, each one worker; they find each other on a loopback port.
    std::vector<std::string> args = ownArguments();
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i] == "--workers") args.erase(args.begin() + i, args.begin() + i + 2), --i;
    train::LocalWorkers workers(selfPath(), args, g.workers);
    const std::string failure = train::LocalWorkers::firstFailure(workers.wait(g.timeout + 10));
    if (!failure.empty())
      throw train::DistributedError(failure + "; the last checkpoint written stays");
    return;
  }

  train::DistConfig dist;
  const bool distributed = g.worldSize > 1;
  if (distributed) {
    if (g.master.empty())
      throw InputError("", "--master", "a run of --world-size > 1 needs HOST:PORT");
    const train::MasterAddress m = train::parseMasterAddress(g.master);
    dist.rank = g.rank;
    dist.world_size = g.worldSize;
    dist.master_host = m.host;
    dist.master_port = m.port;
    dist.timeout_s = g.timeout;
  }
  const train::TorchModule& torch = train::loadTorchModule();
  CancelToken cancel;
  gCancel = &cancel;
  auto previous = std::signal(SIGINT, onGeneralInterrupt);
  ProgressBar bar(dist.rank == 0 ? "train --general" : "");
  const train::GeneralTrainResult r =
      torch.trainGeneral(cfg, c.from, c.out, distributed ? &dist : nullptr, cancel,
                         [&](const train::GeneralTrainProgress& p) {
                           if (dist.rank == 0)
                             bar.update(p.update, p.updates,
                                        "ratio to critical-path " + fixedNumber(p.mean_ratio, 3) +
                                            ", loss " + fixedNumber(p.loss, 4));
                         });
  std::signal(SIGINT, previous);
  gCancel = nullptr;
  bar.finish();
  if (dist.rank != 0) return;  // rank 0 reports and writes the checkpoint
  OutputArgs output;
  output.json = c.json;
  writeResult(
      output,
      [&] {
        nlohmann::json curve = nlohmann::json::array();
        for (const auto& p : r.curve)
          curve.push_back({{"update", p.update},
                           {"episodes", p.episodes},
                           {"loss", p.loss},
                           {"mean_ratio", p.mean_ratio},
                           {"elapsed_s", p.elapsed_s}});
        return nlohmann::json{{"checkpoint", c.out},
                              {"stage", c.stage},
                              {"updates", r.updates_done},
                              {"episodes", r.updates_done * cfg.batch},
                              {"workers", distributed ? g.worldSize : 1},
                              {"train_s", r.train_s},
                              {"cancelled", r.cancelled},
                              {"curve", curve}};
      },
      [&] {
        std::ostringstream s;
        s << "general     " << c.stage << ", " << r.updates_done << " updates of " << cfg.batch
          << " samples (" << (distributed ? g.worldSize : 1) << " worker"
          << (distributed ? "s" : "") << ")" << (r.cancelled ? ", cancelled" : "") << "\n";
        if (!r.curve.empty())
          s << "last        makespan / critical-path " << fixedNumber(r.curve.back().mean_ratio, 3)
            << ", loss " << fixedNumber(r.curve.back().loss, 4) << "\n";
        s << "time        " << fixedNumber(r.train_s, 1) << " s\n"
          << "checkpoint  " << c.out << "\n";
        return s.str();
      });
}

}  // namespace doppler::cli

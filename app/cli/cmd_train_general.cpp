// `doppler train --general`: one placement policy trained across the training distribution
// (core/train/general_trainer.h), in this process, as one worker of a data-parallel group
// (--rank/--world-size/--master), or as the launcher of N local workers (--workers N). Training
// runs in the LibTorch module; this file parses, reads the --graphs files, launches, records (rank
// 0, in the run store) and reports.
#include "cmd_train_general.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/common/input_error.h"
#include "core/graph/generators.h"
#include "core/train/distributed.h"
#include "core/train/dp_worker.h"
#include "core/train/torch_module.h"
#include "interrupt.h"
#include "output.h"
#include "progress_bar.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

std::vector<std::string> splitList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
  }
  return out;
}

bool isKind(const std::string& item) {
  if (item == "layered") return true;
  for (const GeneratorInfo& info : generatorKinds())
    if (info.kind == item) return true;
  return false;
}

// In a directory, the files taken as graphs: the extensions of the formats readGraphFile reads
// (dataflow-graph/1 JSON, Doppler text, ONNX). Anything else (a README, a script, hidden files
// such as editor swap files, subdirectories) is clearly not a graph and is passed over; a file
// with one of these extensions that does not read is an error, never skipped.
bool looksLikeGraphFile(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  if (name.empty() || name.front() == '.') return false;
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".json" || ext == ".txt" || ext == ".onnx";
}

// --graphs: comma-separated kinds, graph files and directories of graph files.
struct GraphSources {
  std::vector<std::string> kinds;
  std::vector<train::TrainingGraph> graphs;  // named by the path as given
  std::vector<std::string> files;            // the same files, absolute (the run store's)
};

GraphSources readGraphSources(const std::string& spec, const GraphArgs& how) {
  namespace fs = std::filesystem;
  GraphSources out;
  auto load = [&](const std::string& file) {
    GraphArgs a = how;
    a.graph = file;
    out.graphs.push_back({file, loadGraph(a)});  // InputError naming the file and line or field
    out.files.push_back(absoluteIfFile(file));
  };
  for (const std::string& item : splitList(spec)) {
    std::error_code ec;
    if (isKind(item)) {  // a file named like a kind is given as ./ffnn
      out.kinds.push_back(item);
    } else if (fs::is_directory(item, ec)) {
      std::vector<fs::path> files;
      for (fs::directory_iterator it(item, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && looksLikeGraphFile(it->path())) files.push_back(it->path());
      if (ec) throw InputError(item, "", "cannot list the directory: " + ec.message());
      if (files.empty())
        throw InputError(item, "",
                         "no graph files in the directory (*.json, *.txt or *.onnx; "
                         "subdirectories are not read)");
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) load(f.string());
    } else if (fs::exists(item, ec)) {
      load(item);  // a file named on its own is read whatever its name, as --graph reads it
    } else {
      throw InputError("", "--graphs",
                       "'" + item +
                           "' is neither a graph kind (chainmm, ffnn, llama-block, llama-layer, "
                           "layered) nor a graph file or directory");
    }
  }
  return out;
}

// "2 kinds (ffnn, layered), 3 graph files (g/a.json, g/b.json, g/c.txt)"
std::string describeSources(const train::TrainingDistribution& d) {
  std::ostringstream s;
  auto list = [&s](const std::vector<std::string>& names) {
    for (size_t i = 0; i < names.size() && i < 4; ++i) s << (i ? ", " : "") << names[i];
    if (names.size() > 4) s << ", ...";
  };
  if (!d.kinds.empty()) {
    s << d.kinds.size() << (d.kinds.size() == 1 ? " kind (" : " kinds (");
    list(d.kinds);
    s << ")";
  }
  if (!d.graphs.empty()) {
    std::vector<std::string> names;
    for (const auto& g : d.graphs) names.push_back(g.name);
    s << (d.kinds.empty() ? "" : ", ") << d.graphs.size()
      << (d.graphs.size() == 1 ? " graph file (" : " graph files (");
    list(names);
    s << ")";
  }
  return s.str();
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
                  "--general: what samples are drawn from, comma-separated: graph kinds "
                  "(chainmm, ffnn, llama-block, llama-layer, layered: generated, randomised), "
                  "graph files (JSON, Doppler text or ONNX; --scale and --dim apply) and "
                  "directories (their *.json, *.txt and *.onnx files, by name, not recursive). "
                  "Each sample picks one uniformly and draws a device set for it")
      ->capture_default_str();
  train
      .add_option("--group", g.group,
                  "--general, stage II: episodes of each sampled graph (the advantage is against "
                  "their mean); --batch must be a multiple of it")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  train
      .add_option("--teacher-budget", g.teacherBudget,
                  "--general, stage II: local-search evaluations of the teacher each sampled graph "
                  "imitates (with --imitate-best, when it beats the graph's own episodes)")
      ->check(CLI::Range(1L, 10000000L))
      ->capture_default_str();
  train
      .add_option("--teacher-start", g.teacherStart,
                  "--general, stage II: where the teacher's local search starts: critical-path, "
                  "own (the sample's best episode, so the teacher improves with the policy: expert "
                  "iteration) or both (twice the evaluations)")
      ->check(CLI::IsMember({"critical-path", "own", "both"}))
      ->capture_default_str();
  train.add_flag("--teacher-join", g.teacherJoin,
                 "--general, stage II: critical-path with the earliest-join device rule competes "
                 "in the teacher too, beside HEFT and the local searches");
  train
      .add_option("--average", g.average,
                  "--general: decay per update of a moving average of the weights, which the "
                  "checkpoint places with (it keeps the raw ones to resume from); 0: none")
      ->capture_default_str();
  train
      .add_option("--fixed-costs", g.fixedCosts,
                  "--general: the share of samples given fixed costs, as the Doppler paper's "
                  "text files give them: one compute time per node on identical devices, each "
                  "edge 1-16x (per sample) its producer's compute time, whatever the links")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  train.add_option("--batch", g.batch, "--general: episodes per update, over all workers")
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
  cfg.group = g.group;
  if (c.entropy >= 0) cfg.entropy = c.entropy;
  if (c.imitate >= 0) cfg.imitate = c.imitate;
  cfg.teacher_budget = g.teacherBudget;
  cfg.teacher_start = g.teacherStart;
  cfg.teacher_join = g.teacherJoin;
  cfg.average = g.average;
  cfg.device_features = c.deviceFeatures;
  if (c.episodes > 0) cfg.updates = (c.episodes + g.batch - 1) / g.batch;
  cfg.seed = c.seed;
  cfg.lr = c.lr > 0 ? c.lr : (cfg.stage == train::Stage::Imitation ? 1e-3 : 1e-4);
  // The files are read once, here, before any worker starts or any run is recorded: a graph that
  // does not read stops the command with exit 2.
  GraphSources sources = readGraphSources(g.graphs, c.graphFiles);
  cfg.distribution.kinds = sources.kinds;
  cfg.distribution.graphs = std::move(sources.graphs);
  cfg.distribution.min_devices = g.minDevices;
  cfg.distribution.max_devices = g.maxDevices;
  cfg.distribution.seed = c.seed;
  cfg.distribution.fixed_costs = g.fixedCosts;
  cfg.distribution.validate();

  if (g.workers > 1) {
    if (g.worldSize > 1)
      throw InputError("", "--workers", "give --workers or --world-size, not both");
    checkRecordable(c.record);  // rank 0 records: a --db it would refuse fails here, exit 2
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
  const int workers = distributed ? g.worldSize : 1;
  const train::TorchModule& torch = train::loadTorchModule();

  // Rank 0 records the run. It is on no one graph: the spec holds the distribution instead.
  sessions::RunSpec spec;
  spec.kind = "train";
  spec.method = "doppler-general";
  spec.seed = c.seed;
  const train::TrainingDistribution& d = cfg.distribution;
  spec.params = {
      {"general", true},
      {"stage", c.stage},
      {"graphs", g.graphs},
      {"kinds", d.kinds},
      {"graph_files", sources.files},
      {"scale", c.graphFiles.scale},
      {"min_devices", d.min_devices},
      {"max_devices", d.max_devices},
      {"mixed", d.mixed},
      {"fixed_costs", d.fixed_costs},
      {"distribution_seed", d.seed},
      {"batch", cfg.batch},
      {"group", cfg.group},
      {"entropy", cfg.entropy},
      {"imitate", cfg.imitate},
      {"teacher_budget", cfg.teacher_budget},
      {"teacher_start", cfg.teacher_start},
      {"teacher_join", cfg.teacher_join},
      {"average", cfg.average},
      {"device_features", cfg.device_features},
      {"updates", cfg.updates},
      {"lr", cfg.lr},
      {"workers", workers},
      {"from", c.from.empty() ? nlohmann::json() : nlohmann::json(absoluteIfFile(c.from))},
      {"out", c.out}};
  if (!c.graphFiles.dims.empty()) spec.params["dims"] = c.graphFiles.dims;
  RecordArgs recordArgs = c.record;
  if (dist.rank != 0) recordArgs.noRecord = true;
  RunRecording rec(recordArgs, spec);  // a --db it refuses: InputError, before training

  CancelToken cancel;
  ProgressBar bar(dist.rank == 0 ? "train --general" : "");
  train::GeneralTrainResult r;
  try {
    const InterruptGuard guard(cancel);  // Ctrl-C or SIGTERM ends training between updates
    r = torch.trainGeneral(cfg, c.from, c.out, distributed ? &dist : nullptr, cancel,
                           [&](const train::GeneralTrainProgress& p) {
                             if (dist.rank != 0) return;
                             bar.update(p.update, p.updates,
                                        "ratio to critical-path " + fixedNumber(p.mean_ratio, 3) +
                                            ", loss " + fixedNumber(p.loss, 4));
                             // The curve, stepped by episodes (resumed runs go on counting).
                             rec.metric("mean_ratio", p.episodes, p.mean_ratio);
                             rec.metric("loss", p.episodes, p.loss);
                             rec.metric("elapsed_s", p.episodes, p.elapsed_s);
                           });
  } catch (const std::exception& e) {
    bar.finish();
    rec.fail(e.what());
    throw;
  }
  bar.finish();
  if (dist.rank != 0) return;  // rank 0 reports and writes the checkpoint
  const long episodes = r.updates_done * cfg.batch;
  rec.save([&](sessions::RunStore& store, int64_t run) {
    std::map<std::string, double> figures = {{"updates", static_cast<double>(r.updates_done)},
                                             {"episodes", static_cast<double>(episodes)},
                                             {"seconds", r.train_s}};
    if (!r.curve.empty()) {
      figures["mean_ratio"] = r.curve.back().mean_ratio;
      figures["loss"] = r.curve.back().loss;
    }
    store.setFigures(run, figures);
    store.addCheckpointFile(run, c.out, episodes, c.stage);
    store.finishRun(run,
                    r.cancelled ? sessions::RunStatus::Cancelled : sessions::RunStatus::Finished);
    rec.markEnded();
  });
  OutputArgs output;
  output.json = c.json;
  writeRecordedResult(
      output, rec,
      [&] {
        nlohmann::json curve = nlohmann::json::array();
        for (const auto& p : r.curve)
          curve.push_back({{"update", p.update},
                           {"episodes", p.episodes},
                           {"loss", p.loss},
                           {"mean_ratio", p.mean_ratio},
                           {"elapsed_s", p.elapsed_s}});
        nlohmann::json graphs = nlohmann::json::array();
        for (size_t i = 0; i < d.graphs.size(); ++i)
          graphs.push_back({{"name", d.graphs[i].name},
                            {"file", sources.files[i]},
                            {"nodes", d.graphs[i].graph.nodeCount()},
                            {"edges", d.graphs[i].graph.edgeCount()}});
        return nlohmann::json{{"checkpoint", c.out},
                              {"stage", c.stage},
                              {"updates", r.updates_done},
                              {"episodes", episodes},
                              {"workers", workers},
                              {"train_s", r.train_s},
                              {"cancelled", r.cancelled},
                              {"partial", r.cancelled},
                              {"sources", {{"kinds", d.kinds}, {"graphs", graphs}}},
                              {"curve", curve}};
      },
      [&] {
        std::ostringstream s;
        s << "general     " << c.stage << ", " << r.updates_done << " updates of " << cfg.batch
          << " episodes (" << workers << " worker" << (workers > 1 ? "s" : "") << ")"
          << (r.cancelled ? ", cancelled" : "") << "\n"
          << "samples     " << describeSources(d) << ", on " << d.min_devices << " to "
          << d.max_devices << " devices\n";
        if (!r.curve.empty())
          s << "last        makespan / critical-path " << fixedNumber(r.curve.back().mean_ratio, 3)
            << ", loss " << fixedNumber(r.curve.back().loss, 4) << "\n";
        s << "time        " << fixedNumber(r.train_s, 1) << " s\n"
          << "checkpoint  " << c.out << "\n";
        return s.str();
      });
  if (r.cancelled && !InterruptGuard::received().empty())
    throw Interrupted("interrupted by " + InterruptGuard::received() + " after " +
                      std::to_string(r.updates_done) +
                      " updates: the result so far is above (partial); resume with --from " +
                      c.out);
}

}  // namespace doppler::cli

#include "run_recording.h"

#include <filesystem>
#include <map>

#include "core/common/input_error.h"
#include "core/pipeline/place_and_simulate.h"
#include "sessions/from_core.h"
#include "sessions/user_paths.h"

namespace doppler::cli {

void addDbOption(CLI::App& cmd, std::string& db) {
  cmd.add_option("--db", db,
                 "Run store (session file); default: $XDG_DATA_HOME/doppler-studio/runs.sqlite, "
                 "created on first use");
}

void addRecordOptions(CLI::App& cmd, RecordArgs& args) {
  addDbOption(cmd, args.db);
  cmd.add_flag("--no-record", args.noRecord, "Do not record this run in the run store");
}

std::string absoluteIfFile(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return path;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

std::string resolveDbPath(const std::string& db) {
  if (!db.empty()) return db;
  sessions::ensureDataDirectory();
  return sessions::defaultSessionPath();
}

sessions::RunSpec runSpec(const std::string& kind, const std::string& method,
                          const GraphArgs& graph, const DeviceArgs& devices,
                          nlohmann::json params) {
  sessions::RunSpec spec;
  spec.kind = kind;
  spec.method = method;
  spec.params = std::move(params);
  spec.params["graph_file"] = absoluteIfFile(graph.graph);
  spec.params["scale"] = graph.scale;
  spec.params["devices"] = absoluteIfFile(devices.devices);
  return spec;
}

namespace {

bool opensForReading(const std::string& path) {
  try {
    sessions::OpenOptions options;
    options.mode = sessions::OpenMode::ReadOnly;
    sessions::RunStore store(path, options);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

void checkRecordable(const RecordArgs& args) {
  if (args.noRecord) return;
  const std::string path = resolveDbPath(args.db);
  try {
    sessions::RunStore store(path);
  } catch (const InputError&) {
    if (!opensForReading(path)) throw;  // as RunRecording: only a refused file is bad input
  }
}

RunRecording::RunRecording(const RecordArgs& args, sessions::RunSpec spec, const DataflowGraph& g,
                           const DeviceSet& d) {
  begin(args, std::move(spec), &g, &d);
}

RunRecording::RunRecording(const RecordArgs& args, sessions::RunSpec spec) {
  begin(args, std::move(spec), nullptr, nullptr);
}

void RunRecording::begin(const RecordArgs& args, sessions::RunSpec spec, const DataflowGraph* g,
                         const DeviceSet* d) {
  if (args.noRecord) return;
  path_ = resolveDbPath(args.db);
  try {
    store_ = std::make_unique<sessions::RunStore>(path_);
  } catch (const InputError& e) {
    // A file the store refuses (not a session, damaged, newer, cannot be created) is bad input.
    // A session that opens for reading but fails as it is opened for writing (a full disk, an
    // I/O error) only costs the recording.
    if (!opensForReading(path_)) throw;
    lost_ = e.what();
    return;
  }
  save([&](sessions::RunStore& store, int64_t) {
    if (g) spec.graph_id = store.putGraph(*g);
    if (d) spec.device_set_id = store.putDeviceSet(*d);
    id_ = store.beginRun(spec);
  });
}

RunRecording::~RunRecording() {
  if (!store_ || finished_) return;
  metrics_.reset();  // commits what it can; errors are swallowed
  if (id_ == 0) return;
  std::string why = failure_;
  if (why.empty())
    why = lost_.empty() ? "the command ended without a result" : "not recorded in full: " + lost_;
  try {
    store_->finishRun(id_, sessions::RunStatus::Failed, why);
  } catch (...) {
    // The store is failing; the run stays "running" and the next open marks it interrupted.
  }
}

void RunRecording::guard(const std::function<void()>& write) {
  if (!enabled()) return;
  try {
    write();
  } catch (const std::exception& e) {
    lost_ = e.what();
    metrics_.reset();
  }
}

void RunRecording::save(const std::function<void(sessions::RunStore&, int64_t)>& write) {
  guard([&] {
    // Metric batches first: the writer's background commits never overlap the store's writes.
    if (metrics_) metrics_->flush();
    write(*store_, id_);
  });
}

void RunRecording::metric(std::string_view series, int64_t step, double value) {
  guard([&] {
    if (!metrics_) metrics_.emplace(*store_, id_);
    metrics_->append(series, step, value);
  });
}

void RunRecording::savePlacement(const DataflowGraph& g, const PlaceOutcome& outcome, bool search) {
  save([&](sessions::RunStore& store, int64_t run) {
    const Placement& placement = outcome.placement;
    store.savePlacement(run, sessions::placementRecord(g, placement.assignment, placement.order));
    store.saveTimeline(run, sessions::timelineRecord(g, outcome.sim.schedule, "simulated"));
    if (placement.planned)
      store.saveTimeline(run, sessions::timelineRecord(g, *placement.planned, "planned"));
    std::map<std::string, double> figures = {{"makespan_us", outcome.makespan()},
                                             {"lower_bound_us", outcome.lower_bound_us}};
    if (placement.planned) figures["planned_makespan_us"] = placement.planned->makespan_us;
    if (search) figures["evaluations"] = static_cast<double>(placement.evaluations);
    store.setFigures(run, figures);
  });
}

void RunRecording::finish(sessions::RunStatus status) {
  save([&](sessions::RunStore& store, int64_t run) {
    store.finishRun(run, status);
    finished_ = true;
  });
}

void writeRecordedResult(const OutputArgs& args, const RunRecording& rec,
                         const std::function<nlohmann::json()>& json,
                         const std::function<std::string()>& text) {
  writeResult(
      args,
      [&] {
        nlohmann::json out = json();
        if (rec.enabled()) out["run_id"] = rec.id();
        return out;
      },
      [&] {
        std::string out = text();
        if (rec.enabled())
          out += "run " + std::to_string(rec.id()) + " recorded in " + rec.db() + "\n";
        return out;
      });
  if (rec.lost().empty()) return;
  throw NotRecorded(rec.id() != 0
                        ? "the result is complete, but run " + std::to_string(rec.id()) +
                              " was not recorded in full: " + rec.lost()
                        : "the result is complete, but the run was not recorded: " + rec.lost());
}

}  // namespace doppler::cli

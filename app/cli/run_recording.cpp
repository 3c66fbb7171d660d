#include "run_recording.h"

#include <filesystem>

#include "core/graph/input_error.h"
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

RunRecording::RunRecording(const RecordArgs& args, sessions::RunSpec spec, const DataflowGraph& g,
                           const DeviceSet& d) {
  if (args.noRecord) return;
  path_ = resolveDbPath(args.db);
  store_ = std::make_unique<sessions::RunStore>(path_);
  spec.graph_id = store_->putGraph(g);
  spec.device_set_id = store_->putDeviceSet(d);
  id_ = store_->beginRun(spec);
}

RunRecording::~RunRecording() {
  if (!store_ || finished_) return;
  try {
    store_->finishRun(id_, sessions::RunStatus::Failed,
                      failure_.empty() ? "the command ended without a result" : failure_);
  } catch (...) {
    // Already failing; the run stays "running" and the next open marks it interrupted.
  }
}

void RunRecording::finish() {
  if (!store_) return;
  store_->finishRun(id_, sessions::RunStatus::Finished);
  finished_ = true;
}

}  // namespace doppler::cli

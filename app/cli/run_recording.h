#pragma once
// How result-producing commands (place, simulate, and later train, eval, exec, fleet) record
// their run in the run store: `--db PATH` (default: the session in the user's data directory)
// and `--no-record`.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "sessions/records.h"
#include "sessions/run_store.h"

namespace doppler::cli {

struct RecordArgs {
  std::string db;  // empty: the default session
  bool noRecord = false;
};

void addRecordOptions(CLI::App& cmd, RecordArgs& args);
void addDbOption(CLI::App& cmd, std::string& db);

// `path` made absolute if it names an existing file (so a recorded run can be repeated from any
// directory); anything else (a preset name, a device count) as given.
std::string absoluteIfFile(const std::string& path);

// `db` as given, or the default session path (its directory created). Throws InputError.
std::string resolveDbPath(const std::string& db);

// A run being recorded. The constructor opens the store (bad --db: InputError, nothing written),
// stores the graph and device set and begins the run, status running. finish() marks it
// finished; a recording destroyed unfinished (an error unwinding) is marked failed with the
// reason given to fail(), if any. With --no-record every call does nothing.
class RunRecording {
 public:
  RunRecording(const RecordArgs& args, sessions::RunSpec spec, const DataflowGraph& g,
               const DeviceSet& d);
  ~RunRecording();
  RunRecording(const RunRecording&) = delete;
  RunRecording& operator=(const RunRecording&) = delete;

  bool enabled() const { return store_ != nullptr; }
  int64_t id() const { return id_; }
  const std::string& db() const { return path_; }
  sessions::RunStore& store() { return *store_; }

  void fail(const std::string& why) { failure_ = why; }
  void finish();

 private:
  std::unique_ptr<sessions::RunStore> store_;
  std::string path_;
  int64_t id_ = 0;
  bool finished_ = false;
  std::string failure_;
};

}  // namespace doppler::cli

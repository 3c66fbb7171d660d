#pragma once
// How result-producing commands (place, simulate, and later train, eval, exec, fleet) record
// their run in the run store: `--db PATH` (default: the session in the user's data directory)
// and `--no-record`, and one pattern for all of them:
//
//   RunRecording rec(args.record, spec, graph, devices);  // bad --db: InputError, exit 2
//   ... compute, with rec.metric(...) for series ...
//   rec.save([&](sessions::RunStore& store, int64_t run) { ... results ... });
//   rec.finish();
//   writeRecordedResult(args.output, rec, json, text);   // the result, then exit 3 if not recorded
//
// A run that cannot be recorded (disk full, I/O error) never costs the result: the store's error
// stops the recording, the command computes and prints its result in full, and only then says on
// stderr that the run was not recorded and why, exiting with kExitNotRecorded.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli_common.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "output.h"
#include "sessions/metric_writer.h"
#include "sessions/records.h"
#include "sessions/run_store.h"

namespace doppler {
struct PlaceOutcome;
}

namespace doppler::cli {

// Exit status of a command whose result was printed (or written to --out) in full but whose run
// could not be recorded. 2 stays "bad usage or bad input: nothing was done".
inline constexpr int kExitNotRecorded = 3;

// Thrown once the result is out; main prints its message as the one line on stderr.
class NotRecorded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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

// Opens the store as RunRecording would and closes it: a --db it would refuse is an InputError
// here, before any work starts (`train --general --workers N`, whose rank 0 records).
void checkRecordable(const RecordArgs& args);

// What a run records about its inputs, so it can be repeated: the graph file (absolute), its
// scale and the device spec, with `params` (the command's own settings) added.
sessions::RunSpec runSpec(const std::string& kind, const std::string& method,
                          const GraphArgs& graph, const DeviceArgs& devices, nlohmann::json params);

// A run being recorded. The constructor opens the store (a file it refuses is an InputError and
// nothing is written; a session that cannot be written to only stops the recording), stores the
// graph and device set and begins the run, status running. finish()
// marks it finished; a recording destroyed unfinished (an error unwinding) is marked failed with
// the reason given to fail(), if any. With --no-record every call does nothing.
class RunRecording {
 public:
  RunRecording(const RecordArgs& args, sessions::RunSpec spec, const DataflowGraph& g,
               const DeviceSet& d);
  // A run on no one graph and device set (`train --general` samples many): none is stored.
  RunRecording(const RecordArgs& args, sessions::RunSpec spec);
  ~RunRecording();
  RunRecording(const RunRecording&) = delete;
  RunRecording& operator=(const RunRecording&) = delete;

  // Recording, and every write so far succeeded.
  bool enabled() const { return store_ != nullptr && lost_.empty(); }
  int64_t id() const { return id_; }
  const std::string& db() const { return path_; }
  // Direct access for writes not made through save(); prefer save(), which keeps the result.
  sessions::RunStore& store() { return *store_; }

  // Runs `write` against the store while recording, after committing the metrics. An error of
  // the store (disk full, I/O error) stops the recording and is kept for lost(); it does not
  // propagate.
  void save(const std::function<void(sessions::RunStore& store, int64_t run)>& write);
  // One point of a metric series, batched (sessions/metric_writer.h); errors as save().
  void metric(std::string_view series, int64_t step, double value);
  // The placement, its simulated (and planned) timeline and its figures: makespan, lower bound,
  // planned makespan, and evaluations for search methods.
  void savePlacement(const DataflowGraph& g, const PlaceOutcome& outcome, bool search);
  void fail(const std::string& why) { failure_ = why; }
  // Marks the run finished, or cancelled (a partial result: its best so far), through save().
  void finish(sessions::RunStatus status = sessions::RunStatus::Finished);
  // The caller ended the run itself through store() (finished or cancelled): the destructor
  // must not mark it failed.
  void markEnded() { finished_ = true; }

  // Why recording was asked for but the run is not (fully) recorded; empty otherwise.
  const std::string& lost() const { return lost_; }

 private:
  void begin(const RecordArgs& args, sessions::RunSpec spec, const DataflowGraph* g,
             const DeviceSet* d);
  // Runs `write` while recording; a failure stops the recording and is kept in lost_.
  void guard(const std::function<void()>& write);

  std::unique_ptr<sessions::RunStore> store_;
  std::optional<sessions::MetricWriter> metrics_;  // destroyed before the store
  std::string path_;
  int64_t id_ = 0;
  bool finished_ = false;
  std::string failure_, lost_;
};

// The last step of every recording command: writes the result as writeResult() does, with the
// run's id when it was recorded ("run_id" in JSON; a last line "run N recorded in DB" in text),
// then throws NotRecorded if recording was asked for and failed.
void writeRecordedResult(const OutputArgs& args, const RunRecording& rec,
                         const std::function<nlohmann::json()>& json,
                         const std::function<std::string()>& text);

}  // namespace doppler::cli

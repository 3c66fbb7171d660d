#pragma once
// The run store: one SQLite file (a session) holding graphs, device sets and runs with their
// parameters, summary figures, metric series, placements, timelines, checkpoints, tags and notes.
//
// Opening never damages what it cannot use: a file that is not SQLite, is truncated, belongs to
// another application or has a newer schema is refused with an InputError naming it, and is left
// byte for byte as it was (see file_check.h). A usable file is put in WAL mode (readers -- the
// studio -- see a writer's commits as they land and never block it), with foreign keys on, is
// migrated forward if older, and runs whose writer died are marked interrupted
// (writer_identity.h).
//
// Thread safety: one connection guarded by a mutex; every method may be called from any thread.
// Other processes and other RunStore objects on the same file work concurrently through SQLite's
// locking (one writer at a time; writers wait up to busy_timeout_ms).
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/input_error.h"
#include "sessions/records.h"
#include "sessions/schema.h"
#include "sessions/sqlite_db.h"

namespace doppler {
class DataflowGraph;
class DeviceSet;
}  // namespace doppler

namespace doppler::sessions {

// A session whose pages fail SQLite's quick_check: refused for writing, readable read-only.
class DamagedSession : public InputError {
 public:
  DamagedSession(const std::string& file, const std::string& what) : InputError(file, "", what) {}
};

enum class OpenMode {
  ReadWrite,          // creates the file if it is missing (its directory must exist)
  ReadWriteExisting,  // the file must exist
  ReadOnly,           // never writes; the file must exist and have the current schema
};

struct OpenOptions {
  OpenMode mode = OpenMode::ReadWrite;
  int busy_timeout_ms = 10000;
  // synchronous=FULL: each commit is on disk before it returns, surviving power loss. The default
  // (NORMAL, in WAL mode) survives a killed process -- every commit is in the WAL file -- which is
  // what a run killed mid-way needs, without an fsync per commit.
  bool durable = false;
  // The schema's migrations; tests substitute a longer list to exercise upgrades.
  std::span<const Migration> migrations = builtinMigrations();
};

class RunStore {
 public:
  explicit RunStore(std::string path, OpenOptions options = {});
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  const std::string& path() const { return path_; }
  bool readOnly() const { return readOnly_; }
  int schemaVersion();
  // Runs this open found running with their writer gone, and marked interrupted.
  const std::vector<int64_t>& interruptedOnOpen() const { return interruptedOnOpen_; }

  // --- Graphs and device sets: stored once, keyed by the SHA-256 of their canonical JSON.
  int64_t putGraph(const DataflowGraph& g);
  int64_t putDeviceSet(const DeviceSet& d);
  GraphInfo graphInfo(int64_t id);
  GraphInfo deviceSetInfo(int64_t id);
  DataflowGraph loadGraph(int64_t id);
  DeviceSet loadDeviceSet(int64_t id);

  // --- Runs.
  int64_t beginRun(const RunSpec& spec);  // status running, started now, by this process
  // Finished, failed or cancelled; records the time. Throws std::invalid_argument otherwise.
  void finishRun(int64_t run, RunStatus status, std::string_view error = {});
  void setFigure(int64_t run, std::string_view name, double value);
  void setFigures(int64_t run, const std::map<std::string, double>& figures);
  void savePlacement(int64_t run, const PlacementRecord& p);   // replaces the run's placement
  int64_t saveTimeline(int64_t run, const TimelineRecord& t);  // replaces a timeline of that label
  // A checkpoint file stays where it is: its absolute path, size and SHA-256 are recorded.
  int64_t addCheckpointFile(int64_t run, const std::string& file, std::optional<int64_t> step = {},
                            std::string_view label = {});
  int64_t addCheckpointBlob(int64_t run, std::string_view bytes, std::optional<int64_t> step = {},
                            std::string_view label = {});
  std::string checkpointBlob(int64_t checkpoint);
  void addTag(int64_t run, std::string_view tag);
  bool removeTag(int64_t run, std::string_view tag);  // false if the run did not have it
  int64_t addNote(std::optional<int64_t> run, std::string_view text);  // no run: session note
  // Deletes a run and everything recorded under it; graphs and device sets no run uses any more
  // go too.
  void deleteRun(int64_t run);
  bool hasRun(int64_t run);
  void requireRun(int64_t run);  // throws InputError(file, "run N", "no such run")

  // --- Session-wide settings (the studio's layout and such).
  std::optional<std::string> setting(std::string_view key);
  void setSetting(std::string_view key, std::string_view value);

  // Marks every run whose writer is gone as interrupted and returns their ids (done on open;
  // the studio may call it again, e.g. when a worker process ends).
  std::vector<int64_t> markInterruptedRuns();

  // For queries, MetricWriter and tests: the connection, to be used while holding lock().
  std::unique_lock<std::recursive_mutex> lock() const { return std::unique_lock(mu_); }
  Db& db() { return db_; }
  // SQLite's quick_check of the file, in one line: empty when the pages are sound. It reads
  // every page (30 ms for a 48 MB session): for opens and for explaining a missing record.
  std::string damage() const;
  // What a damaged session's refusal ends with: "`sqlite3 PATH .recover` copies what can still
  // be read".
  std::string recoverHint() const;
  // "no such run", or DamagedSession when the file is damaged (the run may be on a bad page).
  [[noreturn]] void throwNoSuchRun(int64_t run) const;

 private:
  void probe(const FileHeader& h, int supported);
  void createSession();
  void openReadWrite(bool exists);
  void openReadOnly();
  void refuseIfDamaged();  // PRAGMA quick_check; an InputError naming the file
  void requireWritable() const;

  std::string path_;
  OpenOptions options_;
  Db db_;
  bool readOnly_ = false;
  std::vector<int64_t> interruptedOnOpen_;
  mutable std::recursive_mutex mu_;
};

}  // namespace doppler::sessions

#include "schema.h"

#include <cstdio>
#include <string>

#include "core/common/input_error.h"

namespace doppler::sessions {
namespace {

// Version 1. Notes on the choices:
// - runs.id is AUTOINCREMENT so a deleted run's id is never reused: "run 12" in meeting notes
//   keeps meaning one run.
// - Kinds and statuses are checked in C++, not with CHECK constraints: SQLite cannot alter a
//   CHECK without rebuilding the table, and new kinds (fleet, ...) will come.
// - Metric points are keyed (series, step) in a WITHOUT ROWID table: a series is stored
//   contiguously in step order, so loading one for a chart is a single range scan.
// - Graphs and device sets are stored once, keyed by the SHA-256 of their canonical JSON.
// - Node ids are stored beside node indices so that queries and exports read without parsing
//   the graph's JSON.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE graphs (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  node_count INTEGER NOT NULL,
  edge_count INTEGER NOT NULL,
  json TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE device_sets (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  device_count INTEGER NOT NULL,
  json TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  method TEXT NOT NULL DEFAULT '',
  params TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
  seed INTEGER,
  status TEXT NOT NULL DEFAULT 'running',
  error TEXT,
  graph_id INTEGER REFERENCES graphs(id),
  device_set_id INTEGER REFERENCES device_sets(id),
  parent_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at TEXT,
  writer_host TEXT,
  writer_boot TEXT,
  writer_pid INTEGER,
  writer_start INTEGER
);
CREATE INDEX runs_by_kind ON runs(kind, method);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_graph ON runs(graph_id);
CREATE INDEX runs_by_device_set ON runs(device_set_id);
CREATE INDEX runs_by_parent ON runs(parent_id);

CREATE TABLE run_figures (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL,
  PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

CREATE TABLE series (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  UNIQUE (run_id, name)
);
CREATE TABLE metrics (
  series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  value REAL,
  PRIMARY KEY (series_id, step)
) WITHOUT ROWID;

CREATE TABLE placements (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  node INTEGER NOT NULL,
  node_id TEXT NOT NULL,
  device INTEGER NOT NULL,
  PRIMARY KEY (run_id, node)
) WITHOUT ROWID;
CREATE TABLE decisions (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  node INTEGER NOT NULL,
  device INTEGER NOT NULL,
  sel_prob REAL,
  plc_prob REAL,
  sel_candidates TEXT CHECK (sel_candidates IS NULL OR json_valid(sel_candidates)),
  plc_probs TEXT CHECK (plc_probs IS NULL OR json_valid(plc_probs)),
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;

CREATE TABLE timelines (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  makespan_us REAL,
  UNIQUE (run_id, label)
);
CREATE TABLE node_spans (
  timeline_id INTEGER NOT NULL REFERENCES timelines(id) ON DELETE CASCADE,
  node INTEGER NOT NULL,
  node_id TEXT NOT NULL,
  device INTEGER NOT NULL,
  start_us REAL NOT NULL,
  finish_us REAL NOT NULL,
  PRIMARY KEY (timeline_id, node)
) WITHOUT ROWID;
CREATE TABLE transfer_spans (
  timeline_id INTEGER NOT NULL REFERENCES timelines(id) ON DELETE CASCADE,
  edge INTEGER NOT NULL,
  src_node INTEGER NOT NULL,
  dst_node INTEGER NOT NULL,
  src_id TEXT NOT NULL,
  dst_id TEXT NOT NULL,
  src_device INTEGER NOT NULL,
  dst_device INTEGER NOT NULL,
  start_us REAL NOT NULL,
  finish_us REAL NOT NULL,
  PRIMARY KEY (timeline_id, edge)
) WITHOUT ROWID;

CREATE TABLE checkpoints (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER,
  label TEXT NOT NULL DEFAULT '',
  path TEXT,
  sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  data BLOB,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK (path IS NOT NULL OR data IS NOT NULL)
);
CREATE INDEX checkpoints_by_run ON checkpoints(run_id, step);

CREATE TABLE tags (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags(tag);

-- run_id NULL: a note on the whole session.
CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX notes_by_run ON notes(run_id);

-- Session-wide state the studio keeps with the file (dock layout, last selection...).
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
)sql";

constexpr Migration kMigrations[] = {
    {1, "graphs, device sets, runs, metrics, placements, timelines, checkpoints, tags, notes",
     kSchemaV1},
};

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

[[noreturn]] void refuseNewer(const std::string& file, int64_t version, int supported) {
  throw InputError(file, "",
                   "written by a newer Doppler Studio (schema version " + std::to_string(version) +
                       ", this build reads up to " + std::to_string(supported) +
                       "); refused and left unchanged, open it with a newer doppler");
}

[[noreturn]] void refuseForeign(const std::string& file, const std::string& why) {
  throw InputError(file, "",
                   "not a Doppler Studio session (" + why + "); refused and left unchanged");
}

}  // namespace

std::span<const Migration> builtinMigrations() {
  return kMigrations;
}

int latestVersion(std::span<const Migration> migrations) {
  return migrations.empty() ? 0 : migrations.back().version;
}

void refuseFromHeader(const FileHeader& h, const std::string& file, int supported) {
  if (!h.exists || h.size == 0) return;
  if (h.application_id != 0 && h.application_id != kApplicationId)
    refuseForeign(file, "an SQLite database of another application, application_id " +
                            hex32(h.application_id));
  if (h.application_id == kApplicationId && h.user_version > static_cast<uint32_t>(supported))
    refuseNewer(file, h.user_version, supported);
}

void checkOwnership(const std::string& file, uint32_t appId, int64_t version, int64_t objects,
                    int supported) {
  if (appId != 0 && appId != kApplicationId)
    refuseForeign(file,
                  "an SQLite database of another application, application_id " + hex32(appId));
  if (appId == 0 && (objects > 0 || version != 0))
    refuseForeign(file, "an SQLite database with tables of its own");
  if (version > supported) refuseNewer(file, version, supported);
}

void migrate(Db& db, std::span<const Migration> migrations) {
  const int latest = latestVersion(migrations);
  // The usual case, an up-to-date session, is settled without taking the write lock.
  if (static_cast<uint32_t>(db.queryInt("PRAGMA application_id")) == kApplicationId &&
      db.queryInt("PRAGMA user_version") == latest)
    return;
  Transaction tx(db);
  const auto appId = static_cast<uint32_t>(db.queryInt("PRAGMA application_id"));
  const int64_t version = db.queryInt("PRAGMA user_version");
  // Unmarked and empty: brand new. Unmarked with tables: some other program's database.
  checkOwnership(db.file(), appId, version, db.queryInt("SELECT count(*) FROM sqlite_schema"),
                 latest);
  if (appId == kApplicationId && version == latest) return;  // another process just did it
  for (const Migration& m : migrations) {
    if (m.version <= version) continue;
    db.exec(m.sql,
            "migrating to schema version " + std::to_string(m.version) + " (" + m.what + ")");
  }
  db.exec("PRAGMA application_id = " + std::to_string(static_cast<int32_t>(kApplicationId)));
  db.exec("PRAGMA user_version = " + std::to_string(latest));
  tx.commit();
}

void checkVersionReadOnly(Db& db, std::span<const Migration> migrations) {
  const int latest = latestVersion(migrations);
  const auto appId = static_cast<uint32_t>(db.queryInt("PRAGMA application_id"));
  const int64_t version = db.queryInt("PRAGMA user_version");
  if (appId != kApplicationId) {
    if (appId != 0) refuseForeign(db.file(), "application_id " + hex32(appId));
    const int64_t objects = db.queryInt("SELECT count(*) FROM sqlite_schema");
    if (objects > 0) refuseForeign(db.file(), "an SQLite database with tables of its own");
    throw InputError(db.file(), "", "an empty database, not yet a session");
  }
  if (version > latest) refuseNewer(db.file(), version, latest);
  if (version < latest)
    throw InputError(db.file(), "",
                     "schema version " + std::to_string(version) + " needs upgrading to " +
                         std::to_string(latest) + ", which a read-only open cannot do");
}

}  // namespace doppler::sessions

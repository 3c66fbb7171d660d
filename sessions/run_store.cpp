#include "run_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "core/common/input_error.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/graph/graph_io.h"
#include "core/graph/json_access.h"
#include "sessions/content_hash.h"
#include "sessions/file_check.h"
#include "sessions/file_publish.h"
#include "sessions/writer_identity.h"

namespace doppler::sessions {
namespace fs = std::filesystem;

namespace {

std::string parentOf(const std::string& path) {
  fs::path p = fs::path(path).parent_path();
  return p.empty() ? std::string(".") : p.string();
}

// Checks that a new database file can be created at `path`, with the OS's reason if not.
void checkCreatable(const std::string& path) {
  const std::string dir = parentOf(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOTDIR)
      throw InputError(path, "", "cannot create: a parent of it is not a directory");
    throw InputError(path, "", "cannot create: directory " + dir + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    throw InputError(path, "", "cannot create: " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(
        path, "",
        "cannot create: directory " + dir + " is not writable (" + std::strerror(errno) + ")");
}

// Reads the first row of every table: a damaged root or first page, the usual result of a
// partial copy or a disk error, is found at open rather than at some later query. (Damage deep
// inside a big table still surfaces when that part is read, as an InputError saying "damaged";
// a full PRAGMA quick_check would cost a read of the whole file on every open.)
void probeTables(Db& db) {
  std::vector<std::string> tables;
  {
    Stmt s = db.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    while (s.step()) tables.push_back(s.text(0));
  }
  for (const std::string& t : tables) {
    std::string quoted = "\"";
    for (char c : t) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    Stmt q = db.prepare("SELECT * FROM " + quoted + "\" LIMIT 1");
    q.step();
  }
}

// A file: URI for `path` (percent-escaping what URIs reserve), for the immutable probe.
std::string fileUri(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::strchr("/-._~", c)) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

}  // namespace

RunStore::RunStore(std::string path, OpenOptions options)
    : path_(std::move(path)), options_(options) {
  if (path_.empty()) throw InputError("", "--db", "the session path is empty");
  const int supported = latestVersion(options_.migrations);
  // Everything that must be refused without touching the file is decided here, from its bytes.
  const FileHeader h = inspectDatabaseFile(path_);
  refuseFromHeader(h, path_, supported);
  if (!h.exists && options_.mode != OpenMode::ReadWrite)
    throw InputError(path_, "", "no such file");
  if (options_.mode == OpenMode::ReadOnly && h.size == 0)
    throw InputError(path_, "", "an empty file, not a session");
  // SQLite's own view must agree before a connection that could write exists: a read-write
  // connection may checkpoint into the file when it closes, even after a refusal.
  if (h.size > 0 && !h.has_journal) probe(h, supported);
  if (options_.mode == OpenMode::ReadOnly) {
    openReadOnly();
    return;
  }
  openReadWrite(h.exists);
}

RunStore::~RunStore() = default;

void RunStore::probe(const FileHeader& h, int supported) {
  auto check = [&](Db& db) {
    db.queryInt("SELECT count(*) FROM sqlite_schema");  // NOTADB / CORRUPT surface here
    checkOwnership(path_, static_cast<uint32_t>(db.queryInt("PRAGMA application_id")),
                   db.queryInt("PRAGMA user_version"),
                   db.queryInt("SELECT count(*) FROM sqlite_schema"), supported);
    probeTables(db);
  };
  if (!h.has_wal) {
    // No WAL beside it: the file alone is the database. Read it as immutable, which takes no
    // locks and creates no -wal or -shm beside a file that may yet be refused.
    try {
      Db db(fileUri(path_) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path_);
      check(db);
      return;
    } catch (const InputError&) {
      // A writer may have started meanwhile (a WAL appeared): then judge by the live view.
      if (!inspectDatabaseFile(path_).has_wal) throw;
    }
  }
  Db db(path_, SQLITE_OPEN_READONLY);
  // Writers may be checkpointing or just starting; wait for them as the store's own connection
  // does (without it, one process in ten of eight started together failed here as "busy").
  sqlite3_busy_timeout(db.get(), options_.busy_timeout_ms);
  check(db);
}

void RunStore::openReadOnly() {
  readOnly_ = true;
  // A session in WAL mode needs its -shm file, which a reader creates beside it: in a directory
  // it cannot write to ("attempt to write a readonly database"), with no -wal to apply, the file
  // is read as it stands, taking no locks and creating nothing.
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  const bool dirWritable = ::access(dir.c_str(), W_OK) == 0;
  if (!dirWritable && !inspectDatabaseFile(path_).has_wal &&
      !std::filesystem::exists(path_ + "-shm", ec))
    db_ = Db(fileUri(path_) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path_);
  else
    db_ = Db(path_, SQLITE_OPEN_READONLY);
  sqlite3_busy_timeout(db_.get(), options_.busy_timeout_ms);
  db_.queryInt("SELECT count(*) FROM sqlite_schema");
  probeTables(db_);
  checkVersionReadOnly(db_, options_.migrations);
  db_.exec("PRAGMA query_only = ON");
}

namespace {

// Switches to write-ahead logging. On a file still in rollback mode the switch needs the file to
// itself, and SQLite answers SQLITE_BUSY at once, without its busy handler, when another
// connection is reading it then; so wait here, as the busy timeout would.
void useWal(Db& db, const std::string& file, int timeoutMs) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  std::string mode;
  for (;;) {
    try {
      mode = db.queryText("PRAGMA journal_mode = WAL");
      break;
    } catch (const InputError&) {
      if ((sqlite3_extended_errcode(db.get()) & 0xff) != SQLITE_BUSY ||
          std::chrono::steady_clock::now() >= until)
        throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (mode != "wal")
    throw InputError(file, "",
                     "cannot use write-ahead logging here (journal mode stays '" + mode +
                         "'); is it on a network file system?");
}

}  // namespace

void RunStore::createSession() {
  checkCreatable(path_);
  const std::string tmp = temporarySibling(path_);
  try {
    // Named after path_ in every error: the temporary name is ours, not the user's.
    Db db;
    try {
      db = Db(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path_);
    } catch (const InputError& e) {
      std::string why = e.problem();
      if (why.rfind("cannot open", 0) == 0) why = why.substr(std::string("cannot open").size());
      throw InputError(path_, "", "cannot create" + why);
    }
    useWal(db, path_, options_.busy_timeout_ms);
    db.exec("PRAGMA synchronous = FULL");  // the new file is complete on disk before it appears
    migrate(db, options_.migrations);
    db.close();  // checkpoints the WAL into the file and removes it
  } catch (...) {
    removeDatabaseFiles(tmp);
    throw;
  }
  // Another process that created the session first wins; this one then opens theirs.
  publishWithoutReplacing(tmp, path_);
}

void RunStore::openReadWrite(bool exists) {
  if (!exists) createSession();
  try {
    db_ = Db(path_, SQLITE_OPEN_READWRITE);
  } catch (const InputError&) {
    // Removed between its creation and this open: say so rather than SQLite's "cannot open".
    if (!exists && !fs::exists(path_) && !fs::is_symlink(path_))
      throw InputError(path_, "", "removed by another program while it was being created");
    throw;
  }
  try {
    // SQLite quietly falls back to read-only for a file it may not write; recording would then
    // fail on the first insert, so refuse now with the reason.
    if (sqlite3_db_readonly(db_.get(), "main") == 1)
      throw InputError(path_, "", "cannot write: the file is read-only");
    sqlite3_busy_timeout(db_.get(), options_.busy_timeout_ms);
    // A damaged file is not written to: a new run recorded into it could land on a damaged page
    // or be lost with it. quick_check reads every page once (30 ms for a 48 MB session).
    if (exists) refuseIfDamaged();
    db_.exec("PRAGMA foreign_keys = ON");
    useWal(db_, path_, options_.busy_timeout_ms);
    db_.exec(options_.durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    migrate(db_, options_.migrations);
    interruptedOnOpen_ = markInterruptedRuns();
  } catch (...) {
    // Nothing is removed: the file is a session (made complete before it appeared at path_), and
    // other processes may be writing it.
    db_.close();
    throw;
  }
}

std::string RunStore::damage() const {
  const auto held = lock();
  std::string verdict;
  try {
    verdict = db_.queryText("PRAGMA quick_check(1)");
  } catch (const InputError& e) {
    verdict = e.problem();
  }
  if (verdict == "ok") return {};
  // One line: quick_check's report starts "*** in database main ***" and spans lines.
  const std::string header = "*** in database main ***";
  if (verdict.rfind(header, 0) == 0) verdict.erase(0, header.size());
  std::replace(verdict.begin(), verdict.end(), '\n', ' ');
  verdict.erase(0, verdict.find_first_not_of(' '));
  return verdict.empty() ? "quick_check failed" : verdict;
}

void RunStore::refuseIfDamaged() {
  const std::string verdict = damage();
  if (verdict.empty()) return;
  throw DamagedSession(path_,
                       "the session is damaged (" + verdict +
                           "), so nothing is written to it: record into another session with --db, "
                           "and copy what can still be read with `doppler runs export` or "
                           "`sqlite3 " +
                           path_ + " .recover`");
}

int RunStore::schemaVersion() {
  auto l = lock();
  return static_cast<int>(db_.queryInt("PRAGMA user_version"));
}

void RunStore::requireWritable() const {
  if (readOnly_) throw InputError(path_, "", "opened read-only: cannot change it");
}

std::vector<int64_t> RunStore::markInterruptedRuns() {
  auto l = lock();
  std::vector<int64_t> gone;
  if (readOnly_) return gone;
  {
    Stmt s = db_.prepare(
        "SELECT id, writer_host, writer_boot, writer_pid, writer_start FROM runs WHERE status = "
        "'running'");
    while (s.step()) {
      WriterIdentity w{s.text(1), s.text(2), s.int64(3), s.int64(4)};
      if (writerLiveness(w) == Liveness::Gone) gone.push_back(s.int64(0));
    }
  }
  if (gone.empty()) return gone;
  Transaction tx(db_);
  Stmt u = db_.prepare(
      "UPDATE runs SET status = 'interrupted', error = 'its writer (pid ' || coalesce(writer_pid, "
      "'?') || ' on ' || "
      "coalesce(writer_host, '?') || ') ended without finishing it; found ' || " +
      std::string(kNow) + " WHERE id = ? AND status = 'running'");
  for (int64_t id : gone) {
    u.bind(1, id);
    u.run();
    u.reset();
  }
  tx.commit();
  return gone;
}

// --- Graphs and device sets ---------------------------------------------------------------------

namespace {

int64_t putContent(Db& db, const char* table, const char* countColumn, const std::string& name,
                   int count, int edges, const std::string& json) {
  const std::string hash = sha256Hex(json);
  Transaction tx(db);
  const bool isGraph = std::string(table) == "graphs";
  Stmt ins = db.prepare(std::string("INSERT INTO ") + table + " (hash, name, " + countColumn +
                        (isGraph ? ", edge_count" : "") + ", json) VALUES (?, ?, ?, " +
                        (isGraph ? "?, ?" : "?") + ") ON CONFLICT (hash) DO NOTHING");
  ins.bind(1, hash).bind(2, name).bind(3, count);
  if (isGraph)
    ins.bind(4, edges).bind(5, json);
  else
    ins.bind(4, json);
  ins.run();
  Stmt sel = db.prepare(std::string("SELECT id FROM ") + table + " WHERE hash = ?");
  sel.bind(1, hash);
  sel.step();
  const int64_t id = sel.int64(0);
  sel.reset();
  tx.commit();
  return id;
}

}  // namespace

int64_t RunStore::putGraph(const DataflowGraph& g) {
  auto l = lock();
  requireWritable();
  // Compact canonical JSON: the same graph always hashes the same.
  return putContent(db_, "graphs", "node_count", g.name, g.nodeCount(), g.edgeCount(),
                    writeGraphJson(g, -1));
}

int64_t RunStore::putDeviceSet(const DeviceSet& d) {
  auto l = lock();
  requireWritable();
  return putContent(db_, "device_sets", "device_count", d.name, d.size(), 0,
                    writeDeviceSetJson(d, -1));
}

GraphInfo RunStore::graphInfo(int64_t id) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT id, hash, name, node_count, edge_count FROM graphs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) throw InputError(path_, "graph " + std::to_string(id), "no such graph");
  return {s.int64(0), s.text(1), s.text(2), s.integer(3), s.integer(4)};
}

GraphInfo RunStore::deviceSetInfo(int64_t id) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT id, hash, name, device_count FROM device_sets WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) throw InputError(path_, "device set " + std::to_string(id), "no such device set");
  return {s.int64(0), s.text(1), s.text(2), s.integer(3), 0};
}

DataflowGraph RunStore::loadGraph(int64_t id) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT json FROM graphs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) throw InputError(path_, "graph " + std::to_string(id), "no such graph");
  return parseGraphJson(s.text(0), path_ + ": graph " + std::to_string(id));
}

DeviceSet RunStore::loadDeviceSet(int64_t id) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT json FROM device_sets WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) throw InputError(path_, "device set " + std::to_string(id), "no such device set");
  return parseDeviceSet(s.text(0), path_ + ": device set " + std::to_string(id));
}

// --- Runs ---------------------------------------------------------------------------------------

bool RunStore::hasRun(int64_t run) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT 1 FROM runs WHERE id = ?");
  s.bind(1, run);
  return s.step();
}

void RunStore::requireRun(int64_t run) {
  if (!hasRun(run)) throwNoSuchRun(run);
}

void RunStore::throwNoSuchRun(int64_t run) const {
  // A run on a damaged page is not "no such run": the reader should know the file is at fault.
  if (const std::string verdict = damage(); !verdict.empty())
    throw DamagedSession(path_, "run " + std::to_string(run) +
                                    " cannot be read: the session is damaged (" + verdict + "); " +
                                    recoverHint());
  throw InputError(path_, "run " + std::to_string(run), "no such run");
}

std::string RunStore::recoverHint() const {
  return "`sqlite3 " + path_ + " .recover` copies what can still be read";
}

int64_t RunStore::beginRun(const RunSpec& spec) {
  checkRunKind(spec.kind);
  if (!spec.params.is_object() && !spec.params.is_null())
    throw std::invalid_argument("RunSpec::params must be a JSON object");
  auto l = lock();
  requireWritable();
  const WriterIdentity w = currentWriter();
  Stmt s = db_.prepare(
      "INSERT INTO runs (kind, method, params, seed, graph_id, device_set_id, parent_id, "
      "writer_host, writer_boot, writer_pid, writer_start) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, spec.kind)
      .bind(2, spec.method)
      .bind(3, spec.params.is_null() ? std::string("{}") : json_access::dump(spec.params));
  // Seeds are unsigned 64-bit; SQLite integers are signed: stored bit for bit, read back the same.
  s.bind(4, spec.seed ? std::optional<int64_t>(static_cast<int64_t>(*spec.seed)) : std::nullopt);
  s.bind(5, spec.graph_id).bind(6, spec.device_set_id).bind(7, spec.parent_id);
  s.bind(8, w.host).bind(9, w.boot_id).bind(10, w.pid).bind(11, w.start_ticks);
  s.run();
  return db_.lastInsertId();
}

void RunStore::finishRun(int64_t run, RunStatus status, std::string_view error) {
  if (status == RunStatus::Running || status == RunStatus::Interrupted)
    throw std::invalid_argument("finishRun: a run ends finished, failed or cancelled");
  auto l = lock();
  requireWritable();
  requireRun(run);
  Stmt s = db_.prepare(std::string("UPDATE runs SET status = ?, error = ?, finished_at = ") + kNow +
                       " WHERE id = ?");
  s.bind(1, toString(status));
  if (error.empty())
    s.bindNull(2);
  else
    s.bind(2, error);
  s.bind(3, run);
  s.run();
}

void RunStore::setFigure(int64_t run, std::string_view name, double value) {
  setFigures(run, {{std::string(name), value}});
}

void RunStore::setFigures(int64_t run, const std::map<std::string, double>& figures) {
  auto l = lock();
  requireWritable();
  requireRun(run);
  Transaction tx(db_);
  Stmt s = db_.prepare("INSERT OR REPLACE INTO run_figures (run_id, name, value) VALUES (?, ?, ?)");
  for (const auto& [name, value] : figures) {
    s.bind(1, run).bind(2, name).bind(3, value);  // NaN binds as NULL and reads back as NaN
    s.run();
    s.reset();
  }
  tx.commit();
}

void RunStore::savePlacement(int64_t run, const PlacementRecord& p) {
  auto l = lock();
  requireWritable();
  requireRun(run);
  Transaction tx(db_);
  {
    Stmt del = db_.prepare("DELETE FROM placements WHERE run_id = ?");
    del.bind(1, run).run();
    Stmt delD = db_.prepare("DELETE FROM decisions WHERE run_id = ?");
    delD.bind(1, run).run();
  }
  Stmt s =
      db_.prepare("INSERT INTO placements (run_id, node, node_id, device) VALUES (?, ?, ?, ?)");
  for (const NodePlacement& n : p.nodes) {
    s.bind(1, run).bind(2, n.node).bind(3, n.node_id).bind(4, n.device);
    s.run();
    s.reset();
  }
  Stmt d = db_.prepare(
      "INSERT INTO decisions (run_id, step, node, device, sel_prob, plc_prob, sel_candidates, "
      "plc_probs) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (const Decision& x : p.decisions) {
    d.bind(1, run)
        .bind(2, x.step)
        .bind(3, x.node)
        .bind(4, x.device)
        .bind(5, x.sel_prob)
        .bind(6, x.plc_prob);
    if (x.sel_candidates.empty())
      d.bindNull(7);
    else
      d.bind(7, nlohmann::json(x.sel_candidates).dump());
    if (x.plc_probs.empty())
      d.bindNull(8);
    else
      d.bind(8, nlohmann::json(x.plc_probs).dump());
    d.run();
    d.reset();
  }
  tx.commit();
}

int64_t RunStore::saveTimeline(int64_t run, const TimelineRecord& t) {
  auto l = lock();
  requireWritable();
  requireRun(run);
  Transaction tx(db_);
  {
    Stmt del = db_.prepare("DELETE FROM timelines WHERE run_id = ? AND label = ?");
    del.bind(1, run).bind(2, t.label).run();
  }
  Stmt ins = db_.prepare("INSERT INTO timelines (run_id, label, makespan_us) VALUES (?, ?, ?)");
  ins.bind(1, run).bind(2, t.label).bind(3, t.makespan_us).run();
  const int64_t id = db_.lastInsertId();
  Stmt n = db_.prepare(
      "INSERT INTO node_spans (timeline_id, node, node_id, device, start_us, finish_us) VALUES (?, "
      "?, ?, "
      "?, ?, ?)");
  for (const NodeSpanRecord& s : t.nodes) {
    n.bind(1, id)
        .bind(2, s.node)
        .bind(3, s.node_id)
        .bind(4, s.device)
        .bind(5, s.start_us)
        .bind(6, s.finish_us);
    n.run();
    n.reset();
  }
  Stmt x = db_.prepare(
      "INSERT INTO transfer_spans (timeline_id, edge, src_node, dst_node, src_id, dst_id, "
      "src_device, "
      "dst_device, start_us, finish_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const TransferRecord& s : t.transfers) {
    x.bind(1, id)
        .bind(2, s.edge)
        .bind(3, s.src_node)
        .bind(4, s.dst_node)
        .bind(5, s.src_id)
        .bind(6, s.dst_id);
    x.bind(7, s.src_device).bind(8, s.dst_device).bind(9, s.start_us).bind(10, s.finish_us);
    x.run();
    x.reset();
  }
  tx.commit();
  return id;
}

int64_t RunStore::addCheckpointFile(int64_t run, const std::string& file,
                                    std::optional<int64_t> step, std::string_view label) {
  const FileDigest digest = sha256File(file);  // outside the lock: may read gigabytes
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  auto l = lock();
  requireWritable();
  requireRun(run);
  Stmt s = db_.prepare(
      "INSERT INTO checkpoints (run_id, step, label, path, sha256, bytes) VALUES (?,?,?,?,?,?)");
  s.bind(1, run).bind(2, step).bind(3, label).bind(4, ec ? file : abs.lexically_normal().string());
  s.bind(5, digest.sha256).bind(6, digest.bytes).run();
  return db_.lastInsertId();
}

int64_t RunStore::addCheckpointBlob(int64_t run, std::string_view bytes,
                                    std::optional<int64_t> step, std::string_view label) {
  const std::string hash = sha256Hex(bytes);
  auto l = lock();
  requireWritable();
  requireRun(run);
  Stmt s = db_.prepare(
      "INSERT INTO checkpoints (run_id, step, label, sha256, bytes, data) VALUES (?,?,?,?,?,?)");
  s.bind(1, run).bind(2, step).bind(3, label).bind(4, hash).bind(
      5, static_cast<int64_t>(bytes.size()));
  s.bindBlob(6, bytes.data(), bytes.size()).run();
  return db_.lastInsertId();
}

std::string RunStore::checkpointBlob(int64_t checkpoint) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT data FROM checkpoints WHERE id = ?");
  s.bind(1, checkpoint);
  if (!s.step())
    throw InputError(path_, "checkpoint " + std::to_string(checkpoint), "no such checkpoint");
  if (s.isNull(0))
    throw InputError(path_, "checkpoint " + std::to_string(checkpoint),
                     "stored as a file path, not a blob");
  return s.blob(0);
}

void RunStore::addTag(int64_t run, std::string_view tag) {
  if (tag.empty()) throw InputError(path_, "tag", "a tag cannot be empty");
  auto l = lock();
  requireWritable();
  requireRun(run);
  Stmt s = db_.prepare("INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?, ?)");
  s.bind(1, run).bind(2, tag).run();
}

bool RunStore::removeTag(int64_t run, std::string_view tag) {
  auto l = lock();
  requireWritable();
  requireRun(run);
  Stmt s = db_.prepare("DELETE FROM tags WHERE run_id = ? AND tag = ?");
  s.bind(1, run).bind(2, tag).run();
  return db_.changes() > 0;
}

int64_t RunStore::addNote(std::optional<int64_t> run, std::string_view text) {
  auto l = lock();
  requireWritable();
  if (run) requireRun(*run);
  Stmt s = db_.prepare("INSERT INTO notes (run_id, text) VALUES (?, ?)");
  s.bind(1, run).bind(2, text).run();
  return db_.lastInsertId();
}

void RunStore::deleteRun(int64_t run) {
  auto l = lock();
  requireWritable();
  requireRun(run);
  Transaction tx(db_);
  Stmt s = db_.prepare("DELETE FROM runs WHERE id = ?");
  s.bind(1, run).run();
  db_.exec(
      "DELETE FROM graphs WHERE id NOT IN (SELECT graph_id FROM runs WHERE graph_id IS NOT NULL);"
      "DELETE FROM device_sets WHERE id NOT IN "
      "(SELECT device_set_id FROM runs WHERE device_set_id IS NOT NULL);");
  tx.commit();
}

std::optional<std::string> RunStore::setting(std::string_view key) {
  auto l = lock();
  Stmt s = db_.prepare("SELECT value FROM settings WHERE key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

void RunStore::setSetting(std::string_view key, std::string_view value) {
  auto l = lock();
  requireWritable();
  Stmt s = db_.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)");
  s.bind(1, key).bind(2, value).run();
}

}  // namespace doppler::sessions

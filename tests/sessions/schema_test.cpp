// Schema version and migrations: a new store is stamped, an older one is migrated forward in one
// transaction, a newer or foreign one is refused and left byte for byte as it was.
#include "sessions/schema.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/common/input_error.h"
#include "sessions/content_hash.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using testing::StoreTest;

class Schema : public StoreTest {};

// The built-in migrations plus a version 2 that a future release might ship.
std::vector<Migration> withVersion2(const char* sql) {
  std::vector<Migration> m(builtinMigrations().begin(), builtinMigrations().end());
  m.push_back({2, "test: a column and a table", sql});
  return m;
}

void expectRefused(const std::string& file, const OpenOptions& o, const std::string& fragment) {
  try {
    RunStore s(file, o);
    FAIL() << "opened " << file;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST_F(Schema, NewStoreIsStampedWalWithForeignKeys) {
  RunStore s(path("new.sqlite"));
  EXPECT_EQ(s.schemaVersion(), latestVersion(builtinMigrations()));
  auto l = s.lock();
  EXPECT_EQ(static_cast<uint32_t>(s.db().queryInt("PRAGMA application_id")), kApplicationId);
  EXPECT_EQ(s.db().queryText("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(s.db().queryInt("PRAGMA foreign_keys"), 1);
  for (const char* t : {"graphs", "device_sets", "runs", "run_figures", "series", "metrics",
                        "placements", "decisions", "timelines", "node_spans", "transfer_spans",
                        "checkpoints", "tags", "notes", "settings"}) {
    Stmt q = s.db().prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    q.bind(1, t);
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.int64(0), 1) << t;
  }
}

TEST_F(Schema, EmptyFileBecomesASession) {
  spit(path("empty.sqlite"), "");
  RunStore s(path("empty.sqlite"));
  EXPECT_EQ(s.schemaVersion(), 1);
}

TEST_F(Schema, OlderStoreIsMigratedForwardKeepingItsRuns) {
  const std::string f = path("v1.sqlite");
  int64_t run = 0;
  {
    RunStore s(f);
    run = s.beginRun({"place", "heft", {{"k", 1}}, 7, {}, {}, {}});
    s.finishRun(run, RunStatus::Finished);
  }
  const auto v2 =
      withVersion2("ALTER TABLE runs ADD COLUMN host_note TEXT; CREATE TABLE extra (x INTEGER);");
  OpenOptions o;
  o.migrations = v2;
  {
    RunStore s(f, o);
    EXPECT_EQ(s.schemaVersion(), 2);
    RunInfo r = getRun(s, run);
    EXPECT_EQ(r.method, "heft");
    EXPECT_EQ(r.params["k"], 1);
    EXPECT_EQ(r.status, RunStatus::Finished);
    auto l = s.lock();
    s.db().exec("UPDATE runs SET host_note = 'migrated'; INSERT INTO extra VALUES (1);");
  }
  // Opening again at version 2 changes nothing.
  RunStore again(f, o);
  EXPECT_EQ(again.schemaVersion(), 2);
}

TEST_F(Schema, FailedMigrationLeavesTheOldVersion) {
  const std::string f = path("v1.sqlite");
  { RunStore s(f); }
  const auto bad = withVersion2("CREATE TABLE extra (x); CREATE TABLE runs (x);");  // the 2nd fails
  OpenOptions o;
  o.migrations = bad;
  EXPECT_THROW(RunStore(f, o), InputError);
  RunStore s(f);
  EXPECT_EQ(s.schemaVersion(), 1);
  auto l = s.lock();
  EXPECT_EQ(s.db().queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'extra'"), 0);
}

TEST_F(Schema, NewerStoreIsRefusedAndLeftUnchanged) {
  const std::string f = path("v2.sqlite");
  OpenOptions v2;
  const auto list = withVersion2("CREATE TABLE extra (x);");
  v2.migrations = list;
  { RunStore s(f, v2); }
  const std::string before = sha256Hex(slurp(f));
  for (OpenMode mode : {OpenMode::ReadWrite, OpenMode::ReadWriteExisting, OpenMode::ReadOnly}) {
    OpenOptions o;
    o.mode = mode;
    expectRefused(f, o, "newer Doppler Studio (schema version 2, this build reads up to 1)");
  }
  EXPECT_EQ(sha256Hex(slurp(f)), before);
  EXPECT_FALSE(fs::exists(f + "-wal"));
  EXPECT_FALSE(fs::exists(f + "-shm"));
}

// The version bump sits in the WAL, not yet in the main file's header: SQLite's own view (the
// read-only probe) must catch it, and the refused open must not checkpoint into the file.
TEST_F(Schema, NewerVersionOnlyInTheWalIsRefusedToo) {
  const std::string f = path("wal.sqlite");
  RunStore writer(f);  // stays open: its WAL is not checkpointed away
  {
    Db raw(f, SQLITE_OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 9");
  }
  ASSERT_GT(fs::file_size(f + "-wal"), 0u);
  const std::string before = sha256Hex(slurp(f));
  expectRefused(f, OpenOptions{}, "schema version 9");
  EXPECT_EQ(sha256Hex(slurp(f)), before);
}

TEST_F(Schema, ForeignDatabasesAreRefused) {
  const std::string other = path("other.sqlite");
  {
    Db raw(other, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    raw.exec("CREATE TABLE customers (name TEXT); INSERT INTO customers VALUES ('x');");
  }
  const std::string before = sha256Hex(slurp(other));
  expectRefused(other, OpenOptions{}, "not a Doppler Studio session");
  EXPECT_EQ(sha256Hex(slurp(other)), before);

  const std::string marked = path("marked.sqlite");
  {
    Db raw(marked, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    raw.exec("PRAGMA application_id = 1234; CREATE TABLE t (x);");
  }
  const std::string before2 = sha256Hex(slurp(marked));
  expectRefused(marked, OpenOptions{}, "application_id 0x000004d2");
  EXPECT_EQ(sha256Hex(slurp(marked)), before2);
}

TEST_F(Schema, ReadOnlyOpenNeverWrites) {
  const std::string f = path("ro.sqlite");
  int64_t run = 0;
  {
    RunStore s(f);
    run = s.beginRun({"eval", "policy", {}, {}, {}, {}, {}});
  }
  const std::string before = sha256Hex(slurp(f));
  OpenOptions o;
  o.mode = OpenMode::ReadOnly;
  RunStore ro(f, o);
  EXPECT_TRUE(ro.readOnly());
  EXPECT_EQ(getRun(ro, run).method, "policy");
  EXPECT_THROW(ro.addTag(run, "x"), InputError);
  EXPECT_THROW(ro.beginRun({"eval", "p", {}, {}, {}, {}, {}}), InputError);
  EXPECT_EQ(sha256Hex(slurp(f)), before);

  // A read-only open cannot migrate, so an older file is refused with the reason.
  OpenOptions newer;
  newer.mode = OpenMode::ReadOnly;
  const auto list = withVersion2("CREATE TABLE extra (x);");
  newer.migrations = list;
  expectRefused(f, newer, "needs upgrading");
}

}  // namespace
}  // namespace doppler::sessions

// Files that are not sessions -- garbage, text, truncated or damaged SQLite -- and places where a
// session cannot be created are refused with a clear error naming the file, and an existing file
// is left byte for byte as it was, with nothing created beside it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>

#include "core/common/input_error.h"
#include "sessions/content_hash.h"
#include "sessions/metric_writer.h"
#include "sessions/queries.h"
#include "tests/sessions/test_util.h"
#include "tests/support/data.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using testing::StoreTest;

class Refusal : public StoreTest {
 protected:
  // Opens `file` in every mode; each must throw an InputError naming it and containing
  // `fragment`; the file's bytes must not change and no -wal, -shm or -journal may appear.
  void expectRefusedUntouched(const std::string& file, const std::string& fragment) {
    const bool existed = fs::exists(file);
    const std::string before = existed ? sha256Hex(slurp(file)) : "";
    for (OpenMode mode : {OpenMode::ReadWrite, OpenMode::ReadWriteExisting, OpenMode::ReadOnly}) {
      OpenOptions o;
      o.mode = mode;
      try {
        RunStore s(file, o);
        ADD_FAILURE() << "opened " << file;
      } catch (const InputError& e) {
        EXPECT_EQ(e.file(), file);
        if (mode == OpenMode::ReadWrite || existed) {
          EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
      }
      EXPECT_EQ(fs::exists(file), existed);
      if (existed) {
        EXPECT_EQ(sha256Hex(slurp(file)), before) << "the file was changed";
      }
      for (const char* side : {"-wal", "-shm", "-journal"})
        EXPECT_FALSE(fs::exists(file + side)) << side;
    }
  }

  // A real session of several pages, closed cleanly.
  std::string session(const std::string& name) {
    const std::string f = path(name);
    RunStore s(f);
    RunSpec sp;
    sp.kind = "train";
    const int64_t run = s.beginRun(sp);
    MetricWriter w(s, run);
    for (int i = 0; i < 20000; ++i) w.append("loss", i, i);
    return f;
  }
};

TEST_F(Refusal, GarbageAndTextFiles) {
  std::mt19937 rng(7);
  std::string garbage(10000, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  spit(path("garbage.sqlite"), garbage);
  expectRefusedUntouched(path("garbage.sqlite"), "not an SQLite database");
  spit(path("notes.txt"), "meeting notes: try HEFT on the llama layer\n");
  expectRefusedUntouched(path("notes.txt"), "not an SQLite database");
  spit(path("tiny"), "SQL");  // shorter than the magic, and a prefix of it
  expectRefusedUntouched(path("tiny"), "truncated");
}

TEST_F(Refusal, TruncatedDatabases) {
  const std::string whole = slurp(session("whole.sqlite"));
  ASSERT_GT(whole.size(), 16384u);
  for (std::size_t cut : {std::size_t(50), std::size_t(100), std::size_t(4096), whole.size() / 2,
                          whole.size() - 4096, whole.size() - 1}) {
    const std::string f = path("cut" + std::to_string(cut) + ".sqlite");
    spit(f, whole.substr(0, cut));
    expectRefusedUntouched(f, "damaged SQLite database");
  }
}

TEST_F(Refusal, DamagedPagesAreReportedNotOverwritten) {
  std::string bytes = slurp(session("whole.sqlite"));
  // Every page after the first (which holds the header and the schema) becomes noise.
  std::mt19937 rng(3);
  for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
  const std::string f = path("damaged.sqlite");
  spit(f, bytes);
  expectRefusedUntouched(f, "damaged");
}

// Damage in the middle of a session (the schema and the runs table intact, a metric page
// noise) is what a read can miss and a write can make worse: opened for writing the session is
// refused, naming the damage and how to recover; read-only it still lists its runs.
TEST_F(Refusal, AMiddlePageDamagedRefusesWritingButStillReads) {
  const std::string whole = path("whole.sqlite");
  session("whole.sqlite");
  std::string bytes = slurp(whole);
  ASSERT_GT(bytes.size(), 8u * 4096);
  std::mt19937 rng(11);
  const std::size_t page = bytes.size() / 4096 / 2 * 4096;  // a metric page, mid-file
  for (std::size_t i = page; i < page + 4096; ++i) bytes[i] = static_cast<char>(rng());
  const std::string f = path("middle.sqlite");
  spit(f, bytes);
  const std::string before = sha256Hex(slurp(f));
  for (OpenMode mode : {OpenMode::ReadWrite, OpenMode::ReadWriteExisting}) {
    OpenOptions o;
    o.mode = mode;
    try {
      RunStore s(f, o);
      ADD_FAILURE() << "opened a damaged session for writing";
    } catch (const DamagedSession& e) {
      EXPECT_EQ(e.file(), f);
      const std::string what = e.what();
      EXPECT_NE(what.find("damaged"), std::string::npos) << what;
      EXPECT_NE(what.find(".recover"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  OpenOptions ro;
  ro.mode = OpenMode::ReadOnly;
  {
    RunStore reader(f, ro);
    EXPECT_EQ(listRuns(reader).size(), 1u);
    // A run that cannot be found in a damaged file may be on a bad page: the reader is told the
    // file is damaged, not that there is no such run.
    try {
      getRun(reader, 2);
      ADD_FAILURE() << "found run 2";
    } catch (const DamagedSession& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("run 2 cannot be read"), std::string::npos) << what;
      EXPECT_NE(what.find(".recover"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(sha256Hex(slurp(f)), before);
}

// Found by fuzz_session: a runs table whose page is damaged lists 511 phantom runs numbered 0
// when read read-only (no quick_check there), and reading each of them took a minute. The list
// is refused as damaged, naming the file and how to recover.
TEST_F(Refusal, APhantomRunListIsRefusedAsDamaged) {
  const std::string f = path("phantom.sqlite");
  spit(f, slurp(doppler::testing::testData("sessions/phantom_runs.sqlite")));
  RunStore reader(f, {.mode = OpenMode::ReadOnly});
  try {
    listRuns(reader);
    ADD_FAILURE() << "listed a damaged run list";
  } catch (const DamagedSession& e) {
    EXPECT_EQ(e.file(), f);
    EXPECT_NE(std::string(e.what()).find(".recover"), std::string::npos) << e.what();
  }
}

// Found by fuzz_session: a decision record holding a number where a list belongs ended the
// program (an uncaught JSON type_error). It is refused as damaged, naming the run and the step.
TEST_F(Refusal, ADamagedDecisionRecordIsRefusedNamingItsRun) {
  const std::string f = path("decisions.sqlite");
  spit(f, slurp(doppler::testing::testData("sessions/bad_decision_record.sqlite")));
  RunStore reader(f, {.mode = OpenMode::ReadOnly});
  int refused = 0;
  for (const RunInfo& r : listRuns(reader)) {
    try {
      loadPlacement(reader, r.id);
    } catch (const DamagedSession& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("run " + std::to_string(r.id) + ", decision"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(refused, 1);
}

TEST_F(Refusal, DirectoriesAndUncreatablePaths) {
  fs::create_directories(path("adir"));
  expectRefusedUntouched(path("adir"), "is a directory");

  spit(path("plain-file"), "x");
  try {
    RunStore s(path("plain-file") + "/runs.sqlite");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path("plain-file")), "x");

  try {
    RunStore s(path("no/such/dir/runs.sqlite"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path("no")));

  OpenOptions existing;
  existing.mode = OpenMode::ReadWriteExisting;
  EXPECT_THROW(RunStore(path("missing.sqlite"), existing), InputError);
  existing.mode = OpenMode::ReadOnly;
  EXPECT_THROW(RunStore(path("missing.sqlite"), existing), InputError);
  EXPECT_FALSE(fs::exists(path("missing.sqlite")));
}

// A read-only location. The tests run as root, for whom permission bits do not stop a write, so
// the location used is one no one can create files in: /proc (a kernel file system).
TEST_F(Refusal, ReadOnlyLocation) {
  if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc here";
  try {
    RunStore s("/proc/doppler-test-runs.sqlite");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/proc/doppler-test-runs.sqlite");
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
  }
}

// Where the tests run as an ordinary user: a read-only file is refused for writing but opens
// read-only, and a read-only directory cannot hold a new session.
TEST_F(Refusal, PermissionBits) {
  if (::geteuid() == 0) GTEST_SKIP() << "permission bits do not bind root (see ReadOnlyLocation)";
  const std::string f = session("ro.sqlite");
  ::chmod(f.c_str(), 0444);
  const std::string before = sha256Hex(slurp(f));
  try {
    RunStore s(f);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  OpenOptions ro;
  ro.mode = OpenMode::ReadOnly;
  RunStore reader(f, ro);
  EXPECT_EQ(listRuns(reader).size(), 1u);
  EXPECT_EQ(sha256Hex(slurp(f)), before);
  fs::create_directories(path("locked"));
  ::chmod(path("locked").c_str(), 0555);
  EXPECT_THROW(RunStore(path("locked/new.sqlite")), InputError);
  ::chmod(path("locked").c_str(), 0755);
  // A session in a directory the user cannot write to (no -shm can be made beside it) still
  // lists: it is read as it stands.
  fs::copy_file(f, path("locked/kept.sqlite"));
  ::chmod(path("locked/kept.sqlite").c_str(), 0444);
  ::chmod(path("locked").c_str(), 0555);
  {
    RunStore inLocked(path("locked/kept.sqlite"), ro);
    EXPECT_EQ(listRuns(inLocked).size(), 1u);
  }
  EXPECT_FALSE(fs::exists(path("locked/kept.sqlite-shm")));
  ::chmod(path("locked").c_str(), 0755);
}

}  // namespace
}  // namespace doppler::sessions

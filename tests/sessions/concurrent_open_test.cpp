// Many processes using one session at once, as `xargs -P8 doppler place ...` or a studio beside
// a training in the terminal do: every one of them opens the store and records its run, whether
// the file exists already or the first of them creates it. Before this test, about one process
// in ten failed with "the database is busy" at once (a probing connection had no busy timeout),
// and a creator that failed removed the file the others were writing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "core/common/input_error.h"
#include "sessions/file_publish.h"
#include "sessions/queries.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using testing::diamond;
using testing::StoreTest;

class ConcurrentOpen : public StoreTest {};

constexpr int kWriters = 8;

// The child: waits until the parent lets every child go at once (the pipe closes), then opens
// the store and records one finished run. Exit 0 only if all of it worked; the error on stderr.
[[noreturn]] void childRecords(const std::string& file, int gate) {
  char c;
  (void)::read(gate, &c, 1);  // returns 0 when the parent closes its end
  try {
    RunStore s(file);
    RunSpec sp;
    sp.kind = "place";
    sp.method = "concurrent-open-test";
    sp.graph_id = s.putGraph(diamond());
    const int64_t run = s.beginRun(sp);
    s.setFigure(run, "makespan_us", 1.0);
    s.finishRun(run, RunStatus::Finished);
    ::_exit(0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer %d: %s\n", static_cast<int>(::getpid()), e.what());
    ::_exit(3);
  }
}

// The reader: released with the writers, lists the runs read-only, over and over, until the
// parent closes `stop` (after every writer ended). Exit 0 only if every listing worked: a busy or
// locked database must never reach a reader as an error.
[[noreturn]] void childLists(const std::string& file, int gate, int stop) {
  char c;
  (void)::read(gate, &c, 1);
  int listings = 0;
  try {
    while (::read(stop, &c, 1) < 0) {  // non-blocking: -1 (EAGAIN) while the writers go on
      RunStore s(file, {.mode = OpenMode::ReadOnly});
      (void)listRuns(s);
      ++listings;
    }
    ::_exit(listings > 0 ? 0 : 4);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reader, listing %d: %s\n", listings, e.what());
    ::_exit(3);
  }
}

// Starts `writers` children released together (and a reader listing all along, with `reader`);
// returns how many writers exited 0. *readerOk says whether the reader did.
int recordAtOnce(const std::string& file, int writers = kWriters, bool* readerOk = nullptr) {
  int gate[2], stop[2];
  EXPECT_EQ(::pipe(gate), 0);
  EXPECT_EQ(::pipe(stop), 0);
  pid_t reader = -1;
  if (readerOk) {
    reader = ::fork();
    if (reader == 0) {
      ::close(gate[1]);
      ::close(stop[1]);
      ::fcntl(stop[0], F_SETFL, O_NONBLOCK);
      childLists(file, gate[0], stop[0]);
    }
  }
  ::close(stop[0]);
  std::vector<pid_t> children;
  for (int i = 0; i < writers; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(gate[1]);
      childRecords(file, gate[0]);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);  // go
  int succeeded = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++succeeded;
  }
  ::close(stop[1]);  // the reader's last listing sees every run
  if (readerOk) {
    int status = 0;
    ::waitpid(reader, &status, 0);
    *readerOk = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return succeeded;
}

int64_t finishedRuns(const std::string& file) {
  RunStore s(file, {.mode = OpenMode::ReadOnly});
  int64_t n = 0;
  for (const RunInfo& r : listRuns(s))
    if (r.status == RunStatus::Finished) ++n;
  return n;
}

TEST_F(ConcurrentOpen, EveryWriterCreatingANewSessionTogetherRecordsItsRun) {
  for (int round = 0; round < 12; ++round) {
    const std::string file = path("new-" + std::to_string(round) + ".sqlite");
    EXPECT_EQ(recordAtOnce(file), kWriters) << "round " << round;
    EXPECT_EQ(finishedRuns(file), kWriters) << "round " << round;
  }
}

// The load of a team's sweep: 64 processes recording into one session at once while a reader
// (the studio's run list) lists all along. Nothing is lost, nobody sees "database is locked".
TEST_F(ConcurrentOpen, SixtyFourWritersAndAReaderListingAllAlong) {
  const std::string file = path("s.sqlite");
  { RunStore create(file); }
  for (int round = 0; round < 3; ++round) {
    bool readerOk = false;
    EXPECT_EQ(recordAtOnce(file, 64, &readerOk), 64) << "round " << round;
    EXPECT_TRUE(readerOk) << "round " << round;
  }
  EXPECT_EQ(finishedRuns(file), 3 * 64);
}

TEST_F(ConcurrentOpen, EveryWriterOpeningAnExistingSessionTogetherRecordsItsRun) {
  const std::string file = path("s.sqlite");
  { RunStore create(file); }
  for (int round = 0; round < 12; ++round)
    EXPECT_EQ(recordAtOnce(file), kWriters) << "round " << round;
  EXPECT_EQ(finishedRuns(file), 12 * kWriters);
}

// An empty file is a new session to SQLite, made in place (it is already there): the writers
// race to switch it to write-ahead logging, which SQLite refuses at once while another reads it.
TEST_F(ConcurrentOpen, EveryWriterStartingOnAnEmptyFileTogetherRecordsItsRun) {
  for (int round = 0; round < 12; ++round) {
    const std::string file = path("empty-" + std::to_string(round) + ".sqlite");
    { std::ofstream touch(file); }
    EXPECT_EQ(recordAtOnce(file), kWriters) << "round " << round;
    EXPECT_EQ(finishedRuns(file), kWriters) << "round " << round;
  }
}

// A session is created under another name and appears at its path only complete: a creation
// that fails leaves nothing behind, neither at the path nor beside it.
TEST_F(ConcurrentOpen, AFailedCreationLeavesNothingBehind) {
  const std::string file = path("s.sqlite");
  static const Migration broken[] = {{1, "a broken migration", "CREATE TABLE t (x); NOT SQL"}};
  OpenOptions o;
  o.migrations = broken;
  EXPECT_THROW(RunStore(file, o), InputError);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_TRUE(fs::is_empty(fs::path(file).parent_path()));
}

// The step that makes a new session appear: atomic, and never over a file already there.
TEST_F(ConcurrentOpen, PublishingNeverReplacesAFileAlreadyThere) {
  const std::string to = path("s.sqlite");
  const std::string first = temporarySibling(to), second = temporarySibling(to);
  EXPECT_NE(first, second);
  EXPECT_EQ(fs::path(first).parent_path(), fs::path(to).parent_path());
  { std::ofstream(first) << "first"; }
  { std::ofstream(second) << "second"; }
  EXPECT_TRUE(publishWithoutReplacing(first, to));
  EXPECT_FALSE(publishWithoutReplacing(second, to));
  std::ifstream in(to);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "first");
  EXPECT_FALSE(fs::exists(first));
  EXPECT_FALSE(fs::exists(second));  // the loser's file is removed
  EXPECT_THROW(publishWithoutReplacing(path("missing"), path("t.sqlite")), InputError);
}

}  // namespace
}  // namespace doppler::sessions

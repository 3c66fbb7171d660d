// Many processes using one session at once, as `xargs -P8 doppler place ...` or a studio beside
// a training in the terminal do: every one of them opens the store and records its run, whether
// the file exists already or the first of them creates it. Before this test, about one process
// in ten failed with "the database is busy" at once (a probing connection had no busy timeout),
// and a creator that failed removed the file the others were writing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "core/graph/input_error.h"
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

// Starts kWriters children released together; returns how many exited 0.
int recordAtOnce(const std::string& file) {
  int gate[2];
  EXPECT_EQ(::pipe(gate), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kWriters; ++i) {
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

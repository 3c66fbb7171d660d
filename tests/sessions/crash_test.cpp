// Never lose a run: a child process records a run the way a trainer does and is killed with
// SIGKILL mid-way; the parent reopens the store and checks every row the child had committed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

#include "sessions/from_core.h"
#include "sessions/metric_writer.h"
#include "sessions/queries.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using namespace std::chrono_literals;
using testing::diamond;
using testing::StoreTest;

class Crash : public StoreTest {};

constexpr int64_t kBatch = 1000;

double lossAt(int64_t step) {
  return 1.0 + static_cast<double>(step) * 0.25;
}  // exact in binary

struct Message {
  int64_t run;
  int64_t committed;
};

// The child: opens the store, begins a run, writes its placement and a figure, then appends
// metric points forever in batches of kBatch, telling the parent after each commit.
[[noreturn]] void childWrites(const std::string& file, int out) {
  try {
    RunStore s(file);
    RunSpec sp;
    sp.kind = "train";
    sp.method = "crash-test";
    sp.graph_id = s.putGraph(diamond());
    const int64_t run = s.beginRun(sp);
    s.savePlacement(run, placementRecord(diamond(), {0, 1, 0, 1}, {0, 2, 1, 3}));
    s.setFigure(run, "episodes_planned", 1e9);
    MetricWriterOptions o;
    o.batch_rows = kBatch;
    o.batch_interval = 0ms;  // whole batches only, so the parent can check batch atomicity
    o.background_flush = false;
    o.on_commit = [&](int64_t rows) {
      const Message m{run, rows};
      if (::write(out, &m, sizeof m) != sizeof m) ::_exit(4);
    };
    MetricWriter w(s, run, o);
    const int loss = w.series("loss");
    for (int64_t step = 0;; ++step) w.append(loss, step, lossAt(step));
  } catch (...) {
    ::_exit(3);
  }
}

TEST_F(Crash, SigkillKeepsEveryCommittedBatchAndMarksTheRunInterrupted) {
  const std::string file = path("crash.sqlite");
  // Three children in turn, killed after different numbers of commits; the store accumulates.
  for (int64_t killAfter : {1, 5, 12}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(fds[0]);
      childWrites(file, fds[1]);
    }
    ::close(fds[1]);
    Message m{0, 0};
    int64_t commits = 0;
    while (commits < killAfter) {
      ASSERT_EQ(::read(fds[0], &m, sizeof m), static_cast<ssize_t>(sizeof m))
          << "the child died early";
      ++commits;
    }
    ASSERT_EQ(m.committed, killAfter * kBatch);
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    ::close(fds[0]);

    // Reopen: the run is marked interrupted, and every committed row is there, in whole batches.
    RunStore s(file);
    EXPECT_EQ(s.interruptedOnOpen(), std::vector<int64_t>{m.run});
    const RunInfo r = getRun(s, m.run);
    EXPECT_EQ(r.status, RunStatus::Interrupted);
    EXPECT_NE(r.error.find("pid " + std::to_string(child)), std::string::npos) << r.error;
    EXPECT_EQ(r.figures.at("episodes_planned"), 1e9);
    EXPECT_EQ(r.graph_name, "diamond");
    const PlacementRecord p = loadPlacement(s, m.run);
    ASSERT_EQ(p.nodes.size(), 4u);
    EXPECT_EQ(p.nodes[3].device, 1);
    EXPECT_EQ(p.decisions.size(), 4u);

    const Series loss = loadSeries(s, m.run, "loss");
    const auto n = static_cast<int64_t>(loss.steps.size());
    EXPECT_GE(n, killAfter * kBatch);  // it may have committed more before the signal landed
    EXPECT_EQ(n % kBatch, 0) << "a batch was committed in part";
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(loss.steps[i], i);
      ASSERT_EQ(loss.values[i], lossAt(i));
    }
    auto l = s.lock();
    EXPECT_EQ(s.db().queryText("PRAGMA integrity_check"), "ok");
  }
  RunStore s(file);
  EXPECT_TRUE(s.interruptedOnOpen().empty());  // marked once, not again
  RunFilter f;
  f.status = "interrupted";
  EXPECT_EQ(listRuns(s, f).size(), 3u);
}

// A run whose writer is alive (this very process) is left running.
TEST_F(Crash, ALiveWritersRunStaysRunning) {
  const std::string file = path("live.sqlite");
  RunStore writer(file);
  RunSpec sp;
  sp.kind = "train";
  const int64_t run = writer.beginRun(sp);
  RunStore other(file);
  EXPECT_TRUE(other.interruptedOnOpen().empty());
  EXPECT_EQ(getRun(other, run).status, RunStatus::Running);
}

// A run copied from another machine (another host wrote it) cannot be progressing here.
TEST_F(Crash, ARunningRunFromAnotherHostIsInterrupted) {
  const std::string file = path("handed-over.sqlite");
  int64_t run = 0;
  {
    RunStore s(file);
    RunSpec sp;
    sp.kind = "exec";
    run = s.beginRun(sp);
    auto l = s.lock();
    s.db().exec("UPDATE runs SET writer_host = 'a-colleagues-workstation'");
  }
  RunStore s(file);
  EXPECT_EQ(getRun(s, run).status, RunStatus::Interrupted);
}

}  // namespace
}  // namespace doppler::sessions

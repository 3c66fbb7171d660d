// Batched metric appends: the count and time triggers, flush on destruction, and a reader on its
// own connection seeing each committed batch while the writer is still open.
#include "sessions/metric_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "sessions/queries.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using namespace std::chrono_literals;
using testing::StoreTest;

class Metrics : public StoreTest {
 protected:
  int64_t newRun(RunStore& s) {
    RunSpec sp;
    sp.kind = "train";
    sp.method = "test";
    return s.beginRun(sp);
  }
  // Rows another connection sees: the studio's view.
  static int64_t visibleRows(RunStore& reader) {
    auto l = reader.lock();
    return reader.db().queryInt("SELECT count(*) FROM metrics");
  }
  static bool eventually(const std::function<bool()>& f) {
    for (auto end = std::chrono::steady_clock::now() + 5s;
         std::chrono::steady_clock::now() < end;) {
      if (f()) return true;
      std::this_thread::sleep_for(5ms);
    }
    return f();
  }
};

TEST_F(Metrics, CommitsEveryBatchRows) {
  RunStore s(path("m.sqlite")), reader(path("m.sqlite"));
  const int64_t run = newRun(s);
  MetricWriterOptions o;
  o.batch_rows = 100;
  o.batch_interval = 0ms;
  MetricWriter w(s, run, o);
  const int loss = w.series("loss");
  for (int i = 0; i < 99; ++i) w.append(loss, i, i * 0.5);
  EXPECT_EQ(visibleRows(reader), 0);
  EXPECT_EQ(w.bufferedRows(), 99u);
  w.append(loss, 99, 49.5);
  EXPECT_EQ(visibleRows(reader), 100);
  EXPECT_EQ(w.committedRows(), 100);
  EXPECT_EQ(w.bufferedRows(), 0u);
  for (int i = 100; i < 250; ++i) w.append("loss", i, i * 0.5);
  EXPECT_EQ(visibleRows(reader), 200);
  w.flush();
  EXPECT_EQ(visibleRows(reader), 250);
  const Series back = loadSeries(reader, run, "loss");
  ASSERT_EQ(back.steps.size(), 250u);
  for (int i = 0; i < 250; ++i) {
    EXPECT_EQ(back.steps[i], i);
    EXPECT_EQ(back.values[i], i * 0.5);
  }
}

TEST_F(Metrics, BackgroundFlusherCommitsAgedPoints) {
  RunStore s(path("m.sqlite")), reader(path("m.sqlite"));
  const int64_t run = newRun(s);
  MetricWriterOptions o;
  o.batch_rows = 1000000;
  o.batch_interval = 50ms;
  MetricWriter w(s, run, o);
  for (int i = 0; i < 5; ++i) w.append("reward", i, i);
  // No further append comes: the flusher thread commits them once they are 50 ms old.
  EXPECT_TRUE(eventually([&] { return visibleRows(reader) == 5; }));
  EXPECT_EQ(w.bufferedRows(), 0u);
  EXPECT_EQ(w.committedRows(), 5);
}

TEST_F(Metrics, AppendNoticesAgedPointsWithoutTheFlusher) {
  RunStore s(path("m.sqlite")), reader(path("m.sqlite"));
  const int64_t run = newRun(s);
  MetricWriterOptions o;
  o.batch_rows = 1000000;
  o.batch_interval = 30ms;
  o.background_flush = false;
  MetricWriter w(s, run, o);
  w.append("x", 0, 1);
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(visibleRows(reader), 0);  // nothing commits by itself without the flusher
  w.append("x", 1, 2);                // ...but the next append sees the first point's age
  EXPECT_EQ(visibleRows(reader), 2);
}

TEST_F(Metrics, DestructionFlushes) {
  RunStore s(path("m.sqlite")), reader(path("m.sqlite"));
  const int64_t run = newRun(s);
  {
    MetricWriterOptions o;
    o.batch_interval = 0ms;
    MetricWriter w(s, run, o);
    for (int i = 0; i < 10; ++i) w.append("a", i, i);
    EXPECT_EQ(visibleRows(reader), 0);
  }
  EXPECT_EQ(visibleRows(reader), 10);
}

// The writer pauses after each commit until the reader (its own connection, as the studio would
// have) has looked: the reader must see exactly the committed batches, while the writer is open.
TEST_F(Metrics, ReaderSeesEachBatchWhileTheWriterIsOpen) {
  RunStore s(path("m.sqlite")), reader(path("m.sqlite"));
  const int64_t run = newRun(s);
  std::mutex mu;
  std::condition_variable cv;
  int64_t committed = 0, seen = -1;
  std::thread writer([&] {
    MetricWriterOptions o;
    o.batch_rows = 1000;
    o.batch_interval = 0ms;
    o.on_commit = [&](int64_t rows) {
      std::unique_lock l(mu);
      committed = rows;
      cv.notify_all();
      cv.wait(l, [&] { return seen == rows; });
    };
    MetricWriter w(s, run, o);
    const int h = w.series("loss");
    for (int i = 0; i < 3000; ++i) w.append(h, i, 1.0 / (i + 1));
  });
  for (int64_t expect : {1000, 2000, 3000}) {
    std::unique_lock l(mu);
    cv.wait(l, [&] { return committed == expect; });
    EXPECT_EQ(visibleRows(reader), expect);
    EXPECT_EQ(loadSeries(reader, run, "loss").steps.back(), expect - 1);
    seen = expect;
    cv.notify_all();
  }
  writer.join();
}

// WAL: a reader is never blocked by a writer's open transaction; it sees the last commit.
TEST_F(Metrics, ReadersAreNotBlockedByAnOpenWriteTransaction) {
  RunStore s(path("m.sqlite")), reader(path("m.sqlite"));
  const int64_t run = newRun(s);
  {
    MetricWriter w(s, run);
    w.append("a", 0, 1);
  }
  auto l = s.lock();
  Transaction tx(s.db());
  s.db().exec("INSERT INTO metrics SELECT id, 1, 2.0 FROM series");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(visibleRows(reader), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  tx.commit();
  EXPECT_EQ(visibleRows(reader), 2);
}

}  // namespace
}  // namespace doppler::sessions

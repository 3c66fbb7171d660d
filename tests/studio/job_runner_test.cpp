// The studio's job runner with real threads: results arrive on the GUI thread, a newer job in a
// slot supersedes the old one (its token is set, its result and progress dropped), cancel keeps
// the result, slots run independently, failures arrive as messages, and waitIdle waits for all.
#include "app/studio/jobs/job_runner.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <memory>
#include <stdexcept>

using namespace doppler;
using namespace doppler::studio;

namespace {

// Spins until the token is cancelled (or a generous bound passes), as a long search would.
int waitForCancel(const JobContext& ctx) {
  for (int i = 0; i < 20000 && !ctx.cancelled(); ++i) QThread::msleep(1);
  return ctx.cancelled() ? -1 : 0;
}

}  // namespace

class JobRunnerTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void resultArrivesOnTheGuiThread() {
    JobRunner runner;
    QThread* worker = nullptr;
    QThread* delivered = nullptr;
    int result = 0;
    runner.start<int>(
        JobSlot::Placement,
        [&](const JobContext&) {
          worker = QThread::currentThread();
          return 42;
        },
        [&](int r) {
          result = r;
          delivered = QThread::currentThread();
        });
    QVERIFY(runner.busy(JobSlot::Placement));
    QVERIFY(runner.waitIdle(10000));
    QCOMPARE(result, 42);
    QVERIFY(worker != QThread::currentThread());
    QCOMPARE(delivered, QThread::currentThread());
    QVERIFY(!runner.busy(JobSlot::Placement));
  }

  // A superseded result's last reference is dropped on the release slot's thread, not the GUI's,
  // and a reference still held elsewhere keeps the object alive.
  void releaseLaterFreesOffTheGuiThread() {
    JobRunner runner;
    std::atomic<QThread*> freedOn{nullptr};
    auto object = std::shared_ptr<const int>(new int(7), [&freedOn](const int* p) {
      freedOn = QThread::currentThread();
      delete p;
    });
    std::shared_ptr<const int> kept = object;
    runner.releaseLater(std::move(object));
    runner.releaseLater(nullptr);  // nothing to free: ignored
    // The release slot's queue runs in order: once a later closure has run, ours has too.
    std::atomic<bool> later{false};
    runner.releaseLater(std::shared_ptr<const int>(new int(0), [&later](const int* p) {
      later = true;
      delete p;
    }));
    QTRY_VERIFY_WITH_TIMEOUT(later.load(), 10000);
    QCOMPARE(freedOn.load(), nullptr);  // `kept` still holds it
    QCOMPARE(*kept, 7);
    runner.releaseLater(std::move(kept));
    QTRY_VERIFY_WITH_TIMEOUT(freedOn.load() != nullptr, 10000);
    QVERIFY(freedOn.load() != QThread::currentThread());
  }

  void aNewJobSupersedesTheOld() {
    JobRunner runner;
    std::atomic<bool> firstSawCancel{false};
    QList<int> results;
    int progressShown = 0;
    runner.start<int>(
        JobSlot::Search,
        [&](const JobContext& ctx) {
          // The GUI thread handles this post only in waitIdle, after the second start below.
          ctx.post([&] { ++progressShown; });
          const int r = waitForCancel(ctx);
          firstSawCancel = ctx.cancelled();
          ctx.post([&] { ++progressShown; });
          return r;
        },
        [&](int r) { results << r; });
    QThread::msleep(20);
    const int second = runner.start<int>(
        JobSlot::Search, [](const JobContext&) { return 7; }, [&](int r) { results << r; });
    QVERIFY(runner.waitIdle(20000));
    QVERIFY(firstSawCancel);
    QCOMPARE(results, QList<int>{7});  // the first job's result was dropped
    QCOMPARE(progressShown, 0);        // and so was its progress
    QCOMPARE(runner.currentId(JobSlot::Search), second);
  }

  void cancelKeepsTheResult() {
    JobRunner runner;
    int result = 0;
    runner.start<int>(JobSlot::Search, waitForCancel, [&](int r) { result = r; });
    QThread::msleep(20);
    runner.cancel(JobSlot::Search);
    QVERIFY(runner.waitIdle(20000));
    QCOMPARE(result, -1);  // the job saw the cancel and its (best so far) result was shown
  }

  void abandonDropsTheResult() {
    JobRunner runner;
    bool delivered = false;
    QSignalSpy busy(&runner, &JobRunner::busyChanged);
    runner.start<int>(JobSlot::Layout, waitForCancel, [&](int) { delivered = true; });
    runner.abandon(JobSlot::Layout);
    QVERIFY(!runner.busy(JobSlot::Layout));
    QVERIFY(runner.waitIdle(20000));
    QTest::qWait(100);  // the abandoned job finishes on its thread; nothing may arrive
    QVERIFY(!delivered);
    QCOMPARE(busy.count(), 2);  // busy, then idle
  }

  void slotsRunSideBySide() {
    JobRunner runner;
    // Each job waits for the other to have started: one thread for both slots would let only
    // one of them see the other (and wait out the bound).
    std::atomic<bool> layoutStarted{false}, searchStarted{false};
    auto meet = [](std::atomic<bool>& mine, const std::atomic<bool>& other) {
      mine = true;
      for (int i = 0; i < 10000 && !other; ++i) QThread::msleep(1);
      return other ? 1 : 0;
    };
    int done = 0;
    runner.start<int>(
        JobSlot::Layout, [&](const JobContext&) { return meet(layoutStarted, searchStarted); },
        [&](int r) { done += r; });
    runner.start<int>(
        JobSlot::Search, [&](const JobContext&) { return meet(searchStarted, layoutStarted); },
        [&](int r) { done += r; });
    QVERIFY(runner.waitIdle(30000));
    QCOMPARE(done, 2);
  }

  void failuresArriveAsMessages() {
    JobRunner runner;
    QString error;
    bool delivered = false;
    runner.start<int>(
        JobSlot::Placement,
        [](const JobContext&) -> int { throw std::runtime_error("g.json: nodes[3]: bad"); },
        [&](int) { delivered = true; }, [&](const QString& e) { error = e; });
    QVERIFY(runner.waitIdle(10000));
    QVERIFY(!delivered);
    QCOMPARE(error, QStringLiteral("g.json: nodes[3]: bad"));
    QVERIFY(runner.idle());
  }

  void destroyingTheRunnerStopsItsJobs() {
    std::atomic<bool> sawCancel{false};
    {
      JobRunner runner;
      runner.start<int>(JobSlot::Training,
                        [&](const JobContext& ctx) {
                          const int r = waitForCancel(ctx);
                          sawCancel = ctx.cancelled();
                          return r;
                        },
                        {});
      QThread::msleep(20);
    }  // the destructor cancels and joins: no wait of 20 s
    QVERIFY(sawCancel);
  }
};

QTEST_GUILESS_MAIN(JobRunnerTest)
#include "job_runner_test.moc"

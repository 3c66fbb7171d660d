#pragma once
// The studio's one way to run background work (after KDAB Hotspot's job tracker). Each kind of
// work has a slot with its own worker thread; starting a job in a slot supersedes the slot's
// previous job: its cancel token is set and its result, should it still arrive, is dropped.
// Results come back queued on the GUI thread as plain values. `cancel` asks the current job to
// stop but keeps its result (a search returns its best so far); `abandon` also drops it.
//
// The layout slot is the only thread that ever calls Graphviz (it is not thread-safe).
// Tests, grabs and scripts wait on one thing: `waitIdle`.
#include <QObject>
#include <QString>
#include <array>
#include <atomic>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "core/common/cancel_token.h"

class QThread;

namespace doppler::studio {

// Import: reading a model file that takes seconds (ONNX), off the GUI thread.
// Preview: quick figures shown before a run is started (stage III's expected improvement).
// References: the heuristics a training run's charts are measured against.
// Release: where superseded results are freed (releaseLater), never a job of its own.
enum class JobSlot {
  Layout,
  Placement,
  Search,
  Training,
  Execution,
  Fleet,
  Stepper,
  Import,
  Preview,
  References,
  Release
};
inline constexpr int kJobSlotCount = 11;
const char* jobSlotName(JobSlot slot);

class JobRunner;

// Runs closures on the thread it lives on, in the order they were posted. The closures cross
// threads in a queue under a lock of ours, and Qt is asked only to call runOne() by name: a
// closure handed to QMetaObject::invokeMethod is copied into Qt's event under Qt's own lock,
// which ThreadSanitizer cannot see in a Qt not built with it, so every job read as a race.
class JobInbox : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  ~JobInbox() override;
  void post(std::function<void()> fn);

 private Q_SLOTS:
  void runOne();

 private:
  std::mutex mutex_;
  std::deque<std::function<void()>> pending_;
};

// What a running job sees: its id, its cancel token, and a way to send progress to the GUI.
class JobContext {
 public:
  JobContext(JobRunner* runner, JobSlot slot, int id, CancelToken cancel)
      : runner_(runner), slot_(slot), id_(id), cancel_(std::move(cancel)) {}
  int id() const { return id_; }
  const CancelToken& cancel() const { return cancel_; }
  bool cancelled() const { return cancel_.cancelled(); }
  // Runs `fn` on the GUI thread, unless by then a newer job has replaced this one.
  void post(std::function<void()> fn) const;

 private:
  JobRunner* runner_;
  JobSlot slot_;
  int id_;
  CancelToken cancel_;
};

class JobRunner : public QObject {
  Q_OBJECT
 public:
  explicit JobRunner(QObject* parent = nullptr);
  ~JobRunner() override;  // cancels every job and joins the threads

  // Runs `work` on the slot's thread and hands its result to `done` on the GUI thread; an
  // exception's message goes to `failed` instead. Returns the job id.
  template <typename R>
  int start(JobSlot slot, std::function<R(const JobContext&)> work, std::function<void(R)> done,
            std::function<void(const QString&)> failed = {}) {
    auto result = std::make_shared<R>();
    return launch(
        slot, [work = std::move(work), result](const JobContext& ctx) { *result = work(ctx); },
        [done = std::move(done), result] {
          if (done) done(std::move(*result));
        },
        std::move(failed));
  }

  // Drops `object` on the release slot's thread: the last reference to a superseded snapshot of
  // a million-node graph took the GUI thread a third of a second to free. Call it once the
  // views hold the new one; a reference kept elsewhere simply frees it later, wherever it goes.
  void releaseLater(std::shared_ptr<const void> object);

  void cancel(JobSlot slot);   // the job stops early; its result still arrives
  void abandon(JobSlot slot);  // the job stops early; its result is dropped
  bool busy(JobSlot slot) const;
  bool idle() const;
  int currentId(JobSlot slot) const;
  // Processes events until no slot is busy (results delivered) or the timeout passes.
  bool waitIdle(int timeout_ms = 120000);

 Q_SIGNALS:
  void busyChanged(doppler::studio::JobSlot slot, bool busy);

 private:
  friend class JobContext;
  int launch(JobSlot slot, std::function<void(const JobContext&)> work,
             std::function<void()> deliver, std::function<void(const QString&)> failed);
  // Queued onto the GUI thread; runs `fn` only while job `id` is the slot's current one.
  void postIfCurrent(JobSlot slot, int id, std::function<void()> fn, bool finishes);

  struct Slot {
    QThread* thread = nullptr;
    JobInbox* context = nullptr;  // lives on `thread`; the slot's jobs run through it
    std::atomic<int> current{0};  // read by the slot's thread to skip superseded jobs
    bool busy = false;
    CancelToken token;
  };
  Slot& slot(JobSlot s) { return slots_[static_cast<size_t>(s)]; }
  const Slot& slot(JobSlot s) const { return slots_[static_cast<size_t>(s)]; }
  void setBusy(JobSlot s, bool busy);
  JobInbox* inbox(JobSlot s);  // the slot's, its thread started on first use

  std::array<Slot, kJobSlotCount> slots_;
  JobInbox* gui_;  // results and progress, run on the GUI thread
  int nextId_ = 1;
};

}  // namespace doppler::studio

Q_DECLARE_METATYPE(doppler::studio::JobSlot)

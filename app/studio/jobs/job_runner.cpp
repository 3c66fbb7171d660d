#include "app/studio/jobs/job_runner.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QThread>
#include <QTimer>

namespace doppler::studio {

const char* jobSlotName(JobSlot slot) {
  switch (slot) {
    case JobSlot::Layout:
      return "layout";
    case JobSlot::Placement:
      return "placement";
    case JobSlot::Search:
      return "search";
    case JobSlot::Training:
      return "training";
    case JobSlot::Execution:
      return "execution";
    case JobSlot::Fleet:
      return "fleet";
    case JobSlot::Stepper:
      return "stepper";
    case JobSlot::Import:
      return "import";
    case JobSlot::Preview:
      return "preview";
    case JobSlot::References:
      return "references";
    case JobSlot::Release:
      return "release";
  }
  return "?";
}

void JobInbox::post(std::function<void()> fn) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(std::move(fn));
  }
  QMetaObject::invokeMethod(this, "runOne", Qt::QueuedConnection);
}

JobInbox::~JobInbox() {
  // The lock orders this after the inbox thread's last use of the queue. Its thread was joined
  // (QThread::wait) inside Qt, where ThreadSanitizer cannot see the join.
  const std::lock_guard<std::mutex> lock(mutex_);
  pending_.clear();
}

void JobInbox::runOne() {
  std::function<void()> fn;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (pending_.empty()) return;
    fn = std::move(pending_.front());
    pending_.pop_front();
  }
  fn();
}

void JobContext::post(std::function<void()> fn) const {
  runner_->postIfCurrent(slot_, id_, std::move(fn), false);
}

JobRunner::JobRunner(QObject* parent) : QObject(parent), gui_(new JobInbox(this)) {
  qRegisterMetaType<doppler::studio::JobSlot>();
}

JobRunner::~JobRunner() {
  for (Slot& s : slots_) {
    s.token.cancel();
    s.current = 0;  // nothing queued to this object runs after this point
  }
  for (Slot& s : slots_) {
    if (!s.thread) continue;
    s.thread->quit();
    s.thread->wait();  // a Graphviz phase in progress finishes first: it cannot be interrupted
    delete s.context;
    delete s.thread;
  }
}

int JobRunner::launch(JobSlot which, std::function<void(const JobContext&)> work,
                      std::function<void()> deliver, std::function<void(const QString&)> failed) {
  Slot& s = slot(which);
  s.token.cancel();  // supersede whatever ran or waited in this slot
  s.token = CancelToken();
  const int id = nextId_++;
  s.current = id;
  setBusy(which, true);
  JobContext ctx(this, which, id, s.token);
  inbox(which)->post([this, which, ctx, work = std::move(work), deliver = std::move(deliver),
                      failed = std::move(failed)]() mutable {
    // A job superseded while it waited in the queue never starts.
    if (ctx.cancelled() && slot(which).current != ctx.id()) return;
    try {
      work(ctx);
      postIfCurrent(which, ctx.id(), std::move(deliver), true);
    } catch (const std::exception& e) {
      const QString message = QString::fromStdString(e.what());
      postIfCurrent(
          which, ctx.id(),
          [failed = std::move(failed), message] {
            if (failed) failed(message);
          },
          true);
    }
  });
  return id;
}

void JobRunner::postIfCurrent(JobSlot which, int id, std::function<void()> fn, bool finishes) {
  gui_->post([this, which, id, fn = std::move(fn), finishes] {
    if (slot(which).current != id) return;  // stale: a newer job replaced it
    if (finishes) setBusy(which, false);
    fn();
  });
}

void JobRunner::releaseLater(std::shared_ptr<const void> object) {
  if (!object) return;
  // The closure, and with it the reference, is destroyed on the slot's thread once it has run.
  inbox(JobSlot::Release)->post([object = std::move(object)]() mutable { object.reset(); });
}

JobInbox* JobRunner::inbox(JobSlot which) {
  Slot& s = slot(which);
  if (!s.thread) {  // a slot's thread starts with its first job
    s.thread = new QThread;
    s.thread->setObjectName(QString::fromLatin1(jobSlotName(which)));
    s.context = new JobInbox;
    s.context->moveToThread(s.thread);
    s.thread->start();
  }
  return s.context;
}

void JobRunner::cancel(JobSlot which) {
  slot(which).token.cancel();
}

void JobRunner::abandon(JobSlot which) {
  Slot& s = slot(which);
  s.token.cancel();
  s.current = 0;
  setBusy(which, false);
}

bool JobRunner::busy(JobSlot which) const {
  return slot(which).busy;
}

bool JobRunner::idle() const {
  for (const Slot& s : slots_)
    if (s.busy) return false;
  return true;
}

int JobRunner::currentId(JobSlot which) const {
  return slot(which).current;
}

void JobRunner::setBusy(JobSlot which, bool busy) {
  Slot& s = slot(which);
  if (s.busy == busy) return;
  s.busy = busy;
  Q_EMIT busyChanged(which, busy);
}

bool JobRunner::waitIdle(int timeout_ms) {
  QDeadlineTimer deadline(timeout_ms);
  while (!idle() && !deadline.hasExpired()) {
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    connect(this, &JobRunner::busyChanged, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    timer.start(static_cast<int>(std::max<qint64>(1, deadline.remainingTime())));
    loop.exec();
  }
  // Deliver what the last result queued (a layout it asked for, a repaint).
  QCoreApplication::processEvents();
  return idle();
}

}  // namespace doppler::studio

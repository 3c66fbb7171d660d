#include "app/studio/studio_document.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>

#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"

namespace doppler::studio {

StudioDocument::StudioDocument(QObject* parent) : QObject(parent), worker_(new PlacementWorker) {
  qRegisterMetaType<doppler::views::SnapshotPtr>("doppler::views::SnapshotPtr");
  thread_.setObjectName(QStringLiteral("placement"));
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(worker_, &PlacementWorker::finished, this, &StudioDocument::onWorkerFinished,
          Qt::QueuedConnection);
  connect(
      worker_, &PlacementWorker::progress, this,
      [this](int id, long done, long total, double best) {
        if (id == busyId_) Q_EMIT progress(done, total, best);
      },
      Qt::QueuedConnection);
  thread_.start();
}

StudioDocument::~StudioDocument() {
  if (cancel_) cancel_->store(true);  // no signals from here: the window may be half destroyed
  busyId_ = 0;
  thread_.quit();
  thread_.wait();
}

bool StudioDocument::openFile(const QString& path, QString* error) {
  try {
    const std::string text = readTextFile(path.toStdString(), 64u << 20);
    if (text.substr(0, 4096).find("device-set/1") != std::string::npos)
      return setDevicesSpec(path, error);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return openGraphFile(path, error);
}

bool StudioDocument::openGraphFile(const QString& path, QString* error) {
  try {
    auto graph = std::make_shared<const DataflowGraph>(readGraphFile(path.toStdString()));
    if (graph->nodeCount() == 0)
      throw InputError(path.toStdString(), "nodes", "the graph has no nodes");
    auto devices = inputs_.devices
                       ? inputs_.devices
                       : std::make_shared<const DeviceSet>(loadDevicesSpec("4xP100-PCIe"));
    PlacementInputs in;
    try {
      in = makeInputs(graph, devices, inputs_.devices ? inputs_.devicesSpec : "4xP100-PCIe");
    } catch (const InputError& e) {
      throw e.inFile(path.toStdString());
    }
    return commit(std::move(in), QFileInfo(path).absoluteFilePath(), true, false);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool StudioDocument::setDevicesSpec(const QString& spec, QString* error) {
  try {
    auto devices = std::make_shared<const DeviceSet>(loadDevicesSpec(spec.toStdString()));
    devices->validate();
    std::string stored = spec.toStdString();
    if (QFileInfo::exists(spec)) stored = QFileInfo(spec).absoluteFilePath().toStdString();
    if (!inputs_.graph) {
      inputs_.devices = devices;
      inputs_.devicesSpec = stored;
      Q_EMIT devicesChanged();
      return true;
    }
    PlacementInputs in;
    try {
      in = makeInputs(inputs_.graph, devices, stored);
    } catch (const InputError& e) {
      throw InputError(graphSource_.toStdString(), e.where(),
                       e.problem() + " (device set " + spec.toStdString() + ")");
    }
    return commit(std::move(in), graphSource_, false, true);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool StudioDocument::setGraph(DataflowGraph graph, const QString& source, QString* error) {
  try {
    auto g = std::make_shared<const DataflowGraph>(std::move(graph));
    auto devices = inputs_.devices
                       ? inputs_.devices
                       : std::make_shared<const DeviceSet>(loadDevicesSpec("4xP100-PCIe"));
    return commit(makeInputs(g, devices, inputs_.devices ? inputs_.devicesSpec : "4xP100-PCIe"),
                  source, true, false);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool StudioDocument::loadDemo(QString* error) {
  try {
    auto devices = std::make_shared<const DeviceSet>(loadDevicesSpec("4xP100-PCIe"));
    auto g = std::make_shared<const DataflowGraph>(generateGraph("llama-block"));
    return commit(makeInputs(g, devices, "4xP100-PCIe"),
                  QStringLiteral("demo: generated llama-block"), true, true);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool StudioDocument::commit(PlacementInputs inputs, const QString& graphSource, bool graphChanged,
                            bool devicesChanged) {
  abandon();
  inputs_ = std::move(inputs);
  graphSource_ = graphSource;
  if (graphChanged) snapshot_.reset();  // nothing to compare a new graph against
  if (graphChanged) Q_EMIT this->graphChanged();
  if (devicesChanged) Q_EMIT this->devicesChanged();
  recompute();
  return true;
}

void StudioDocument::setSettings(const views::PlacementSettings& settings) {
  settings_ = settings;
  recompute();
}

void StudioDocument::cancel() {
  // The search stops at its next check and returns the best placement so far (shown, marked
  // cancelled).
  if (cancel_) cancel_->store(true);
}

void StudioDocument::abandon() {
  if (cancel_) cancel_->store(true);
  if (busyId_) {
    busyId_ = 0;
    Q_EMIT busyChanged(false);
  }
}

void StudioDocument::recompute() {
  if (!inputs_.graph || !inputs_.devices) return;
  abandon();
  const Method* method = nullptr;
  try {
    method = &findMethod(settings_.method);
  } catch (const std::exception& e) {
    Q_EMIT computeFailed(QString::fromStdString(e.what()));
    return;
  }
  if (!method->isSearch()) {
    try {
      snapshot_ = computePlacement(inputs_, settings_, nullptr, {}, snapshot_.get());
      Q_EMIT snapshotChanged();
    } catch (const std::exception& e) {
      Q_EMIT computeFailed(QString::fromStdString(e.what()));
    }
    return;
  }
  PlacementJob job;
  job.id = nextId_++;
  job.inputs = inputs_;
  job.settings = settings_;
  job.previous = snapshot_;
  job.cancel = cancel_ = std::make_shared<std::atomic<bool>>(false);
  busyId_ = job.id;
  Q_EMIT busyChanged(true);
  QMetaObject::invokeMethod(
      worker_, [w = worker_, job] { w->run(job); }, Qt::QueuedConnection);
}

void StudioDocument::onWorkerFinished(int id, views::SnapshotPtr snapshot, const QString& error) {
  if (id != busyId_) return;  // superseded or cancelled by a newer request
  busyId_ = 0;
  Q_EMIT busyChanged(false);
  if (!error.isEmpty()) {
    Q_EMIT computeFailed(error);
    return;
  }
  if (!snapshot || snapshot->graph != inputs_.graph) return;
  snapshot_ = std::move(snapshot);
  Q_EMIT snapshotChanged();
}

bool StudioDocument::waitIdle(int timeout_ms) {
  QDeadlineTimer deadline(timeout_ms);
  while (busy() && !deadline.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return !busy();
}

}  // namespace doppler::studio

#include "app/studio/document/studio_document.h"

#include <QFile>
#include <QFileInfo>

#include "core/common/input_error.h"
#include "core/fleet/world/topology.h"
#include "core/graph/device_spec.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/graph/onnx_import.h"
#include "core/train/doppler_method.h"
#include "views/graph/display_graph.h"

namespace doppler::studio {

QString shippedGeneralPolicyPath() {
  // The weights exported from general.pt: placing with them needs no LibTorch.
  const QString path = QString::fromStdString(fleet::resourcesDir() + "/policies/general.weights");
  return QFileInfo::exists(path) ? path : QString();
}

QString registerShippedGeneralPolicy() {
  const QString general = shippedGeneralPolicyPath();
  // Once per process: registering again replaces the method object, which a placement started
  // from another window (tests open many) may still be running.
  static const bool registered = [&] {
    if (general.isEmpty()) return false;
    train::registerGeneralPolicy(general.toStdString());
    return true;
  }();
  (void)registered;
  return general;
}

StudioDocument::StudioDocument(JobRunner* runner, QObject* parent)
    : QObject(parent), runner_(runner) {
  connect(runner_, &JobRunner::busyChanged, this, [this](JobSlot slot, bool) {
    if (slot == JobSlot::Placement || slot == JobSlot::Search) Q_EMIT busyChanged(busy());
  });
}

bool StudioDocument::busy() const {
  return runner_->busy(JobSlot::Placement) || runner_->busy(JobSlot::Search);
}

namespace {

// A graph on `devices`, or on the default set when none is open yet. Plain data in, so that the
// import slot can call it with the device set captured on the GUI thread.
PlacementInputs inputsOn(std::shared_ptr<const DataflowGraph> graph,
                         std::shared_ptr<const DeviceSet> devices, const std::string& spec) {
  if (devices) return makeInputs(std::move(graph), std::move(devices), spec);
  return makeInputs(std::move(graph),
                    std::make_shared<const DeviceSet>(resolveDevices(kDefaultDevicesSpec)),
                    kDefaultDevicesSpec);
}

// The first bytes of a file, enough to tell its format ("" when it cannot be read: the reader
// then says why).
std::string fileHead(const QString& path, qint64 bytes) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.read(bytes).toStdString() : std::string();
}

}  // namespace

PlacementInputs StudioDocument::inputsFor(std::shared_ptr<const DataflowGraph> graph) const {
  return inputsOn(std::move(graph), inputs_.devices, inputs_.devicesSpec);
}

bool StudioDocument::openFile(const QString& path, QString* error) {
  // Only the head: a graph of a million nodes is tens of MB, read once, off the GUI thread.
  const std::string head = fileHead(path, 4096);
  if (QFileInfo(path).isFile() && !looksLikeOnnx(path.toStdString(), head) &&
      head.find("device-set/1") != std::string::npos)
    return setDevicesSpec(path, error);
  return openGraphFile(path, error);
}

bool StudioDocument::openGraphFile(const QString& path, QString* error) {
  try {
    const QFileInfo info(path);
    // ONNX models are binary and may be large: straight to the importer.
    if (info.exists() && looksLikeOnnx(path.toStdString(), fileHead(path, 64))) {
      openOnnx(path, {});
      return true;
    }
    if (info.isFile() && info.size() > kSynchronousBytes) {
      openLargeGraph(path);
      return true;
    }
    auto graph = std::make_shared<const DataflowGraph>(readGraphFile(path.toStdString()));
    if (graph->nodeCount() == 0)
      throw InputError(path.toStdString(), "nodes", "the graph has no nodes");
    PlacementInputs in;
    try {
      in = inputsFor(std::move(graph));
    } catch (const InputError& e) {
      throw e.inFile(path.toStdString());
    }
    return commit(std::move(in), QFileInfo(path).absoluteFilePath(), true, false);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void StudioDocument::openLargeGraph(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  Q_EMIT loadStarted(absolute);
  // The device set is captured here: the job must not read the document's members.
  struct Read {
    PlacementInputs inputs;
    views::DisplayGraphPtr display;
  };
  runner_->start<Read>(
      JobSlot::Import,
      [file = absolute.toStdString(), devices = inputs_.devices,
       spec = inputs_.devicesSpec](const JobContext&) {
        auto graph = std::make_shared<const DataflowGraph>(readGraphFile(file));
        if (graph->nodeCount() == 0) throw InputError(file, "nodes", "the graph has no nodes");
        Read read;
        try {
          read.inputs = inputsOn(graph, devices, spec);
        } catch (const InputError& e) {
          throw e.inFile(file);
        }
        // The graph view's drawing (coarsened groups), made here rather than on the GUI thread.
        read.display = std::make_shared<const views::DisplayGraph>(
            views::DisplayGraph::of(read.inputs.drawing ? read.inputs.drawing : read.inputs.graph));
        return read;
      },
      [this, absolute](Read read) {
        commit(std::move(read.inputs), absolute, true, false, std::move(read.display));
        Q_EMIT loaded(absolute);
      },
      [this](const QString& error) { Q_EMIT openFailed(error); });
}

bool StudioDocument::importing() const {
  return runner_->busy(JobSlot::Import);
}

namespace {

struct OnnxOutcome {
  std::shared_ptr<const DataflowGraph> graph;
  QString notes;                     // fallbackLine, external data
  QString error;                     // import failed
  QStringList dimNames, dimTensors;  // dynamic dimensions still unbound
};

}  // namespace

void StudioDocument::openOnnx(const QString& path, const std::map<std::string, int64_t>& dims) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  runner_->start<OnnxOutcome>(
      JobSlot::Import,
      [file = absolute.toStdString(), dims](const JobContext&) {
        OnnxOutcome out;
        OnnxImportOptions options;
        options.dims = dims;
        OnnxImportReport report;
        try {
          DataflowGraph g = importOnnxFile(file, options, &report);
          if (g.nodeCount() == 0) throw InputError(file, "graph", "the model has no nodes");
          out.graph = std::make_shared<const DataflowGraph>(std::move(g));
        } catch (const InputError& e) {
          out.error = QString::fromStdString(e.what());
          // An unbound dynamic dimension: ask for every one the model leaves open.
          try {
            for (const OnnxDynamicDim& dim : onnxDynamicDims(file))
              if (!dims.count(dim.name)) {
                out.dimNames << QString::fromStdString(dim.name);
                out.dimTensors << QString::fromStdString(dim.tensor);
              }
          } catch (const std::exception&) {
          }
          return out;
        }
        QStringList notes;
        if (const std::string line = report.fallbackLine(); !line.empty())
          notes << QString::fromStdString(line);
        if (report.external_data) notes << QStringLiteral("weights in side files were not read");
        out.notes = notes.join(QStringLiteral("; "));
        return out;
      },
      [this, absolute](OnnxOutcome out) {
        if (!out.dimNames.isEmpty()) {
          Q_EMIT dimsNeeded(absolute, out.dimNames, out.dimTensors, out.error);
          return;
        }
        if (!out.graph) {
          Q_EMIT openFailed(out.error);
          return;
        }
        try {
          PlacementInputs in;
          try {
            in = inputsFor(out.graph);
          } catch (const InputError& e) {
            throw e.inFile(absolute.toStdString());
          }
          commit(std::move(in), absolute, true, false);
          Q_EMIT imported(absolute, out.notes);
        } catch (const std::exception& e) {
          Q_EMIT openFailed(QString::fromStdString(e.what()));
        }
      },
      [this](const QString& error) { Q_EMIT openFailed(error); });
}

bool StudioDocument::setDevicesSpec(const QString& spec, QString* error) {
  try {
    auto devices = std::make_shared<const DeviceSet>(resolveDevices(spec.toStdString(), "devices"));
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
      in = makeInputs(inputs_.drawing ? inputs_.drawing : inputs_.graph, devices, stored);
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
    return commit(inputsFor(std::move(g)), source, true, false);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool StudioDocument::loadDemo(QString* error) {
  try {
    // On the devices already chosen (--devices, the saved set), else the default 4 x P100.
    auto g = std::make_shared<const DataflowGraph>(generateGraph("llama-block"));
    return commit(inputsFor(std::move(g)), QStringLiteral("demo: generated llama-block"), true,
                  true);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool StudioDocument::commit(PlacementInputs inputs, const QString& graphSource, bool graphChanged,
                            bool devicesChanged, views::DisplayGraphPtr display) {
  abandon();
  inputs_ = std::move(inputs);
  graphSource_ = graphSource;
  if (graphChanged) display_ = std::move(display);
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
  runner_->cancel(JobSlot::Placement);
  runner_->cancel(JobSlot::Search);
}

void StudioDocument::abandon() {
  runner_->abandon(JobSlot::Placement);
  runner_->abandon(JobSlot::Search);
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
  if (method->isSearch()) return startJob(JobSlot::Search);
  if (inputs_.graph->nodeCount() > kSynchronousNodes) return startJob(JobSlot::Placement);
  try {
    snapshot_ = computePlacement(inputs_, settings_, {}, {}, snapshot_.get());
    Q_EMIT snapshotChanged();
  } catch (const std::exception& e) {
    Q_EMIT computeFailed(QString::fromStdString(e.what()));
  }
}

void StudioDocument::startJob(JobSlot slot) {
  runner_->start<views::SnapshotPtr>(
      slot,
      [this, inputs = inputs_, settings = settings_,
       previous = snapshot_](const JobContext& ctx) -> views::SnapshotPtr {
        // Progress is posted to the GUI thread, where it is dropped once the job is superseded.
        auto progress = [this, ctx](const Progress& p) {
          ctx.post([this, p] { Q_EMIT this->progress(p.done, p.total, p.best_makespan_us); });
        };
        return computePlacement(inputs, settings, ctx.cancel(), progress, previous.get());
      },
      [this](views::SnapshotPtr snapshot) {
        if (!snapshot || snapshot->graph != inputs_.graph) return;
        snapshot_ = std::move(snapshot);
        Q_EMIT snapshotChanged();
      },
      [this](const QString& error) { Q_EMIT computeFailed(error); });
}

}  // namespace doppler::studio

#pragma once
// The studio's document and controller: the open graph, the device set and the placement
// settings, and the current placement computed from them. Loading never destroys what is open
// until the new input has been read and checked; a bad file leaves everything as it was and
// reports one message naming the file, the place in it and the problem.
//
// List schedulers on graphs of up to kSynchronousNodes nodes are placed on the calling (GUI)
// thread, within milliseconds, so a tuner change shows at once. Larger graphs and search methods
// go to the job runner (placement and search slots), with progress, cancel, and results of
// superseded jobs dropped.
//
// ONNX models (onnx_import.h) are imported on the runner's import slot: a 20,000-node model takes
// about a second. openFile then returns true at once ("started"); the graph arrives as usual
// (graphChanged), or openFailed says why, and nothing changes meanwhile. A model whose dynamic
// dimensions are not all bound asks for them (dimsNeeded); openOnnx imports with the values.
//
// Text graphs larger than kSynchronousBytes (about 30,000 nodes of Doppler text) are read on the
// import slot too, with the same contract: a 1,000,000-node file (33 MB) takes seconds to read
// and check, during which the window keeps drawing (loadStarted, then graphChanged and loaded,
// or openFailed).

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>

#include "app/studio/document/placement_compute.h"
#include "app/studio/jobs/job_runner.h"
#include "views/graph/display_graph.h"

namespace doppler::studio {

// resources/data/policies/general.weights (the shipped policy for placing, no LibTorch needed),
// or "" when it is missing.
QString shippedGeneralPolicyPath();
// Where the shipped weights exist, registers them as the method `doppler` and as local search's
// start `doppler` (core/train/doppler_method.h), as the CLI does; returns their path or "". Call
// before the toolbar and the tuner list the methods.
QString registerShippedGeneralPolicy();

class StudioDocument : public QObject {
  Q_OBJECT
 public:
  static constexpr int kSynchronousNodes = 5000;
  static constexpr qint64 kSynchronousBytes = 1 << 20;

  // `runner` runs the placement and search jobs and must outlive the document's jobs.
  explicit StudioDocument(JobRunner* runner, QObject* parent = nullptr);

  // Opens a graph (dataflow-graph/1 JSON or Doppler text) or a device set (device-set/1),
  // detected by content. On failure returns false and sets *error; nothing changes.
  bool openFile(const QString& path, QString* error);
  bool openGraphFile(const QString& path, QString* error);
  // An ONNX model with these dynamic dimensions bound (on the import slot; see above).
  void openOnnx(const QString& path, const std::map<std::string, int64_t>& dims);
  // A text graph read on the import slot (see above); openGraphFile picks it by size.
  void openLargeGraph(const QString& path);
  bool importing() const;
  // A device-set/1 file, a preset name or a count (as `doppler --devices`).
  bool setDevicesSpec(const QString& spec, QString* error);
  // A graph built in memory (the workload generator, the demo).
  bool setGraph(DataflowGraph graph, const QString& source, QString* error);
  // The demo: LLaMA attention block (generated, paper widths) on the open device set (4 x P100
  // when none is open yet).
  bool loadDemo(QString* error);

  void setSettings(const views::PlacementSettings& settings);
  const views::PlacementSettings& settings() const { return settings_; }
  // Places again with the current settings (a search reruns with the same seed).
  void recompute();
  // Stops a running search; its best placement so far is shown, marked cancelled.
  void cancel();
  // The checkpoint method "doppler" places with (the shipped general policy); "" (the default)
  // where the build has no LibTorch or the file is missing: the method then only reports that.
  void setGeneralPolicy(const QString& checkpoint) { generalPolicy_ = checkpoint; }
  QString generalPolicy() const { return generalPolicy_; }

  views::SnapshotPtr snapshot() const { return snapshot_; }
  std::shared_ptr<const DataflowGraph> graph() const { return inputs_.graph; }
  // What the graph view draws: a coarsened file as opened (its groups over graph()), else graph().
  std::shared_ptr<const DataflowGraph> drawing() const {
    return inputs_.drawing ? inputs_.drawing : inputs_.graph;
  }
  // The graph view's drawing of drawing(), when the worker that read the file made it (large
  // text graphs); null otherwise: the view makes its own.
  views::DisplayGraphPtr preparedDisplay() const { return display_; }
  std::shared_ptr<const DeviceSet> devices() const { return inputs_.devices; }
  QString devicesSpec() const { return QString::fromStdString(inputs_.devicesSpec); }
  QString graphSource() const { return graphSource_; }  // a path, or "generated: kind"
  bool busy() const;

 Q_SIGNALS:
  void graphChanged();
  void devicesChanged();
  void snapshotChanged();
  void busyChanged(bool busy);
  void progress(long done, long total, double best_us);
  void computeFailed(const QString& message);
  // An ONNX import: failed (file, node, problem), or needs dynamic dimensions (their names and a
  // tensor that has each), or finished with the importer's one-line notes (ops costed by output
  // bytes, weights in side files), empty if none.
  void openFailed(const QString& message);
  void dimsNeeded(const QString& path, const QStringList& names, const QStringList& tensors,
                  const QString& reason);
  void imported(const QString& path, const QString& notes);
  // A large text graph: being read (the window says so), then read and opened.
  void loadStarted(const QString& path);
  void loaded(const QString& path);

 private:
  bool commit(PlacementInputs inputs, const QString& graphSource, bool graphChanged,
              bool devicesChanged, views::DisplayGraphPtr display = nullptr);
  // Cancels a running placement or search and drops its result (a newer request supersedes it).
  void abandon();
  void startJob(JobSlot slot);
  // A new graph on the open device set, or on the default one when none is open yet.
  PlacementInputs inputsFor(std::shared_ptr<const DataflowGraph> graph) const;

  JobRunner* runner_;
  PlacementInputs inputs_;
  QString graphSource_;
  views::PlacementSettings settings_;
  views::SnapshotPtr snapshot_;
  views::DisplayGraphPtr display_;
  QString generalPolicy_;
};

}  // namespace doppler::studio

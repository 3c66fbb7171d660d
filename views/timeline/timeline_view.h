#pragma once
// The timeline view: one lane per device and one per directed link that carried a transfer.
// Wheel and W/S zoom, A/D pan, F fits; click a bar for its node, hover lights the node in the
// graph (through SelectionState) and the reverse; drag a range for per-device utilization and
// idle time inside it, Z zooms to it and Backspace goes back (a zoom stack); Ctrl+F finds a
// node's bars; flow arrows follow the selected node's transfers; C switches colouring between
// device, op kind and node. Exports PNG, SVG and Chrome Trace JSON.
#include <QAbstractScrollArea>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "views/common/image_export.h"
#include "views/common/measured_run.h"
#include "views/common/snapshot.h"
#include "views/stepper/step_overlay.h"
#include "views/timeline/timeline_painter.h"

namespace doppler::views {

class SelectionState;
class TimelineSearchBar;

class TimelineView : public QAbstractScrollArea, public ImageSource {
  Q_OBJECT
 public:
  explicit TimelineView(SelectionState* selection, QWidget* parent = nullptr);

  void setSnapshot(SnapshotPtr snapshot);
  const SnapshotPtr& snapshot() const { return snapshot_; }
  // The schedule shown: the step overlay's plan while one is set, else the snapshot's.
  const TimelineData* data() const { return data_.get(); }

  // The decision stepper's step (null clears): the overlay's plan instead of the simulation, the
  // nodes placed so far solid and the rest faint, a line at the makespan so far. A step of the
  // same plan only restyles; a new plan (another branch) is arranged once.
  void setStepOverlay(StepOverlayPtr overlay);
  const StepOverlayPtr& stepOverlay() const { return overlay_; }
  // A measured run of the current snapshot (null, or a run of another placement, clears): its
  // timeline instead of the simulation, with the simulated one as faint ghosts. A new snapshot
  // returns to the simulated view. The step overlay and a measured run exclude each other.
  void setMeasured(MeasuredRunPtr run);
  const MeasuredRunPtr& measured() const { return measured_; }
  bool showsMeasured() const { return measured_ != nullptr; }

  // Compute bars drawn faint at the current step (nodes not placed yet).
  int faintNodeCount() const;

  int hoveredNode() const { return state_.hovered; }
  int selectedNode() const { return state_.selected; }
  double visibleStart() const { return state_.t0; }
  double visibleEnd() const;
  // Node under a viewport point (a transfer bar stands for its consumer), or -1.
  int nodeAt(const QPoint& pos) const;
  // Viewport point at the middle of a node's compute bar (-1, -1 if not visible).
  QPoint pointOfNode(int node) const;
  double timeAtX(double x) const;
  TimelineGeometry geometry() const;

  // Outlines these nodes lightly (the members of the group that holds the selected node in the
  // graph view); empty clears.
  void setGroupNodes(std::vector<int> nodes);
  const std::vector<int>& groupNodes() const { return state_.groupNodes; }

  void setColorMode(TimelineColorMode mode);
  // Device, op kind, node, and round (op kind is skipped when the graph has none).
  void cycleColorMode();
  bool hasOpKinds() const;
  TimelineColorMode colorMode() const { return state_.colorMode; }
  // The colour of a node's compute bar under the current colouring, and of the swatch that heads
  // its lane (its device's); invalid when the node has no bar.
  QColor barColor(int node) const;
  QColor laneColor(int node) const;
  void setRange(std::optional<std::pair<double, double>> range);
  std::optional<std::pair<double, double>> range() const { return state_.range; }
  const std::vector<DeviceRangeStats>& rangeStats() const { return state_.rangeStats; }

  // Writes the schedule as Chrome Trace Event JSON (opens in Perfetto); returns an error or "".
  QString exportChromeTrace(const QString& path) const;
  ViewHeader header() const;

  QString imageName() const override { return QStringLiteral("timeline"); }
  QSize cleanImageSize() const override;
  void renderClean(QPainter& painter, const QSize& size) override;

 public Q_SLOTS:
  void fit();
  // The link lanes as one row (the default above TimelinePainter::kLinksExpandedUpTo devices).
  void setLinksCollapsed(bool collapsed);
  // The critical path of the shown schedule outlined on its bars and transfers (on by default,
  // as in the graph; View > Show Critical Path toggles both).
  void setCriticalPathVisible(bool on);
  bool criticalPathVisible() const { return criticalVisible_; }
  // Per node: on the outlined critical path (empty when hidden or while stepping).
  const std::vector<char>& criticalNodes() const { return state_.criticalNodes; }
  bool linksCollapsed() const { return state_.linksCollapsed; }
  void zoomBy(double factor);   // around the mouse when it is over the plot, else the centre
  void panBy(double fraction);  // of the visible width; positive moves later in time
  // Z: the dragged range fills the plot, the view before it kept on a stack that Backspace
  // (zoomBack) pops; false when there is no range. A new graph or device count empties it.
  bool zoomToRange();
  bool zoomBack();
  int zoomDepth() const { return static_cast<int>(zoomStack_.size()); }
  // Ctrl+F: a field over the plot; the matching nodes' bars are outlined, Enter selects the next
  // one and brings it into view, Esc closes. search() returns the number of matches.
  void showSearch();
  int search(const QString& text, bool next = false);
  const std::vector<int>& searchMatches() const { return state_.marked; }

 Q_SIGNALS:
  void rangeChanged(bool active, double start_us, double finish_us);
  void copyImageRequested();
  void saveImageRequested();
  void exportTraceRequested();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void zoomAround(double factor, double x);
  void clampView();
  void updateScrollBar();
  void updateCriticalPath();
  void ensureNodeVisible(int node);
  QString tooltipAt(const QPoint& pos) const;
  const Schedule* shownSchedule() const;

  StepOverlayPtr overlay_;
  MeasuredRunPtr measured_;
  std::shared_ptr<const TimelineData> snapshotData_;  // kept while the plan is shown

  SelectionState* selection_;
  SnapshotPtr snapshot_;
  std::shared_ptr<const TimelineData> data_;
  TimelineState state_;
  std::vector<std::pair<double, double>> zoomStack_;  // t0, usPerPx before each zoom to a range
  TimelineSearchBar* search_ = nullptr;
  int matchCursor_ = 0;
  bool atFit_ = true;
  bool criticalVisible_ = true;
  QPoint pressPos_;
  double panStartT0_ = 0;
  bool dragging_ = false, panning_ = false;
};

}  // namespace doppler::views

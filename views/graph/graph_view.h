#pragma once
// The graph view: a Graphviz-laid-out dataflow graph, nodes coloured by device, with zoom (wheel,
// +/-), pan (drag, arrows), fit (F), search (Ctrl+F), a minimap when the graph does not fit,
// tooltips, the critical path overlay, and a header that says what is shown.
//
// Large graphs (more than kCoarsenAbove nodes) are drawn as groups (display_graph.h); a group
// expands in place (double-click, E, or the context menu) and collapses back (double-click a
// member, Shift+E), each time with a new layout while the old picture stays. Selection stays in
// the full graph's nodes (SelectionState): a selected node lights the group that holds it, and a
// click on a group selects its longest-running member. A layout can be abandoned (Esc or the
// Cancel button): its result is dropped and the view keeps what it showed.
#include <QGraphicsView>
#include <memory>
#include <optional>

#include "views/common/image_export.h"
#include "views/common/legend.h"
#include "views/common/snapshot.h"
#include "views/graph/graph_layout.h"
#include "views/graph/graph_scene.h"

class QLineEdit;
class QLabel;
class QToolButton;

namespace doppler::views {

class SelectionState;
class GraphMinimap;

class GraphView : public QGraphicsView, public ImageSource {
  Q_OBJECT
 public:
  explicit GraphView(SelectionState* selection, QWidget* parent = nullptr);
  ~GraphView() override;

  // Shows a graph (drawn as groups above kCoarsenAbove nodes); emits layoutRequested.
  void setGraph(std::shared_ptr<const DataflowGraph> graph);
  // The same with its drawing already made (DisplayGraph::of coarsens a million nodes in about a
  // second: the studio makes it on a worker for the files it reads there).
  void setDisplay(DisplayGraphPtr display);
  // The drawing: the graph itself, or its groups with some expanded.
  const DisplayGraphPtr& display() const { return display_; }
  // Expands a drawn group in place, or collapses the expanded group a drawn node belongs to;
  // false when there is nothing to do. The new drawing appears once its layout arrives.
  bool expandGroup(int node);
  bool collapseGroup(int node);
  void collapseAll();
  // A layout is being computed (the view shows the previous picture, or a hint, meanwhile).
  bool layoutPending() const { return pendingHash_ != 0; }
  // Abandons the pending layout: emits layoutCancelRequested, keeps the current picture.
  void cancelLayout();
  // Lays the current drawing out again (after a cancelled first layout).
  void relayout();
  // The drawn node showing a full graph node.
  int shownNodeOf(int node) const;
  // Which way the graph is laid out: chosen from the pane's shape (automatic, the default) or
  // fixed by the user. Changing it lays the graph out again.
  void setLayoutDirectionChoice(std::optional<LayoutDirection> fixed);
  LayoutDirection layoutDirection() const { return direction_; }
  // Flips the current direction (and fixes it until set back to automatic).
  void flipLayoutDirection();
  // Accepts the layout of the current graph (results for other graphs are ignored).
  void setLayoutResult(LayoutResultPtr layout);
  // Recolours for a placement of the current graph (or switches graph first).
  void setSnapshot(SnapshotPtr snapshot);

  GraphScene* graphScene() const { return scene_; }
  bool hasLayout() const { return scene_->hasLayout() && scene_->layout() != nullptr; }
  double zoom() const;
  bool atFit() const { return atFit_; }
  // The least size node labels may have on screen when fitting, in pixels (presentation mode asks
  // for 14, read from the back of a room); 0 fits the whole graph however small. A graph too
  // large for it is fitted at that size along its breadth, from the selected node or the start.
  void setMinimumLabelPixels(double px);
  // The height node labels have on screen now, in pixels.
  double labelPixels() const;
  void setCriticalPathVisible(bool on);
  bool criticalPathVisible() const { return scene_->criticalPathVisible(); }
  // The decision stepper's step (null clears): the ready set outlined with each candidate's
  // score, the chosen node emphasised, the nodes placed so far in their device's colour and the
  // rest faded. Restyles the items in place; clicking a ready node emits stepNodeClicked.
  void setStepOverlay(StepOverlayPtr overlay);
  const StepOverlayPtr& stepOverlay() const { return scene_->stepOverlay(); }

  // Node under a viewport position, and the viewport position of a node's centre.
  int nodeAtViewport(const QPoint& pos) const;
  QPoint viewportPosOfNode(int node) const;

  // Search (Ctrl+F): marks every node whose id contains the text or whose op equals it, and
  // selects and centres the next match. Returns the number of matches.
  int search(const QString& text, bool next = false);
  void showSearch();

  ViewHeader header() const;

  // ImageSource: the whole graph with its header.
  QString imageName() const override { return QStringLiteral("graph"); }
  QSize cleanImageSize() const override;
  void renderClean(QPainter& painter, const QSize& size) override;
  QString notReadyReason() const override;

 public Q_SLOTS:
  void fitAll();
  void zoomBy(double factor);

 Q_SIGNALS:
  void layoutRequested(std::shared_ptr<const LayoutInput> input);
  // The user abandoned the layout in progress (the studio abandons its job).
  void layoutCancelRequested();
  // Another drawing of the same graph is shown (a group expanded or collapsed).
  void displayChanged();
  void copyImageRequested();
  void saveImageRequested();
  // A ready node (the chosen one included) was clicked while a step overlay is shown; the studio
  // turns it into an override.
  void stepNodeClicked(int node);

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void drawBackground(QPainter* painter, const QRectF& rect) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  bool viewportEvent(QEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void requestLayoutOf(DisplayGraphPtr display, bool replaceNow);
  void syncSelection();
  QString groupTooltipHtml(int node) const;
  void ensureNodeVisible(int node);
  void updateMinimap();
  void placeOverlays();
  int currentHeaderHeight() const;
  QRectF renderTarget(const QSize& size, int headerHeight) const;

  SelectionState* selection_;
  GraphScene* scene_;
  GraphMinimap* minimap_;
  QLineEdit* searchEdit_;
  QToolButton* cancelButton_;
  DisplayGraphPtr display_;
  DisplayGraphPtr pending_;  // awaiting its layout (the scene shows display_ meanwhile)
  uint64_t pendingHash_ = 0;
  int focusGroup_ = -1;  // base group to centre on once an expansion is laid out
  bool layoutCancelled_ = false;
  QLabel* searchInfo_;
  QPoint pressPos_;
  bool pressedOnEmpty_ = false;
  bool fitPending_ = true;
  std::optional<LayoutDirection> directionChoice_;  // empty: from the pane's shape
  LayoutDirection direction_ = LayoutDirection::TopToBottom;
  bool atFit_ = true;
  double minLabelPx_ = 0;
  bool inFit_ = false;  // refit on resize until the user zooms or pans
  std::vector<int> matches_;
  int matchCursor_ = -1;
};

}  // namespace doppler::views

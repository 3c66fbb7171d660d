#pragma once
// The dataflow graph as a QGraphicsScene: one item per drawn node (coloured by device, labelled by
// op) and per edge (cross-device edges dark and as thick as their transfer is long, same-device
// edges thin and light), positioned by a Graphviz layout. Placement changes recolour the items in
// place; only a new graph needs a new layout.
//
// What is drawn is a DisplayGraph: the graph itself, or groups of it (display_graph.h). A group is
// a stacked box with its id, member count and summed cost, filled with the device that runs most
// of its members' work and a bar of every device's share; the members of an expanded group sit in
// a framed box. Node indices in this interface are drawn nodes, except where they come with the
// placement (marked nodes, a comparison's moves, the stepper's overlay): those are the full
// graph's.
#include <QGraphicsScene>
#include <QString>
#include <vector>

#include "core/sim/critical_path.h"
#include "views/common/snapshot.h"
#include "views/graph/display_graph.h"
#include "views/graph/graph_layout.h"
#include "views/stepper/step_overlay.h"

namespace doppler::views {

class NodeItem;
class EdgeItem;
class GroupFrameItem;

// What a node is at the decision stepper's current step.
enum class StepRole {
  None,      // no step overlay
  Placed,    // placed before the step: drawn normally, coloured by its device in the plan
  Unplaced,  // not yet placed: faded, in the colour of the device the plan puts it on
  Ready,     // in the ready set: faded, outlined, labelled with its score
  Chosen,    // the node the step picks: full colour, thick outline with a glow
};

class GraphScene : public QGraphicsScene {
  Q_OBJECT
 public:
  explicit GraphScene(QObject* parent = nullptr);
  ~GraphScene() override;

  // A new graph, drawn node by node: items are built when its layout arrives (setLayout with a
  // matching hash).
  void setGraph(std::shared_ptr<const DataflowGraph> graph, uint64_t layoutHash);
  // A new drawing (the same graph with other groups expanded keeps the placement shown).
  void setDisplay(DisplayGraphPtr display, uint64_t layoutHash);
  // Ignored unless result->hash matches the graph's layout hash.
  bool setLayout(LayoutResultPtr result);
  void setSnapshot(SnapshotPtr snapshot);
  void setCriticalPathVisible(bool on);
  void setHovered(int node);
  void setSelected(int node);
  // Nodes drawn with a marker (search matches).
  void setMarked(const std::vector<int>& nodes);
  // A comparison of the shown placement with another placement of the graph. The fill stays the
  // shown placement's (the run the header names); each node that sits on another device in the
  // other placement is ringed in that device's colour (the other run's devices matched to the
  // shown ones first, so renamed identical GPUs are not moves). An empty `other` clears it.
  // A new snapshot (any new placement) or another graph ends it.
  struct Comparison {
    QString shown, other;  // what the header names: "critical-path", "run 3 (heft)"
    SnapshotPtr against;   // the shown placement the moves were computed against
    struct Move {
      int node = -1;    // the full graph's
      int device = -1;  // in the other placement, on the shown placement's devices
    };
    std::vector<Move> moves;
  };
  void setComparison(Comparison comparison);
  void clearComparison() { setComparison({}); }
  bool comparing() const { return !comparison_.other.isEmpty(); }
  const Comparison& comparison() const { return comparison_; }
  int comparedMoveCount() const { return static_cast<int>(comparison_.moves.size()); }
  // The device a node has in the compared placement where that is not its shown device, else -1.
  int comparedDevice(int node) const;
  // The decision stepper's step (null clears it). Restyles the items in place; the plan's devices
  // colour the nodes and decide which edges cross devices while it is set.
  void setStepOverlay(StepOverlayPtr overlay);
  const StepOverlayPtr& stepOverlay() const { return overlay_; }
  StepRole stepRole(int node) const;
  // Paints each candidate's score as a badge by its node, at a constant size on screen (so it
  // stays legible when zoomed out), moving or dropping badges that would overlap. `toDevice` maps
  // scene coordinates to the painter's.
  void paintStepBadges(QPainter& p, const QTransform& toDevice, const QFont& font) const;

  // Zoomed out below the levels where the items label themselves, the drawing would be boxes
  // without a word: the heaviest drawn nodes (groups by member count, then nodes by compute
  // time) are named at a constant, legible size instead, as a map names its largest towns,
  // none over another. `visible` is the painter's area in device coordinates (empty: all).
  struct Landmark {
    int node = -1;  // drawn node
    QString text;   // "id" or, for a group, "id · ×members"
    QRectF rect;    // device coordinates
  };
  std::vector<Landmark> landmarks(const QTransform& toDevice, const QFont& font,
                                  const QRectF& visible) const;
  void paintLandmarks(QPainter& p, const QTransform& toDevice, const QFont& font,
                      const QRectF& visible) const;

  bool hasLayout() const { return !nodes_.empty() || (graph_ && graph_->nodeCount() == 0); }
  uint64_t layoutHash() const { return hash_; }
  // The drawn graph (the full graph, or its groups).
  const std::shared_ptr<const DataflowGraph>& graph() const { return graph_; }
  const DisplayGraphPtr& display() const { return display_; }
  // The device whose colour fills a drawn node (-1 without a placement).
  int nodeDevice(int node) const;
  // The colour a drawn node is filled with now (invalid before its items are built).
  QColor nodeFill(int node) const;
  // Frames around the members of expanded groups (scene coordinates).
  int groupFrameCount() const { return static_cast<int>(frames_.size()); }
  const SnapshotPtr& snapshot() const { return snapshot_; }
  const CriticalPath& criticalPath() const { return critical_; }
  bool criticalPathVisible() const { return showCritical_; }
  LayoutResultPtr layout() const { return layout_; }

  int nodeAt(const QPointF& scenePos) const;  // -1 if none
  QRectF nodeRect(int node) const;            // scene coordinates; empty if no layout
  int movedCount() const;
  int hovered() const { return hovered_; }
  int selected() const { return selected_; }
  int crossEdgeCount() const { return crossEdges_; }

 Q_SIGNALS:
  // Emitted after items were (re)built or restyled, so views can refresh caches (the minimap).
  void contentChanged();

 private:
  void build();
  void restyle();
  void highlightNeighbours(int node, bool on);

  DisplayGraphPtr display_;
  std::shared_ptr<const DataflowGraph> graph_;  // display_->shown()
  uint64_t hash_ = 0;
  LayoutResultPtr layout_;
  SnapshotPtr snapshot_;
  CriticalPath critical_;
  bool showCritical_ = true;
  int hovered_ = -1, selected_ = -1;
  int crossEdges_ = 0;
  std::vector<NodeItem*> nodes_;
  std::vector<EdgeItem*> edges_;
  std::vector<GroupFrameItem*> frames_;
  std::vector<int> device_;     // per drawn node while a placement is shown
  std::vector<double> workUs_;  // per drawn node: its members' compute time, likewise
  std::vector<int> marked_;
  Comparison comparison_;
  StepOverlayPtr overlay_;
  std::vector<StepRole> roles_;  // per drawn node while overlay_ is set
};

}  // namespace doppler::views

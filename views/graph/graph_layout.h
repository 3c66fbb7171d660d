#pragma once
// Graphviz `dot` layout of a dataflow graph. Graphviz is not thread-safe: computeLayout may only
// ever be called from one thread (the studio's layout worker; tests and benchmarks run it on
// their only thread). Inputs and results are plain data so they cross threads by value.
#include <QPointF>
#include <QSizeF>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/graph/dataflow_graph.h"

class QFont;

namespace doppler::views {

// Which way data flows on screen: top to bottom (Graphviz rankdir TB) or left to right (LR).
enum class LayoutDirection { TopToBottom, LeftToRight };

struct LayoutInput {
  uint64_t hash = 0;  // graphHash of the graph, plus the label sizes and the direction
  LayoutDirection direction = LayoutDirection::TopToBottom;
  std::vector<double> width_pt, height_pt;  // node boxes in points (1/72 inch)
  std::vector<std::pair<int, int>> edges;   // by edge index: (src, dst) node indices
  int nodeCount() const { return static_cast<int>(width_pt.size()); }
};

struct LayoutResult {
  uint64_t hash = 0;
  double width = 0, height = 0;  // bounding box in points, origin top left, y down
  std::vector<QPointF> centers;  // per node
  // Per edge: the spline as cubic Bézier points (p0, c1, c2, p1, c1, c2, p2, ...) followed by
  // nothing else; arrowTip is where the arrowhead points.
  std::vector<std::vector<QPointF>> splines;
  std::vector<QPointF> arrowTip;
  double seconds = 0;      // wall time of the Graphviz call
  QString error;           // non-empty if Graphviz failed (centers are then a simple grid)
  bool cancelled = false;  // abandoned between phases: nothing else is filled in
};

using LayoutResultPtr = std::shared_ptr<const LayoutResult>;

// A hash of the graph's structure (node ids and ops, edges): the layout cache key.
uint64_t graphHash(const DataflowGraph& g);
// Measures labels (call on the GUI thread) and fills a LayoutInput.
LayoutInput makeLayoutInput(const DataflowGraph& g, const QFont& font,
                            LayoutDirection direction = LayoutDirection::TopToBottom);
// The zoom from which node labels are comfortably legible.
inline constexpr double kLegibleZoom = 0.55;
// The direction for a pane of the given size in points: the one whose whole drawing fits at the
// larger zoom when either fits legibly; otherwise the one whose long side runs along the pane's
// long side (a deep, narrow graph goes left to right in a wide pane). Estimated from the graph's
// levels (longest path from a source) and its widest level, before any layout is computed.
LayoutDirection preferredDirection(const DataflowGraph& g, QSizeF pane);
// Runs `dot`. Only ever from one thread at a time (see above). Checks `cancel` between its phases
// (building the Graphviz graph, the layout, reading positions back); a cancelled result has
// `cancelled` set. The Graphviz call itself cannot be interrupted.
LayoutResult computeLayout(const LayoutInput& input, const CancelToken& cancel = {});

}  // namespace doppler::views

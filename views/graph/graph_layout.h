#pragma once
// Graphviz layout of a dataflow graph: `dot` (layered, the flow reads top to bottom) up to
// kDotMaxNodes drawn nodes, `sfdp` (multilevel force-directed, seconds where dot would take
// minutes) above. Large graphs are drawn coarse (display_graph.h), so dot is the usual engine.
// Graphviz is not thread-safe: computeLayout may only ever be called from one thread (the
// studio's layout worker; tests and benchmarks run it on their only thread). Inputs and results
// are plain data so they cross threads by value.
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/graph/dataflow_graph.h"
#include "views/graph/display_graph.h"

class QFont;
class QFontMetricsF;

namespace doppler::views {

// Which way data flows on screen: top to bottom (Graphviz rankdir TB) or left to right (LR).
enum class LayoutDirection { TopToBottom, LeftToRight };

// Drawn graphs up to this many nodes are laid out with dot, larger ones with sfdp. dot's crossing
// minimisation grows quickly: about 1 s for 1,000 nodes here, 10 s and more for 3,000.
inline constexpr int kDotMaxNodes = 1200;
// The engine computeLayout uses for a drawn graph of n nodes: "dot" or "sfdp".
const char* layoutEngineFor(int n);

struct LayoutInput {
  uint64_t hash = 0;  // graphHash of the graph, plus the label sizes and the direction
  LayoutDirection direction = LayoutDirection::TopToBottom;
  std::vector<double> width_pt, height_pt;  // node boxes in points (1/72 inch)
  std::vector<std::pair<int, int>> edges;   // by edge index: (src, dst) node indices
  // Nodes kept together in a framed box (dot clusters): the members of an expanded group.
  std::vector<std::vector<int>> clusters;
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
  std::vector<QRectF> clusterRects;  // per input cluster (empty rect if the engine has none)
  QString engine;                    // "dot", "sfdp", or empty for the grid fallback
  double seconds = 0;                // wall time of the Graphviz call
  QString error;           // non-empty if Graphviz failed (centers are then a simple grid)
  bool cancelled = false;  // abandoned between phases: nothing else is filled in
};

using LayoutResultPtr = std::shared_ptr<const LayoutResult>;

// A hash of the graph's structure (node ids and ops, edges): the layout cache key.
uint64_t graphHash(const DataflowGraph& g);
// Measures labels (call on the GUI thread) and fills a LayoutInput.
LayoutInput makeLayoutInput(const DataflowGraph& g, const QFont& font,
                            LayoutDirection direction = LayoutDirection::TopToBottom);
// The same for a drawing: groups get two-line boxes (id; members and summed cost) and the
// members of each expanded group become a cluster.
LayoutInput makeLayoutInput(const DisplayGraph& d, const QFont& font,
                            LayoutDirection direction = LayoutDirection::TopToBottom);
// A drawn node's box in points and its text: one line for a node, two for a group.
struct NodeBox {
  QString label, summary;  // summary: groups only
  QSizeF size;
};
NodeBox nodeBox(const DisplayGraph& d, int shownNode, const QFontMetricsF& fm);
// The zoom from which node labels are comfortably legible.
inline constexpr double kLegibleZoom = 0.55;
// The direction for a pane of the given size in points: the one whose whole drawing fits at the
// larger zoom when either fits legibly; otherwise the one whose long side runs along the pane's
// long side (a deep, narrow graph goes left to right in a wide pane). Estimated from the graph's
// levels (longest path from a source) and its widest level, before any layout is computed.
LayoutDirection preferredDirection(const DataflowGraph& g, QSizeF pane);
// Runs dot or sfdp (layoutEngineFor). Only ever from one thread at a time (see above). Checks
// `cancel` before and after building the Graphviz graph; a cancelled result has `cancelled` set.
// The Graphviz call itself cannot be interrupted: a job cancelled during it runs to the end in
// the background, and its (complete) result is returned for the caller to cache or drop.
LayoutResult computeLayout(const LayoutInput& input, const CancelToken& cancel = {});

}  // namespace doppler::views

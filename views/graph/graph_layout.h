#pragma once
// Graphviz `dot` layout of a dataflow graph. Graphviz is not thread-safe: computeLayout may only
// ever be called from one thread (the studio's layout worker; tests and benchmarks run it on
// their only thread). Inputs and results are plain data so they cross threads by value.
#include <QPointF>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph/dataflow_graph.h"

class QFont;

namespace doppler::views {

struct LayoutInput {
  uint64_t hash = 0;                        // graphHash of the graph, plus the label sizes
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
  double seconds = 0;  // wall time of the Graphviz call
  QString error;       // non-empty if Graphviz failed (centers are then a simple grid)
};

using LayoutResultPtr = std::shared_ptr<const LayoutResult>;

// A hash of the graph's structure (node ids and ops, edges): the layout cache key.
uint64_t graphHash(const DataflowGraph& g);
// Measures labels (call on the GUI thread) and fills a LayoutInput.
LayoutInput makeLayoutInput(const DataflowGraph& g, const QFont& font);
// Runs `dot`. Only ever from one thread at a time (see above).
LayoutResult computeLayout(const LayoutInput& input);

}  // namespace doppler::views

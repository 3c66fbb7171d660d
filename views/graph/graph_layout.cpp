#include "views/graph/graph_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QElapsedTimer>
#include <QFont>
#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>

#include "views/common/node_details.h"

namespace doppler::views {
namespace {

// Graphviz is not thread-safe, and one GVC context serves every layout of the process, held under
// this lock. A context per layout, freed after it, read freed memory in the next one (ASan found
// it): Graphviz 2.43's pango plugin keeps a pointer to the last font name in a static, and that
// name belongs to the context's font cache, which gvFreeContext frees.
std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

GVC_t* graphvizContext() {
  static GVC_t* const gvc = gvContext();  // for the life of the process, under graphvizMutex()
  return gvc;
}

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}
uint64_t hashString(uint64_t h, const std::string& s) {
  uint64_t f = 1469598103934665603ull;
  for (unsigned char c : s) f = (f ^ c) * 1099511628211ull;
  return mix(h, f);
}

// Graphviz wants char* for names and attribute values it never modifies.
char* cs(const char* s) {
  return const_cast<char*>(s);
}

void gridFallback(const LayoutInput& in, LayoutResult& out) {
  const int n = in.nodeCount();
  const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(n))));
  out.centers.resize(n);
  for (int v = 0; v < n; ++v)
    out.centers[v] = QPointF(60.0 + (v % cols) * 90, 30.0 + (v / cols) * 40);
  out.width = cols * 90 + 60;
  out.height = (n / cols + 1) * 40 + 30;
  out.splines.assign(in.edges.size(), {});
  out.clusterRects.resize(in.clusters.size());
  out.arrowTip.resize(in.edges.size());
  for (size_t e = 0; e < in.edges.size(); ++e) {
    const QPointF a = out.centers[in.edges[e].first], b = out.centers[in.edges[e].second];
    out.splines[e] = {a, a + (b - a) / 3, a + (b - a) * 2 / 3, b};
    out.arrowTip[e] = b;
  }
}

}  // namespace

uint64_t graphHash(const DataflowGraph& g) {
  uint64_t h = mix(0x243f6a8885a308d3ull, static_cast<uint64_t>(g.nodeCount()));
  for (const Node& n : g.nodes()) h = hashString(hashString(h, n.id), n.op);
  for (const Edge& e : g.edges())
    h = mix(mix(h, static_cast<uint64_t>(e.src)), static_cast<uint64_t>(e.dst));
  return h;
}

LayoutInput makeLayoutInput(const DataflowGraph& g, const QFont& font, LayoutDirection direction) {
  LayoutInput in;
  in.direction = direction;
  QFontMetricsF fm(font);
  const int n = g.nodeCount();
  in.width_pt.resize(n);
  in.height_pt.resize(n);
  // Scene units are points; node boxes fit their label with a margin.
  const double h = std::ceil(fm.height() + 10);
  uint64_t hash = graphHash(g);
  for (int v = 0; v < n; ++v) {
    const double w = std::max(h * 1.6, std::ceil(fm.horizontalAdvance(nodeLabel(g, v)) + 16));
    in.width_pt[v] = w;
    in.height_pt[v] = h;
    hash = mix(hash, static_cast<uint64_t>(w * 16));
  }
  in.hash = mix(mix(hash, static_cast<uint64_t>(h * 16)), static_cast<uint64_t>(direction));
  in.edges.reserve(g.edgeCount());
  for (const Edge& e : g.edges()) in.edges.emplace_back(e.src, e.dst);
  return in;
}

NodeBox nodeBox(const DisplayGraph& d, int v, const QFontMetricsF& fm) {
  NodeBox box;
  const double h = std::ceil(fm.height() + 10);
  if (!d.isGroup(v)) {
    box.label = nodeLabel(*d.shown(), v);
    box.size = QSizeF(std::max(h * 1.6, std::ceil(fm.horizontalAdvance(box.label) + 16)), h);
    return box;
  }
  // A group: its id (the members' common scope), elided in the middle, over its summary.
  box.label = fm.elidedText(QString::fromStdString(d.shown()->node(v).id), Qt::ElideMiddle,
                            fm.averageCharWidth() * 42);
  box.summary = QString::fromStdString(groupSummary(d, v));
  const double w = std::max(fm.horizontalAdvance(box.label), fm.horizontalAdvance(box.summary));
  box.size = QSizeF(std::max(h * 2.2, std::ceil(w + 22)), std::ceil(fm.height() * 2 + 16));
  return box;
}

LayoutInput makeLayoutInput(const DisplayGraph& d, const QFont& font, LayoutDirection direction) {
  if (!d.coarse()) return makeLayoutInput(*d.shown(), font, direction);
  const DataflowGraph& g = *d.shown();
  LayoutInput in;
  in.direction = direction;
  QFontMetricsF fm(font);
  const int n = g.nodeCount();
  in.width_pt.resize(n);
  in.height_pt.resize(n);
  uint64_t hash = mix(graphHash(g), 0x6772u);  // not the hash of the same graph drawn plain
  for (int v = 0; v < n; ++v) {
    const NodeBox box = nodeBox(d, v, fm);
    in.width_pt[v] = box.size.width();
    in.height_pt[v] = box.size.height();
    hash = mix(mix(hash, static_cast<uint64_t>(box.size.width() * 16)),
               static_cast<uint64_t>(box.size.height() * 16));
  }
  // The members of each expanded group stay together, framed.
  std::vector<int> clusterOf(d.base() ? d.base()->nodeCount() : 0, -1);
  for (int v = 0; v < n; ++v) {
    if (!d.isExpandedMember(v)) continue;
    int& c = clusterOf[d.baseGroupOf(v)];
    if (c < 0) {
      c = static_cast<int>(in.clusters.size());
      in.clusters.emplace_back();
    }
    in.clusters[c].push_back(v);
  }
  for (const auto& cluster : in.clusters) hash = mix(hash, cluster.size());
  in.hash = mix(hash, static_cast<uint64_t>(direction));
  in.edges.reserve(g.edgeCount());
  for (const Edge& e : g.edges()) in.edges.emplace_back(e.src, e.dst);
  return in;
}

const char* layoutEngineFor(int n) {
  return n <= kDotMaxNodes ? "dot" : "sfdp";
}

LayoutDirection preferredDirection(const DataflowGraph& g, QSizeF pane) {
  const int n = g.nodeCount();
  if (n == 0 || pane.width() <= 0 || pane.height() <= 0) return LayoutDirection::TopToBottom;
  // Level of each node: the longest path from a source, in topological order.
  std::vector<int> level(n, 0);
  int depth = 1;
  for (int v : g.topologicalOrder()) {
    for (int e : g.inEdges(v)) level[v] = std::max(level[v], level[g.edge(e).src] + 1);
    depth = std::max(depth, level[v] + 1);
  }
  std::vector<int> perLevel(depth, 0);
  for (int v = 0; v < n; ++v) ++perLevel[level[v]];
  const double breadth = *std::max_element(perLevel.begin(), perLevel.end());
  // Drawing sizes in points with typical boxes (100 x 25) and dot's separations (nodesep 11,
  // ranksep 25): top to bottom, levels are rows; left to right, they are columns.
  const QSizeF tb(breadth * 111, depth * 50.0), lr(depth * 125.0, breadth * 36);
  const auto fit = [&](QSizeF d) {
    return std::min(pane.width() / d.width(), pane.height() / d.height());
  };
  const double tbScale = fit(tb), lrScale = fit(lr);
  if (std::max(tbScale, lrScale) >= kLegibleZoom)
    return lrScale > tbScale ? LayoutDirection::LeftToRight : LayoutDirection::TopToBottom;
  // Too large to read whole either way: lay the drawing's long side along the pane's long side,
  // so that a fit at a legible zoom (see GraphView::fitAll) shows the most of it.
  const bool wide = pane.width() >= pane.height();
  const bool tbWide = tb.width() >= tb.height(), lrWide = lr.width() >= lr.height();
  if (tbWide != lrWide)
    return (lrWide == wide) ? LayoutDirection::LeftToRight : LayoutDirection::TopToBottom;
  return lrScale > tbScale ? LayoutDirection::LeftToRight : LayoutDirection::TopToBottom;
}

LayoutResult computeLayout(const LayoutInput& in, const CancelToken& cancel) {
  QElapsedTimer timer;
  timer.start();
  LayoutResult out;
  out.hash = in.hash;
  const int n = in.nodeCount();
  if (n == 0) return out;
  if (cancel.cancelled()) {
    out.cancelled = true;
    return out;
  }

  const char* engine = layoutEngineFor(n);
  const bool dot = std::string(engine) == "dot";
  const std::lock_guard<std::mutex> lock(graphvizMutex());
  GVC_t* gvc = graphvizContext();
  Agraph_t* g = agopen(cs("g"), Agdirected, nullptr);
  agsafeset(g, cs("rankdir"), cs(in.direction == LayoutDirection::LeftToRight ? "LR" : "TB"),
            cs(""));
  agsafeset(g, cs("nodesep"), cs("0.15"), cs(""));
  agsafeset(g, cs("ranksep"), cs("0.35"), cs(""));
  // Large graphs: straight edge routing and fewer crossing-minimisation passes keep dot within
  // a few seconds; small graphs get Bézier splines.
  if (dot && n > 600) {
    agsafeset(g, cs("splines"), cs("line"), cs(""));
    agsafeset(g, cs("mclimit"), cs("0.5"), cs(""));
  }
  // Many edges between few boxes (a coarse drawing with groups expanded): dot's network simplex
  // and crossing minimisation can run for minutes there (880 edges between 300 groups: 100 s).
  // Bounded, the same drawing takes under 3 s, with straighter but still layered edges.
  if (dot && in.edges.size() > 540) {
    agsafeset(g, cs("splines"), cs("line"), cs(""));
    agsafeset(g, cs("nslimit"), cs("1"), cs(""));
    agsafeset(g, cs("nslimit1"), cs("1"), cs(""));
    agsafeset(g, cs("mclimit"), cs("0.3"), cs(""));
  }
  if (!dot) {
    // sfdp: boxes kept apart, straight edges (the view draws chords), a fixed seed.
    agsafeset(g, cs("overlap"), cs("prism"), cs(""));
    agsafeset(g, cs("splines"), cs("false"), cs(""));
    agsafeset(g, cs("sep"), cs("+6"), cs(""));
  }
  Agsym_t* shape = agattr(g, AGNODE, cs("shape"), cs("box"));
  Agsym_t* fixed = agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  Agsym_t* label = agattr(g, AGNODE, cs("label"), cs(""));
  Agsym_t* width = agattr(g, AGNODE, cs("width"), cs("1"));
  Agsym_t* height = agattr(g, AGNODE, cs("height"), cs("0.3"));
  Agsym_t* arrowsize = agattr(g, AGEDGE, cs("arrowsize"), cs("0.6"));
  (void)shape;
  (void)fixed;
  (void)label;
  (void)arrowsize;
  std::vector<Agnode_t*> nodes(n);
  for (int v = 0; v < n; ++v) {
    std::string name = "n";
    name += std::to_string(v);
    nodes[v] = agnode(g, cs(name.c_str()), 1);
    agxset(nodes[v], width, cs(std::to_string(in.width_pt[v] / 72.0).c_str()));
    agxset(nodes[v], height, cs(std::to_string(in.height_pt[v] / 72.0).c_str()));
  }
  // Clusters (dot only): subgraphs named cluster_*, framed with a margin for their title.
  std::vector<Agraph_t*> clusters;
  if (dot)
    for (size_t c = 0; c < in.clusters.size(); ++c) {
      const std::string name = "cluster_" + std::to_string(c);
      Agraph_t* sub = agsubg(g, cs(name.c_str()), 1);
      agsafeset(sub, cs("margin"), cs("14"), cs(""));
      agsafeset(sub, cs("label"), cs(" "), cs(""));
      for (int v : in.clusters[c])
        if (v >= 0 && v < n) agsubnode(sub, nodes[v], 1);
      clusters.push_back(sub);
    }
  std::vector<Agedge_t*> edges(in.edges.size());
  for (size_t e = 0; e < in.edges.size(); ++e)
    edges[e] = agedge(g, nodes[in.edges[e].first], nodes[in.edges[e].second], nullptr, 1);

  if (cancel.cancelled()) {
    agclose(g);
    out.cancelled = true;
    return out;
  }
  if (gvLayout(gvc, g, engine) != 0) {
    out.error = QStringLiteral("Graphviz %1 layout failed").arg(QString::fromLatin1(engine));
    agclose(g);
    gridFallback(in, out);
    out.seconds = timer.nsecsElapsed() / 1e9;
    return out;
  }
  // Once Graphviz has finished, reading the positions back costs little: a layout abandoned
  // during the call is still completed, so the studio can cache it (its delivery is dropped).
  out.engine = QString::fromLatin1(engine);
  const boxf bb = GD_bb(g);
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  auto map = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };  // y down
  out.centers.resize(n);
  for (int v = 0; v < n; ++v) out.centers[v] = map(ND_coord(nodes[v]));
  out.clusterRects.resize(in.clusters.size());
  for (size_t c = 0; c < clusters.size(); ++c) {
    const boxf cb = GD_bb(clusters[c]);
    out.clusterRects[c] = QRectF(map(cb.LL), map(cb.UR)).normalized();
  }
  out.splines.resize(edges.size());
  out.arrowTip.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    const splines* spl = ED_spl(edges[e]);
    std::vector<QPointF>& pts = out.splines[e];
    const QPointF head = out.centers[in.edges[e].second];
    out.arrowTip[e] = head;
    if (spl && spl->size > 0) {
      const bezier& bz = spl->list[0];
      pts.reserve(bz.size);
      for (int i = 0; i < bz.size; ++i) pts.push_back(map(bz.list[i]));
      if (bz.eflag)
        out.arrowTip[e] = map(bz.ep);
      else if (!pts.empty())
        out.arrowTip[e] = pts.back();
    }
    if (pts.size() < 4) {
      const QPointF a = out.centers[in.edges[e].first];
      pts = {a, a + (head - a) / 3, a + (head - a) * 2 / 3, head};
    }
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  out.seconds = timer.nsecsElapsed() / 1e9;
  return out;
}

}  // namespace doppler::views

#include "views/graph/graph_scene.h"

#include <QGraphicsItem>
#include <QPainter>
#include <QStaticText>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>

#include "views/common/node_details.h"
#include "views/common/theme.h"

namespace doppler::views {

class NodeItem : public QGraphicsItem {
 public:
  NodeItem(int v, QString label, QSizeF size)
      : index(v),
        label(std::move(label)),
        rect(-size.width() / 2, -size.height() / 2, size.width(), size.height()) {
    setZValue(3);
  }
  QRectF boundingRect() const override { return rect.adjusted(-12, -12, 12, 12); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const Theme& t = Theme::current();
    const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
    const QColor border = fill.darker(t.dark ? 60 : 150);
    if (lod < 0.3) {
      p->fillRect(rect, fill);
    } else {
      const bool aa = !fast || lod > 0.6;
      p->setRenderHint(QPainter::Antialiasing, aa);
      p->setPen(QPen(border, 1));
      p->setBrush(hovered ? fill.lighter(125) : fill);
      p->drawRoundedRect(rect, 4, 4);
      if (lod > 0.45) {
        // A prepared text layout: drawing 2,000 labels costs a fraction of laying them out.
        if (text.text().isEmpty()) {
          text.setText(label);
          text.setTextFormat(Qt::PlainText);
          text.prepare(QTransform(), font);
        }
        p->setPen(Theme::textOn(fill));
        p->setFont(font);
        const QSizeF ts = text.size();
        p->drawStaticText(QPointF(-ts.width() / 2, -ts.height() / 2), text);
      }
      p->setRenderHint(QPainter::Antialiasing, true);
    }
    auto ring = [&](const QColor& c, qreal width, qreal grow, Qt::PenStyle style = Qt::SolidLine) {
      QPen pen(c, width, style);
      pen.setJoinStyle(Qt::RoundJoin);
      p->setPen(pen);
      p->setBrush(Qt::NoBrush);
      p->drawRoundedRect(rect.adjusted(-grow, -grow, grow, grow), 4 + grow, 4 + grow);
    };
    const qreal px = 1.0 / std::max(0.01, lod);  // one screen pixel in item units
    if (critical) ring(t.critical, std::max(2.5, 2 * px), 0.5);
    if (moved) ring(t.moved, std::max(2.5, 2.5 * px), std::max(3.5, 2.5 * px), Qt::DashLine);
    if (marked) ring(t.hover, std::max(2.0, 2 * px), std::max(4.5, 3 * px), Qt::DotLine);
    if (hovered) ring(t.hover, std::max(3.0, 3 * px), std::max(2.0, 2 * px));
    if (selected) ring(t.selection, std::max(3.0, 3 * px), std::max(2.0, 2 * px));
  }

  int index;
  QString label;
  QStaticText text;
  QRectF rect;
  QFont font;
  bool fast = false;  // large graphs: no antialiasing when zoomed out
  QColor fill = Qt::gray;
  bool hovered = false, selected = false, critical = false, moved = false, marked = false;
};

class EdgeItem : public QGraphicsItem {
 public:
  EdgeItem(const std::vector<QPointF>& pts, QPointF tip) {
    path.moveTo(pts[0]);
    chord = QLineF(pts[0], tip);
    for (size_t i = 1; i + 2 < pts.size(); i += 3) path.cubicTo(pts[i], pts[i + 1], pts[i + 2]);
    const QPointF base = pts.back();
    QPointF dir = tip - base;
    double len = std::hypot(dir.x(), dir.y());
    if (len < 1e-6) {
      dir = pts.back() - pts[pts.size() - 2];
      len = std::max(1e-6, std::hypot(dir.x(), dir.y()));
    }
    dir /= len;
    const QPointF normal(-dir.y(), dir.x());
    const QPointF b = tip - dir * 7;
    arrow << tip << b + normal * 3.2 << b - normal * 3.2;
    bounds = path.boundingRect().united(arrow.boundingRect()).adjusted(-8, -8, 8, 8);
    setZValue(0);
  }
  QRectF boundingRect() const override { return bounds; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const Theme& t = Theme::current();
    // Overlays stay at least 2 px wide on screen however far the view is zoomed out.
    const qreal lod = std::max(0.01, option->levelOfDetailFromTransform(p->worldTransform()));
    QColor c = cross ? t.crossEdge : t.localEdge;
    qreal w = cross ? width : 1.0;
    if (critical) {
      c = t.critical;
      w = std::max({w, 2.5, 2.0 / lod});
    }
    if (highlighted) {
      c = t.hover.darker(t.dark ? 100 : 115);
      w = std::max({w, 2.5, 2.0 / lod});
    }
    QPen pen(c, w);
    pen.setCapStyle(Qt::FlatCap);
    // Large graphs: thousands of long antialiased strokes cost most of a frame; plain ones a third.
    const bool aa = !fast || critical || highlighted;
    p->setRenderHint(QPainter::Antialiasing, aa);
    p->setPen(pen);
    if (fast && !aa && lod < 0.5) {
      // Zoomed out on a large graph: the chord is indistinguishable from the curve and the
      // arrowhead is a pixel or two; a line costs a fraction of stroking the path.
      p->drawLine(chord);
      p->setRenderHint(QPainter::Antialiasing, true);
      return;
    }
    p->setBrush(Qt::NoBrush);
    p->drawPath(path);
    p->setPen(Qt::NoPen);
    p->setBrush(c);
    p->drawPolygon(arrow);
    p->setRenderHint(QPainter::Antialiasing, true);
  }
  void restack() { setZValue(highlighted ? 2.5 : critical ? 2 : cross ? 1 : 0); }

  QPainterPath path;
  QLineF chord;
  QPolygonF arrow;
  QRectF bounds;
  bool cross = false, critical = false, highlighted = false;
  bool fast = false;
  qreal width = 1;
};

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {}
GraphScene::~GraphScene() = default;

void GraphScene::setGraph(std::shared_ptr<const DataflowGraph> graph, uint64_t layoutHash) {
  if (graph == graph_ && layoutHash == hash_) return;
  clear();
  nodes_.clear();
  edges_.clear();
  layout_.reset();
  graph_ = std::move(graph);
  hash_ = layoutHash;
  hovered_ = selected_ = -1;
  marked_.clear();
  if (snapshot_ && snapshot_->graph != graph_) snapshot_.reset();
  setSceneRect(QRectF());
  Q_EMIT contentChanged();
}

bool GraphScene::setLayout(LayoutResultPtr result) {
  if (!result || !graph_ || result->hash != hash_) return false;
  if (static_cast<int>(result->centers.size()) != graph_->nodeCount()) return false;
  layout_ = std::move(result);
  build();
  return true;
}

void GraphScene::build() {
  clear();
  nodes_.clear();
  edges_.clear();
  const DataflowGraph& g = *graph_;
  const QFont labelFont = font();
  QFontMetricsF fm(labelFont);
  const double h = std::ceil(fm.height() + 10);
  nodes_.reserve(g.nodeCount());
  const bool fast = g.nodeCount() > 600;
  for (int v = 0; v < g.nodeCount(); ++v) {
    const QString label = nodeLabel(g, v);
    const double w = std::max(h * 1.6, std::ceil(fm.horizontalAdvance(label) + 16));
    auto* item = new NodeItem(v, label, QSizeF(w, h));
    item->font = labelFont;
    item->fast = fast;
    item->setPos(layout_->centers[v]);
    addItem(item);
    nodes_.push_back(item);
  }
  edges_.reserve(g.edgeCount());
  for (int e = 0; e < g.edgeCount(); ++e) {
    auto* item = new EdgeItem(layout_->splines[e], layout_->arrowTip[e]);
    item->fast = fast;
    addItem(item);
    edges_.push_back(item);
  }
  setSceneRect(QRectF(-20, -20, layout_->width + 40, layout_->height + 40));
  restyle();
}

void GraphScene::setSnapshot(SnapshotPtr snapshot) {
  snapshot_ = std::move(snapshot);
  if (snapshot_ && snapshot_->graph)
    critical_ = doppler::criticalPath(*snapshot_->graph, snapshot_->sim.schedule);
  else
    critical_ = {};
  restyle();
}

void GraphScene::restyle() {
  crossEdges_ = 0;
  if (nodes_.empty() || !snapshot_ || snapshot_->graph != graph_) {
    Q_EMIT contentChanged();
    return;
  }
  const Assignment& a = snapshot_->assignment;
  const int n = static_cast<int>(nodes_.size());
  std::vector<char> moved(n, 0);
  for (int v : snapshot_->moved)
    if (v >= 0 && v < n) moved[v] = 1;
  std::vector<char> marked(n, 0);
  for (int v : marked_)
    if (v >= 0 && v < n) marked[v] = 1;
  for (int v = 0; v < n; ++v) {
    NodeItem* item = nodes_[v];
    item->fill = Theme::deviceColor(a[v]);
    item->critical =
        showCritical_ && v < static_cast<int>(critical_.onPath.size()) && critical_.onPath[v];
    item->moved = moved[v];
    item->marked = marked[v];
    item->hovered = v == hovered_;
    item->selected = v == selected_;
    item->update();
  }
  const DataflowGraph& g = *graph_;
  double maxTransfer = 0;
  std::vector<double> transfer(g.edgeCount(), 0);
  for (int e = 0; e < g.edgeCount(); ++e) {
    const Edge& edge = g.edge(e);
    if (a[edge.src] != a[edge.dst]) {
      transfer[e] = snapshot_->costs->transfer(e, a[edge.src], a[edge.dst]);
      maxTransfer = std::max(maxTransfer, transfer[e]);
    }
  }
  for (int e = 0; e < g.edgeCount(); ++e) {
    EdgeItem* item = edges_[e];
    const Edge& edge = g.edge(e);
    item->cross = a[edge.src] != a[edge.dst];
    crossEdges_ += item->cross;
    item->width =
        item->cross && maxTransfer > 0 ? 1.2 + 3.3 * std::sqrt(transfer[e] / maxTransfer) : 1;
    item->critical = showCritical_ && e < static_cast<int>(critical_.edgeOnPath.size()) &&
                     critical_.edgeOnPath[e];
    item->highlighted = edge.src == hovered_ || edge.dst == hovered_ || edge.src == selected_ ||
                        edge.dst == selected_;
    item->restack();
    item->update();
  }
  Q_EMIT contentChanged();
}

void GraphScene::setCriticalPathVisible(bool on) {
  if (on == showCritical_) return;
  showCritical_ = on;
  restyle();
}

void GraphScene::highlightNeighbours(int node, bool on) {
  if (node < 0 || !graph_ || edges_.empty()) return;
  for (auto span : {graph_->inEdges(node), graph_->outEdges(node)})
    for (int e : span) {
      const Edge& edge = graph_->edge(e);
      const bool keep = !on && (edge.src == hovered_ || edge.dst == hovered_ ||
                                edge.src == selected_ || edge.dst == selected_);
      edges_[e]->highlighted = on || keep;
      edges_[e]->restack();
      edges_[e]->update();
    }
}

void GraphScene::setHovered(int node) {
  if (node == hovered_) return;
  const int old = hovered_;
  hovered_ = node;
  if (old >= 0 && old < static_cast<int>(nodes_.size())) {
    nodes_[old]->hovered = false;
    nodes_[old]->update();
    highlightNeighbours(old, false);
  }
  if (node >= 0 && node < static_cast<int>(nodes_.size())) {
    nodes_[node]->hovered = true;
    nodes_[node]->update();
    highlightNeighbours(node, true);
  }
}

void GraphScene::setSelected(int node) {
  if (node == selected_) return;
  const int old = selected_;
  selected_ = node;
  if (old >= 0 && old < static_cast<int>(nodes_.size())) {
    nodes_[old]->selected = false;
    nodes_[old]->update();
    highlightNeighbours(old, false);
  }
  if (node >= 0 && node < static_cast<int>(nodes_.size())) {
    nodes_[node]->selected = true;
    nodes_[node]->update();
    highlightNeighbours(node, true);
  }
}

void GraphScene::setMarked(const std::vector<int>& nodes) {
  marked_ = nodes;
  restyle();
}

int GraphScene::nodeAt(const QPointF& scenePos) const {
  for (QGraphicsItem* item : items(scenePos, Qt::IntersectsItemBoundingRect, Qt::DescendingOrder)) {
    if (auto* node = dynamic_cast<NodeItem*>(item))
      if (node->rect.translated(node->pos()).adjusted(-2, -2, 2, 2).contains(scenePos))
        return node->index;
  }
  return -1;
}

QRectF GraphScene::nodeRect(int node) const {
  if (node < 0 || node >= static_cast<int>(nodes_.size())) return {};
  return nodes_[node]->rect.translated(nodes_[node]->pos());
}

int GraphScene::movedCount() const {
  return snapshot_ && snapshot_->graph == graph_ ? static_cast<int>(snapshot_->moved.size()) : 0;
}

}  // namespace doppler::views

#include "views/graph/graph_scene.h"

#include <QGraphicsItem>
#include <QPainter>
#include <QStaticText>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/graph/coarsening.h"
#include "views/common/node_details.h"
#include "views/common/theme.h"
#include "views/stepper/score_scale.h"

namespace doppler::views {
namespace {

QColor blendColors(const QColor& a, const QColor& b, double towardB) {
  return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * towardB,
                          a.greenF() + (b.greenF() - a.greenF()) * towardB,
                          a.blueF() + (b.blueF() - a.blueF()) * towardB);
}

// Zoomed out on a large graph (NodeItem::fast), the nodes and edges with nothing of their own to
// show (no ring, no outline, no label at that zoom) are painted by one BatchLayer per kind,
// grouped by colour: a few fills and line lists instead of thousands of item paints. Below these
// levels of detail an item draws only a flat box or a chord, which is what the batch draws.
constexpr qreal kBatchNodesBelowLod = 0.3;
// The levels of detail from which a node, and a group, draws its own label; below them the scene
// names the heaviest of them itself (GraphScene::landmarks).
constexpr qreal kNodeLabelsAboveLod = 0.45;
constexpr qreal kGroupLabelsAboveLod = 0.3;
constexpr qreal kBatchEdgesBelowLod = 0.5;

}  // namespace

class NodeItem : public QGraphicsItem {
 public:
  NodeItem(int v, QString label, QSizeF size)
      : index(v),
        label(std::move(label)),
        rect(-size.width() / 2, -size.height() / 2, size.width(), size.height()) {
    setZValue(3);
  }
  QRectF boundingRect() const override { return rect.adjusted(-12, -12, 12, 12); }
  // Drawn by the node batch when zoomed out: a large graph's node with no ring or glow.
  bool batched() const {
    return fast && !group && !critical && !moved && !marked && !hovered && !selected &&
           comparedDevice < 0 && step != StepRole::Ready && step != StepRole::Chosen;
  }
  // The fill as drawn: not yet placed, the planned device's colour most of the way to the
  // background.
  QColor shownFill() const {
    const Theme& t = Theme::current();
    const bool faded = step == StepRole::Unplaced || step == StepRole::Ready;
    return faded ? blendColors(fill, t.background, t.dark ? 0.72 : 0.78) : fill;
  }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
    if (lod < kBatchNodesBelowLod && batched()) return;
    const Theme& t = Theme::current();
    const qreal px = 1.0 / std::max(0.01, lod);  // one screen pixel in item units
    const bool faded = step == StepRole::Unplaced || step == StepRole::Ready;
    const QColor shown = shownFill();
    const QColor border =
        faded ? blendColors(fill, t.background, 0.45) : fill.darker(t.dark ? 60 : 150);
    if (step == StepRole::Chosen) {
      // A soft glow under the node, so the pick reads at any zoom.
      const qreal grow = std::max(5.0, 5 * px);
      p->setRenderHint(QPainter::Antialiasing, true);
      p->setPen(Qt::NoPen);
      p->setBrush(stepAccentTint(t.dark ? 90 : 70));
      p->drawRoundedRect(rect.adjusted(-grow, -grow, grow, grow), 4 + grow, 4 + grow);
    }
    if (group) {
      // A group reads as a stack of cards: two offset outlines behind its box.
      const QColor card = blendColors(shown, t.background, 0.45);
      for (int k = 2; k >= 1; --k) {
        const QRectF behind = rect.translated(3.5 * k, -3.5 * k);
        if (lod < 0.3) {
          p->fillRect(behind, k == 2 ? blendColors(card, t.background, 0.4) : card);
          continue;
        }
        p->setRenderHint(QPainter::Antialiasing, true);
        p->setPen(QPen(border, 1));
        p->setBrush(k == 2 ? blendColors(card, t.background, 0.4) : card);
        p->drawRoundedRect(behind, 4, 4);
      }
    }
    if (lod < 0.3) {
      p->fillRect(rect, shown);
      paintShares(p, lod);
    } else {
      const bool aa = !fast || lod > 0.6;
      p->setRenderHint(QPainter::Antialiasing, aa);
      p->setPen(QPen(border, 1));
      p->setBrush(hovered ? shown.lighter(125) : shown);
      p->drawRoundedRect(rect, 4, 4);
      paintShares(p, lod);
      if (lod > kNodeLabelsAboveLod || (group && lod > kGroupLabelsAboveLod)) {
        // A prepared text layout: drawing 2,000 labels costs a fraction of laying them out.
        if (text.text().isEmpty()) {
          text.setText(label);
          text.setTextFormat(Qt::PlainText);
          text.prepare(QTransform(), font);
          if (group) {
            summaryText.setText(summary);
            summaryText.setTextFormat(Qt::PlainText);
            summaryText.prepare(QTransform(), font);
          }
        }
        p->setPen(faded ? t.mutedText : Theme::textOn(fill));
        p->setFont(font);
        const QSizeF ts = text.size();
        if (!group) {
          p->drawStaticText(QPointF(-ts.width() / 2, -ts.height() / 2), text);
        } else {
          // Id above, members and summed cost below (above the share bar).
          const QSizeF ss = summaryText.size();
          const double gap = 1;
          const double top = -(ts.height() + ss.height() + gap) / 2 - 1.5;
          p->drawStaticText(QPointF(-ts.width() / 2, top), text);
          p->drawStaticText(QPointF(-ss.width() / 2, top + ts.height() + gap), summaryText);
        }
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
    if (critical) ring(t.critical, std::max(2.5, 2 * px), 0.5);
    if (step == StepRole::Ready) ring(stepAccent(), std::max(2.0, 2 * px), std::max(1.5, 1.5 * px));
    if (step == StepRole::Chosen)
      ring(stepAccent(), std::max(3.5, 3.5 * px), std::max(2.0, 2 * px));
    if (moved) ring(t.moved, std::max(2.5, 2.5 * px), std::max(3.5, 2.5 * px), Qt::DashLine);
    if (comparedDevice >= 0)
      ring(Theme::deviceColor(comparedDevice), std::max(4.0, 4.0 * px), std::max(2.5, 2.5 * px));
    if (marked) ring(t.hover, std::max(2.0, 2 * px), std::max(4.5, 3 * px), Qt::DotLine);
    if (hovered) ring(t.hover, std::max(3.0, 3 * px), std::max(2.0, 2 * px));
    if (selected) ring(t.selection, std::max(3.0, 3 * px), std::max(2.0, 2 * px));
  }

  // A group's device shares as a bar along its bottom edge (more than one device only).
  void paintShares(QPainter* p, qreal lod) const {
    if (!group || shares.size() < 2) return;
    double total = 0;
    for (const auto& s : shares) total += s.second;
    if (total <= 0) return;
    const double inset = lod < 0.3 ? 0 : 3;
    const double barH = std::max(4.0, 3.0 / std::max(0.05, lod));
    const QRectF bar(rect.left() + inset, rect.bottom() - inset - barH, rect.width() - 2 * inset,
                     barH);
    double x = bar.left();
    p->setPen(Qt::NoPen);
    for (const auto& s : shares) {
      const double w = bar.width() * s.second / total;
      p->fillRect(QRectF(x, bar.top(), w, bar.height()), s.first);
      x += w;
    }
    if (lod >= 0.3) {
      p->setPen(QPen(Theme::current().background, 0.8));
      p->setBrush(Qt::NoBrush);
      p->drawRect(bar);
    }
  }

  int index;
  QString label;
  QStaticText text;
  QString summary;  // groups: members and summed cost
  QStaticText summaryText;
  bool group = false;
  std::vector<std::pair<QColor, double>> shares;  // groups: device colour, compute time
  QRectF rect;
  QFont font;
  bool fast = false;  // large graphs: no antialiasing when zoomed out
  QColor fill = Qt::gray;
  bool hovered = false, selected = false, critical = false, moved = false, marked = false;
  int comparedDevice = -1;  // its device in a compared placement, where that is another (a ring)
  StepRole step = StepRole::None;
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
  // Drawn by the edge batch when zoomed out: a large graph's edge that is not emphasised.
  bool batched() const { return fast && !critical && !highlighted; }
  // The colour and width of an edge that is not emphasised.
  std::pair<QColor, qreal> plainPen() const {
    const Theme& t = Theme::current();
    QColor c = cross ? t.crossEdge : t.localEdge;
    // Faded toward the background rather than translucent: Qt strokes a translucent curve as an
    // outline and fills it (so overlaps do not blend twice), which costs twice the frame.
    if (dim) c = blendColors(c, t.background, 0.72);
    return {c, cross ? width : 1.0};
  }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const Theme& t = Theme::current();
    // Overlays stay at least 2 px wide on screen however far the view is zoomed out.
    const qreal lod = std::max(0.01, option->levelOfDetailFromTransform(p->worldTransform()));
    if (lod < kBatchEdgesBelowLod && batched()) return;
    auto [c, w] = plainPen();
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
  bool dim = false;  // an end is not placed yet at the stepper's step
  bool fast = false;
  qreal width = 1;
};

// The frame around the members of an expanded group, titled with the group's id.
class GroupFrameItem : public QGraphicsItem {
 public:
  GroupFrameItem(QRectF rect, QString title, QFont font)
      : rect(rect), title(std::move(title)), font(std::move(font)) {
    setZValue(-1);
  }
  QRectF boundingRect() const override { return rect.adjusted(-2, -2, 2, 2); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const Theme& t = Theme::current();
    const qreal lod = std::max(0.01, option->levelOfDetailFromTransform(p->worldTransform()));
    p->setRenderHint(QPainter::Antialiasing, true);
    QPen pen(t.mutedText, std::max(1.2, 1.2 / lod), Qt::DashLine);
    p->setPen(pen);
    p->setBrush(blendColors(t.panel, t.background, t.dark ? 0.3 : 0.5));
    p->drawRoundedRect(rect, 8, 8);
    if (lod > 0.3) {
      p->setPen(t.mutedText);
      p->setFont(font);
      p->drawText(rect.adjusted(8, 3, -8, -3), Qt::AlignLeft | Qt::AlignTop,
                  QFontMetricsF(font).elidedText(title, Qt::ElideMiddle, rect.width() - 16));
    }
  }
  QRectF rect;
  QString title;
  QFont font;
};

// The plain nodes or edges of a large graph, zoomed out, in one paint grouped by colour (see
// kBatchNodesBelowLod). Above those levels of detail it draws nothing and the items draw
// themselves; the items it stands for draw nothing below them.
class BatchLayer : public QGraphicsItem {
 public:
  BatchLayer(const std::vector<NodeItem*>* nodes, const std::vector<EdgeItem*>* edges,
             QRectF bounds)
      : nodes_(nodes), edges_(edges), bounds_(bounds) {
    // Edges under everything they connect; nodes under the ringed nodes that draw themselves.
    setZValue(nodes ? 2.9 : 0.5);
  }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
    if (nodes_ && lod < kBatchNodesBelowLod) paintNodes(p, option->exposedRect);
    if (edges_ && lod < kBatchEdgesBelowLod) paintEdges(p);
  }

 private:
  void paintNodes(QPainter* p, const QRectF& exposed) const {
    std::vector<std::pair<QRgb, QList<QRectF>>> byColor;
    for (const NodeItem* n : *nodes_) {
      if (!n->batched()) continue;
      const QRectF r = n->rect.translated(n->pos());
      if (!exposed.isEmpty() && !exposed.intersects(r)) continue;
      const QRgb c = n->shownFill().rgba();
      auto it =
          std::find_if(byColor.begin(), byColor.end(), [c](const auto& b) { return b.first == c; });
      if (it == byColor.end()) it = byColor.insert(byColor.end(), {c, {}});
      it->second.append(r);
    }
    p->setRenderHint(QPainter::Antialiasing, false);
    p->setPen(Qt::NoPen);
    for (const auto& [color, rects] : byColor) {
      p->setBrush(QColor::fromRgba(color));
      p->drawRects(rects.constData(), static_cast<int>(rects.size()));
    }
    p->setRenderHint(QPainter::Antialiasing, true);
  }
  void paintEdges(QPainter* p) const {
    // Same-device edges first, then the cross-device ones over them, as the items stack.
    struct Bucket {
      bool cross;
      QRgb color;
      qreal width;
      QList<QLineF> lines;
    };
    std::vector<Bucket> buckets;
    for (const EdgeItem* e : *edges_) {
      if (!e->batched()) continue;
      const auto [color, width] = e->plainPen();
      // Widths to a tenth: a handful of pens for thousands of edges, none visibly different.
      const qreal w = std::max(0.1, std::round(width * 10) / 10);
      const QRgb c = color.rgba();
      auto it = std::find_if(buckets.begin(), buckets.end(), [&](const Bucket& b) {
        return b.cross == e->cross && b.color == c && b.width == w;
      });
      if (it == buckets.end()) it = buckets.insert(buckets.end(), {e->cross, c, w, {}});
      it->lines.append(e->chord);
    }
    std::stable_sort(buckets.begin(), buckets.end(),
                     [](const Bucket& a, const Bucket& b) { return !a.cross && b.cross; });
    p->setRenderHint(QPainter::Antialiasing, false);
    for (const Bucket& b : buckets) {
      QPen pen(QColor::fromRgba(b.color), b.width);
      pen.setCapStyle(Qt::FlatCap);
      p->setPen(pen);
      p->drawLines(b.lines.constData(), static_cast<int>(b.lines.size()));
    }
    p->setRenderHint(QPainter::Antialiasing, true);
  }

  const std::vector<NodeItem*>* nodes_;
  const std::vector<EdgeItem*>* edges_;
  QRectF bounds_;
};

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  // No BSP index: the view paints most of the scene most of the time (fitted), where walking the
  // tree costs more than testing every item's bounds (2,000 nodes fitted: about 3 ms of 13), and
  // nodeAt() tests the node boxes itself.
  setItemIndexMethod(NoIndex);
}
GraphScene::~GraphScene() = default;

void GraphScene::setGraph(std::shared_ptr<const DataflowGraph> graph, uint64_t layoutHash) {
  if (graph && graph == graph_ && layoutHash == hash_) return;
  setDisplay(graph ? std::make_shared<const DisplayGraph>(
                         DisplayGraph::of(std::move(graph), std::numeric_limits<int>::max()))
                   : nullptr,
             layoutHash);
}

void GraphScene::setDisplay(DisplayGraphPtr display, uint64_t layoutHash) {
  if (display == display_ && layoutHash == hash_) return;
  const bool sameGraph = display && display_ && display->full() == display_->full();
  clear();
  nodes_.clear();
  edges_.clear();
  frames_.clear();
  device_.clear();
  layout_.reset();
  display_ = std::move(display);
  graph_ = display_ ? display_->shown() : nullptr;
  hash_ = layoutHash;
  hovered_ = selected_ = -1;
  if (!sameGraph) marked_.clear();
  if (!sameGraph) comparison_ = {};
  const size_t full = display_ ? display_->fullCount() : 0;
  if (overlay_ && overlay_->placed.size() != full) overlay_.reset();
  roles_.clear();
  if (overlay_) setStepOverlay(overlay_);  // its roles, per drawn node
  if (snapshot_ && (!display_ || snapshot_->graph != display_->full())) snapshot_.reset();
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
  frames_.clear();
  const DataflowGraph& g = *graph_;
  const QFont labelFont = font();
  QFontMetricsF fm(labelFont);
  nodes_.reserve(g.nodeCount());
  const bool fast = g.nodeCount() > 600;
  for (int v = 0; v < g.nodeCount(); ++v) {
    const NodeBox box = nodeBox(*display_, v, fm);
    auto* item = new NodeItem(v, box.label, box.size);
    item->group = display_->isGroup(v);
    item->summary = box.summary;
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
  // Frames around expanded groups: dot's cluster boxes (sfdp has none: the members' bounds).
  std::vector<std::vector<int>> clusters;
  {
    std::vector<int> clusterOf(display_->base() ? display_->base()->nodeCount() : 0, -1);
    for (int v = 0; v < g.nodeCount(); ++v) {
      if (!display_->isExpandedMember(v)) continue;
      int& c = clusterOf[display_->baseGroupOf(v)];
      if (c < 0) {
        c = static_cast<int>(clusters.size());
        clusters.emplace_back();
      }
      clusters[c].push_back(v);
    }
  }
  for (size_t c = 0; c < clusters.size(); ++c) {
    QRectF r = c < layout_->clusterRects.size() ? layout_->clusterRects[c] : QRectF();
    if (r.isEmpty())
      for (int v : clusters[c])
        r |= nodes_[v]->rect.translated(nodes_[v]->pos()).adjusted(-12, -22, 12, 10);
    const int group = display_->baseGroupOf(clusters[c].front());
    const QString title = QStringLiteral("%1 \u00b7 %2 nodes")
                              .arg(QString::fromStdString(display_->base()->node(group).id))
                              .arg(display_->base()->groups->members[group].size());
    auto* frame = new GroupFrameItem(r, title, labelFont);
    addItem(frame);
    frames_.push_back(frame);
  }
  setSceneRect(QRectF(-20, -20, layout_->width + 40, layout_->height + 40));
  if (fast) {
    addItem(new BatchLayer(nullptr, &edges_, sceneRect()));
    addItem(new BatchLayer(&nodes_, nullptr, sceneRect()));
  }
  restyle();
}

void GraphScene::setSnapshot(SnapshotPtr snapshot) {
  snapshot_ = std::move(snapshot);
  if (comparing() && comparison_.against != snapshot_) comparison_ = {};
  if (snapshot_ && snapshot_->critical)
    critical_ = *snapshot_->critical;  // found by the worker that placed it
  else if (snapshot_ && snapshot_->graph)
    critical_ = doppler::criticalPath(*snapshot_->graph, snapshot_->sim.schedule);
  else
    critical_ = {};
  restyle();
}

void GraphScene::restyle() {
  crossEdges_ = 0;
  device_.clear();
  workUs_.clear();
  if (nodes_.empty() || !snapshot_ || !display_ || snapshot_->graph != display_->full()) {
    Q_EMIT contentChanged();
    return;
  }
  const DisplayGraph& d = *display_;
  const int n = static_cast<int>(nodes_.size());
  const int full = d.fullCount();
  // While stepping, the plan's devices: an override's branch places nodes elsewhere than the
  // snapshot, and the not-yet-placed nodes show where the plan will put them.
  const bool stepping = overlay_ && static_cast<int>(roles_.size()) == n;
  Assignment planned;
  if (stepping) {
    planned = snapshot_->assignment;
    const int devices = snapshot_->costs ? snapshot_->costs->devices() : 0;
    for (const NodeSpan& span : overlay_->plan.nodes)
      if (span.node >= 0 && span.node < full && span.device >= 0 && span.device < devices)
        planned[span.node] = span.device;
  }
  const Assignment& a = stepping ? planned : snapshot_->assignment;
  const DisplayPlacement placed =
      placementOnDisplay(d, *snapshot_, a, showCritical_ ? &critical_ : nullptr);
  device_ = placed.device;
  workUs_ = placed.workUs;
  // The moved outlines compare the tuner's last two placements; while stepping they would be
  // read as the branch's changes, so they rest. Full nodes light the drawn node holding them.
  std::vector<char> moved(n, 0);
  if (!stepping)
    for (int v : snapshot_->moved)
      if (const int shown = d.shownOf(v); shown >= 0) moved[shown] = 1;
  std::vector<char> marked(n, 0);
  for (int v : marked_)
    if (const int shown = d.shownOf(v); shown >= 0) marked[shown] = 1;
  // A comparison rings the nodes that sit elsewhere in the other placement; the fill is always
  // the shown placement's device, the one the header, the timeline and the details name.
  std::vector<int> elsewhere(n, -1);
  if (!stepping)
    for (const Comparison::Move& m : comparison_.moves)
      if (const int shown = d.shownOf(m.node); shown >= 0) elsewhere[shown] = m.device;
  for (int v = 0; v < n; ++v) {
    NodeItem* item = nodes_[v];
    item->fill = Theme::deviceColor(placed.device[v]);
    item->comparedDevice = elsewhere[v];
    item->critical = placed.onCritical[v];
    item->moved = moved[v];
    item->marked = marked[v];
    item->hovered = v == hovered_;
    item->selected = v == selected_;
    item->step = stepping ? roles_[v] : StepRole::None;
    item->shares.clear();
    if (item->group && v < static_cast<int>(placed.shareUs.size()))
      for (size_t dev = 0; dev < placed.shareUs[v].size(); ++dev)
        if (placed.shareUs[v][dev] > 0)
          item->shares.emplace_back(Theme::deviceColor(static_cast<int>(dev)),
                                    placed.shareUs[v][dev]);
    // Candidates and the pick above their neighbours, so their outlines are never covered.
    item->setZValue(item->step == StepRole::Chosen ? 5 : item->step == StepRole::Ready ? 4 : 3);
    item->update();
  }
  auto solid = [&](int v) {
    return !stepping || roles_[v] == StepRole::Placed || roles_[v] == StepRole::Chosen;
  };
  const DataflowGraph& g = *graph_;
  double maxTransfer = 0;
  for (double t : placed.edgeTransferUs) maxTransfer = std::max(maxTransfer, t);
  for (int e = 0; e < g.edgeCount(); ++e) {
    EdgeItem* item = edges_[e];
    const Edge& edge = g.edge(e);
    item->cross = placed.edgeCross[e];
    item->width = item->cross && maxTransfer > 0
                      ? 1.2 + 3.3 * std::sqrt(placed.edgeTransferUs[e] / maxTransfer)
                      : 1;
    item->critical = placed.edgeCritical[e];
    item->highlighted = edge.src == hovered_ || edge.dst == hovered_ || edge.src == selected_ ||
                        edge.dst == selected_;
    item->dim = !solid(edge.src) || !solid(edge.dst);
    item->restack();
    item->update();
  }
  // The header counts the graph's own edges that cross devices, drawn or inside a group.
  const DataflowGraph& fg = *d.full();
  for (const Edge& edge : fg.edges()) crossEdges_ += a[edge.src] != a[edge.dst];
  Q_EMIT contentChanged();
}

int GraphScene::nodeDevice(int node) const {
  return node >= 0 && node < static_cast<int>(device_.size()) ? device_[node] : -1;
}

QColor GraphScene::nodeFill(int node) const {
  return node >= 0 && node < static_cast<int>(nodes_.size()) ? nodes_[node]->fill : QColor();
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

void GraphScene::setComparison(Comparison comparison) {
  if (comparison.other.isEmpty()) comparison = {};
  comparison_ = std::move(comparison);
  restyle();
}

int GraphScene::comparedDevice(int node) const {
  for (const Comparison::Move& m : comparison_.moves)
    if (m.node == node) return m.device;
  return -1;
}

int GraphScene::nodeAt(const QPointF& scenePos) const {
  // Nodes share one z-value: the one added last is drawn on top.
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it)
    if ((*it)->rect.translated((*it)->pos()).adjusted(-2, -2, 2, 2).contains(scenePos))
      return (*it)->index;
  return -1;
}

QRectF GraphScene::nodeRect(int node) const {
  if (node < 0 || node >= static_cast<int>(nodes_.size())) return {};
  return nodes_[node]->rect.translated(nodes_[node]->pos());
}

int GraphScene::movedCount() const {
  if (overlay_) return 0;  // not drawn while stepping (see restyle)
  // The placement is of the full graph, also when the drawing is of its groups (whose rings
  // then stand for the moved members they hold).
  const bool same = snapshot_ && display_ && snapshot_->graph == display_->full();
  return same ? static_cast<int>(snapshot_->moved.size()) : 0;
}

void GraphScene::setStepOverlay(StepOverlayPtr overlay) {
  const int full = display_ ? display_->fullCount() : 0;
  if (overlay && (static_cast<int>(overlay->placed.size()) != full ||
                  static_cast<int>(overlay->plan.nodes.size()) != full))
    overlay.reset();  // for another graph
  overlay_ = std::move(overlay);
  roles_.clear();
  if (overlay_) {
    // A drawn group is placed once all its members are; it is ready or chosen with any member.
    const DisplayGraph& d = *display_;
    const int n = d.shownCount();
    roles_.assign(n, StepRole::Placed);
    for (int v = 0; v < full; ++v)
      if (!overlay_->placed[v]) roles_[d.shownOf(v)] = StepRole::Unplaced;
    for (const CandidateScore& c : overlay_->ready)
      if (c.node >= 0 && c.node < full) roles_[d.shownOf(c.node)] = StepRole::Ready;
    if (overlay_->chosen >= 0 && overlay_->chosen < full)
      roles_[d.shownOf(overlay_->chosen)] = StepRole::Chosen;
  }
  restyle();
}

StepRole GraphScene::stepRole(int node) const {
  return node >= 0 && node < static_cast<int>(roles_.size()) ? roles_[node] : StepRole::None;
}

void GraphScene::paintStepBadges(QPainter& p, const QTransform& toDevice, const QFont& font) const {
  if (!overlay_ || !overlay_->node_scored || roles_.empty() || nodes_.empty()) return;
  const Theme& t = Theme::current();
  QFont small = font;
  if (small.pointSizeF() > 0) small.setPointSizeF(small.pointSizeF() * 0.85);
  QFont bold = small;
  bold.setBold(true);
  const QFontMetricsF fm(small), fmBold(bold);
  const double zoom = std::sqrt(std::abs(toDevice.determinant()));
  const double nodeHeight = nodes_[0]->rect.height() * zoom;
  // Badges bigger than the nodes they label would bury the graph: then only the pick's.
  const bool all = nodeHeight >= fm.height() * 0.55;

  struct Badge {
    int node;
    double score;
    bool chosen;
  };
  std::vector<Badge> badges;
  std::vector<char> badged(nodes_.size(), 0);
  for (const CandidateScore& c : overlay_->ready) {
    const int shown = display_->shownOf(c.node);
    if (shown < 0 || shown >= static_cast<int>(nodes_.size())) continue;
    const bool chosen = c.node == overlay_->chosen;
    if (!(chosen || all) || (badged[shown] && !chosen)) continue;
    badged[shown] = 1;
    badges.push_back({shown, c.score, chosen});
  }
  // The pick first, then best score first: those keep their place when badges collide.
  const bool higher = overlay_->node_higher_better;
  std::stable_sort(badges.begin(), badges.end(), [higher](const Badge& a, const Badge& b) {
    if (a.chosen != b.chosen) return a.chosen;
    return higher ? a.score > b.score : a.score < b.score;
  });
  constexpr size_t kMaxBadges = 80;
  if (badges.size() > kMaxBadges) badges.resize(kMaxBadges);

  const QRectF visible = p.viewport().isEmpty() ? QRectF() : QRectF(p.window());
  // Badges keep off the other nodes' labels where they can; only the nodes on screen matter.
  std::vector<QRectF> nodesOnScreen;
  nodesOnScreen.reserve(nodes_.size());
  for (const NodeItem* item : nodes_) {
    const QRectF r = toDevice.mapRect(item->rect.translated(item->pos()));
    if (visible.isEmpty() || visible.intersects(r)) nodesOnScreen.push_back(r);
  }
  std::vector<QRectF> taken;
  taken.reserve(badges.size());
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  for (const Badge& b : badges) {
    const QString text = formatScore(b.score, overlay_->node_score);
    const QFontMetricsF& m = b.chosen ? fmBold : fm;
    const QSizeF size(m.horizontalAdvance(text) + 10, m.height() + 2);
    const QRectF node = toDevice.mapRect(nodes_[b.node]->rect.translated(nodes_[b.node]->pos()));
    // Beside the node (between the ranks of a left-to-right layout), else above or below it (a
    // top-to-bottom one): the first place that covers no other badge and no other node.
    const double midY = node.center().y() - size.height() / 2;
    const QPointF corners[] = {
        {node.right() + 3, midY},
        {node.left() - 3 - size.width(), midY},
        {node.right() - size.width() + 6, node.top() - size.height() + 3},
        {node.right() - size.width() + 6, node.bottom() - 3},
        {node.left() - 6, node.top() - size.height() + 3},
        {node.left() - 6, node.bottom() - 3},
    };
    auto hits = [](const std::vector<QRectF>& rects, const QRectF& r, const QRectF& except) {
      for (const QRectF& o : rects)
        if (o != except && o.intersects(r)) return true;
      return false;
    };
    QRectF where, fallback;
    for (const QPointF& corner : corners) {
      const QRectF r(corner, size);
      if (hits(taken, r, QRectF())) continue;
      if (!hits(nodesOnScreen, r, node)) {
        where = r;
        break;
      }
      if (fallback.isNull()) fallback = r;
    }
    if (where.isNull()) where = fallback;
    if (where.isNull()) {
      if (!b.chosen) continue;
      where = QRectF(corners[0], size);
    }
    taken.push_back(where);
    if (!visible.isEmpty() && !visible.intersects(where)) continue;
    const QColor accent = stepAccent();
    p.setPen(QPen(accent, 1.2));
    p.setBrush(b.chosen ? accent : t.background);
    p.drawRoundedRect(where, where.height() / 2, where.height() / 2);
    p.setFont(b.chosen ? bold : small);
    p.setPen(b.chosen ? Theme::textOn(accent) : t.text);
    p.drawText(where, Qt::AlignCenter, text);
  }
  p.restore();
}

std::vector<GraphScene::Landmark> GraphScene::landmarks(const QTransform& toDevice,
                                                        const QFont& font,
                                                        const QRectF& visible) const {
  std::vector<Landmark> out;
  if (nodes_.empty() || !display_ || overlay_) return out;  // stepping: the badges speak
  const double zoom = std::sqrt(std::abs(toDevice.determinant()));
  if (zoom > kNodeLabelsAboveLod) return out;
  const DisplayGraph& d = *display_;
  std::vector<int> order;
  for (int v = 0; v < static_cast<int>(nodes_.size()); ++v)
    if (!(nodes_[v]->group && zoom > kGroupLabelsAboveLod)) order.push_back(v);
  auto work = [&](int v) { return v < static_cast<int>(workUs_.size()) ? workUs_[v] : 0.0; };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const int ma = d.memberCount(a), mb = d.memberCount(b);
    return ma != mb ? ma > mb : work(a) > work(b);
  });
  const QFontMetricsF fm(font);
  // Names never cover a node: the colour of a node is the placement. So they sit beside their
  // node in the gaps of the drawing, as many as the gaps hold, and at most one per ~220 x 90 px
  // of view (a map names dozens of places, not hundreds).
  std::vector<QRectF> boxes;
  boxes.reserve(nodes_.size());
  for (const NodeItem* item : nodes_)
    boxes.push_back(toDevice.mapRect(item->rect.translated(item->pos())));
  const double area = visible.isEmpty() ? 1366.0 * 768.0 : visible.width() * visible.height();
  const size_t most = static_cast<size_t>(std::clamp(area / (220.0 * 90.0), 4.0, 30.0));
  for (int v : order) {
    if (out.size() >= most) break;
    const QRectF& box = boxes[v];
    if (!visible.isEmpty() && !visible.contains(box.center())) continue;
    QString text = QString::fromStdString(graph_->node(v).id);
    if (d.isGroup(v)) text += QStringLiteral(" \u00b7 \u00d7%1").arg(d.memberCount(v));
    text = fm.elidedText(text, Qt::ElideMiddle, 220);
    const QSizeF size(fm.horizontalAdvance(text) + 12, fm.height() + 4);
    const QPointF c = box.center();
    const double w = size.width(), h = size.height();
    const QRectF places[] = {{c.x() - w / 2, box.top() - h - 2, w, h},    // above
                             {c.x() - w / 2, box.bottom() + 2, w, h},     // below
                             {box.right() + 3, c.y() - h / 2, w, h},      // right
                             {box.left() - 3 - w, c.y() - h / 2, w, h}};  // left
    for (const QRectF& r : places) {
      if (!visible.isEmpty() && !visible.contains(r)) continue;
      if (std::any_of(out.begin(), out.end(), [&](const Landmark& l) {
            return l.rect.adjusted(-14, -8, 14, 8).intersects(r);
          }))
        continue;
      bool covers = false;
      for (size_t u = 0; u < boxes.size() && !covers; ++u)
        covers = static_cast<int>(u) != v && boxes[u].intersects(r);
      if (covers) continue;
      out.push_back({v, text, r});
      break;
    }
  }
  return out;
}

void GraphScene::paintLandmarks(QPainter& p, const QTransform& toDevice, const QFont& font,
                                const QRectF& visible) const {
  const std::vector<Landmark> marks = landmarks(toDevice, font, visible);
  if (marks.empty()) return;
  const Theme& t = Theme::current();
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setFont(font);
  QColor back = t.background;
  back.setAlpha(225);
  for (const Landmark& m : marks) {
    // Outlined in the colour the node is filled with, so a name reads as its node's.
    p.setPen(QPen(nodeFill(m.node), 1.6));
    p.setBrush(back);
    p.drawRoundedRect(m.rect, 4, 4);
    p.setPen(t.text);
    p.drawText(m.rect, Qt::AlignCenter, m.text);
  }
  p.restore();
}

}  // namespace doppler::views

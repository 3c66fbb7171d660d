#include "views/graph/graph_view.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QFontInfo>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "views/common/node_details.h"
#include "views/common/node_search.h"
#include "views/common/selection_state.h"
#include "views/common/shortcuts.h"
#include "views/common/theme.h"
#include "views/stepper/score_scale.h"

namespace doppler::views {
namespace {

QString count(long n) {
  return QLocale(QLocale::English).toString(static_cast<qlonglong>(n));
}

}  // namespace

// A small overview of the whole graph with the visible area outlined; click or drag to move.
class GraphMinimap : public QWidget {
 public:
  explicit GraphMinimap(GraphView* view) : QWidget(view), view_(view) {
    setObjectName(QStringLiteral("minimap"));
    setCursor(Qt::PointingHandCursor);
    hide();
  }
  void invalidate() {
    dirty_ = true;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    GraphScene* scene = view_->graphScene();
    const Theme& t = Theme::current();
    const QRectF sr = scene->sceneRect();
    if (sr.isEmpty()) return;
    if (dirty_ || cache_.size() != size() * devicePixelRatioF()) {
      cache_ = QPixmap(size() * devicePixelRatioF());
      cache_.setDevicePixelRatio(devicePixelRatioF());
      cache_.fill(t.panel);
      QPainter cp(&cache_);
      cp.setRenderHint(QPainter::Antialiasing);
      scene->render(&cp, QRectF(2, 2, width() - 4, height() - 4), sr, Qt::KeepAspectRatio);
      dirty_ = false;
    }
    QPainter p(this);
    p.drawPixmap(0, 0, cache_);
    p.setPen(QPen(t.mutedText, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
    p.setPen(QPen(t.rangeEdge, 1.5));
    p.setBrush(t.rangeFill);
    p.drawRect(toMini(visible).intersected(QRectF(rect())));
  }
  void mousePressEvent(QMouseEvent* e) override { moveTo(e->position()); }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (e->buttons() & Qt::LeftButton) moveTo(e->position());
  }

 private:
  QTransform sceneToMini() const {
    const QRectF sr = view_->graphScene()->sceneRect();
    const QRectF target(2, 2, width() - 4, height() - 4);
    const double s = std::min(target.width() / sr.width(), target.height() / sr.height());
    const double ox = target.left() + (target.width() - sr.width() * s) / 2;
    const double oy = target.top() + (target.height() - sr.height() * s) / 2;
    return QTransform::fromTranslate(-sr.left(), -sr.top()) * QTransform::fromScale(s, s) *
           QTransform::fromTranslate(ox, oy);
  }
  QRectF toMini(const QRectF& r) const { return sceneToMini().mapRect(r); }
  void moveTo(const QPointF& p) {
    view_->centerOn(sceneToMini().inverted().map(p));
    update();
  }

  GraphView* view_;
  QPixmap cache_;
  bool dirty_ = true;
};

GraphView::GraphView(SelectionState* selection, QWidget* parent)
    : QGraphicsView(parent), selection_(selection), scene_(new GraphScene(this)) {
  setObjectName(QStringLiteral("graphView"));
  QFont labelFont = QApplication::font();
  scene_->setFont(labelFont);
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setViewportUpdateMode(FullViewportUpdate);
  setDragMode(ScrollHandDrag);
  setTransformationAnchor(AnchorUnderMouse);
  setResizeAnchor(AnchorViewCenter);
  setFrameShape(QFrame::NoFrame);
  // Navigation is by drag, wheel, keys and the minimap. Scroll bars that come and go with the
  // zoom would change the viewport, so F after a zoom would fit to a different scale.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setMouseTracking(true);
  viewport()->setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAcceptDrops(false);
  viewport()->setAcceptDrops(false);
  setMinimumSize(200, 150);

  minimap_ = new GraphMinimap(this);
  searchEdit_ = new QLineEdit(this);
  searchEdit_->setObjectName(QStringLiteral("graphSearch"));
  searchEdit_->setPlaceholderText(tr("Find node by id or op (Enter: next, Esc: close)"));
  searchEdit_->setClearButtonEnabled(true);
  searchEdit_->hide();
  cancelButton_ = new QToolButton(this);
  cancelButton_->setObjectName(QStringLiteral("cancelLayout"));
  cancelButton_->setText(tr("Cancel layout (Esc)"));
  cancelButton_->setToolTip(
      tr("Stop waiting for this layout and keep working; Graphviz finishes it in the background "
         "and its result is dropped"));
  cancelButton_->hide();
  connect(cancelButton_, &QToolButton::clicked, this, &GraphView::cancelLayout);
  searchInfo_ = new QLabel(this);
  searchInfo_->setAutoFillBackground(true);
  searchInfo_->hide();
  connect(searchEdit_, &QLineEdit::textChanged, this,
          [this](const QString& text) { search(text); });
  connect(searchEdit_, &QLineEdit::returnPressed, this,
          [this] { search(searchEdit_->text(), true); });

  connect(scene_, &GraphScene::contentChanged, this, [this] {
    minimap_->invalidate();
    updateMinimap();
    viewport()->update();
  });
  if (selection_) {
    connect(selection_, &SelectionState::selectedChanged, this, [this](int v) {
      scene_->setSelected(shownNodeOf(v));
      ensureNodeVisible(shownNodeOf(v));
    });
    connect(selection_, &SelectionState::hoveredChanged, this,
            [this](int v) { scene_->setHovered(shownNodeOf(v)); });
  }
}

GraphView::~GraphView() = default;

void GraphView::setGraph(std::shared_ptr<const DataflowGraph> graph) {
  if (graph && display_ && graph == display_->full()) return;
  // Coarsening 20,000 nodes takes a few milliseconds; the layout is what goes to the worker.
  setDisplay(graph ? std::make_shared<const DisplayGraph>(DisplayGraph::of(std::move(graph)))
                   : nullptr);
}

void GraphView::setDisplay(DisplayGraphPtr display) {
  matches_.clear();
  matchCursor_ = -1;
  pending_.reset();
  pendingHash_ = 0;
  focusGroup_ = -1;
  layoutCancelled_ = false;
  cancelButton_->hide();
  if (!display) {
    display_.reset();
    scene_->setDisplay(nullptr, 0);
    viewport()->update();
    return;
  }
  // The pane below the view's header; before the view is shown, a typical pane.
  const QSizeF pane = viewport()->height() > 100
                          ? QSizeF(viewport()->width(), viewport()->height() - 40)
                          : QSizeF(1100, 480);
  direction_ = directionChoice_ ? *directionChoice_ : preferredDirection(*display->shown(), pane);
  requestLayoutOf(std::move(display), true);
}

void GraphView::requestLayoutOf(DisplayGraphPtr display, bool replaceNow) {
  auto input = std::make_shared<LayoutInput>(makeLayoutInput(*display, scene_->font(), direction_));
  if (replaceNow) {
    display_ = display;
    scene_->setDisplay(display, input->hash);
    fitPending_ = true;
  }
  pending_ = std::move(display);
  pendingHash_ = input->hash;
  layoutCancelled_ = false;
  cancelButton_->show();
  placeOverlays();
  viewport()->update();
  Q_EMIT layoutRequested(input);  // may answer at once (tests): setLayoutResult clears pending_
}

int GraphView::shownNodeOf(int node) const {
  return display_ ? display_->shownOf(node) : -1;
}

bool GraphView::expandGroup(int node) {
  if (!display_ || !display_->isGroup(node)) return false;
  std::vector<int> groups = (pending_ ? pending_ : display_)->expanded();
  const int group = display_->baseGroupOf(node);
  if (std::find(groups.begin(), groups.end(), group) != groups.end()) return false;
  groups.push_back(group);
  focusGroup_ = group;
  requestLayoutOf(std::make_shared<const DisplayGraph>(display_->withExpanded(groups)), false);
  return true;
}

bool GraphView::collapseGroup(int node) {
  if (!display_ || !display_->isExpandedMember(node)) return false;
  std::vector<int> groups = (pending_ ? pending_ : display_)->expanded();
  const int group = display_->baseGroupOf(node);
  std::erase(groups, group);
  focusGroup_ = group;
  requestLayoutOf(std::make_shared<const DisplayGraph>(display_->withExpanded(groups)), false);
  return true;
}

void GraphView::collapseAll() {
  if (!display_ || display_->expanded().empty()) return;
  focusGroup_ = -1;
  fitPending_ = true;
  requestLayoutOf(std::make_shared<const DisplayGraph>(display_->withExpanded({})), false);
}

void GraphView::cancelLayout() {
  if (!layoutPending()) return;
  pending_.reset();
  pendingHash_ = 0;
  focusGroup_ = -1;
  layoutCancelled_ = !hasLayout();
  cancelButton_->hide();
  Q_EMIT layoutCancelRequested();
  viewport()->update();
}

void GraphView::relayout() {
  if (!display_ || layoutPending()) return;
  requestLayoutOf(display_, !hasLayout());
}

void GraphView::setLayoutDirectionChoice(std::optional<LayoutDirection> fixed) {
  directionChoice_ = fixed;
  if (!display_) return;
  if (fixed)
    direction_ = *fixed;
  else {
    const QSizeF pane = viewport()->height() > 100
                            ? QSizeF(viewport()->width(), viewport()->height() - 40)
                            : QSizeF(1100, 480);
    direction_ = preferredDirection(*display_->shown(), pane);
  }
  requestLayoutOf(display_, true);  // the same drawing: the placement stays shown
}

void GraphView::flipLayoutDirection() {
  setLayoutDirectionChoice(direction_ == LayoutDirection::TopToBottom
                               ? LayoutDirection::LeftToRight
                               : LayoutDirection::TopToBottom);
}

void GraphView::setLayoutResult(LayoutResultPtr layout) {
  if (!layout) return;
  if (pendingHash_ != 0 && layout->hash == pendingHash_) {
    // The drawing this layout was asked for replaces the one shown (same graph: the placement,
    // the marks and the stepper's overlay stay; the selection is mapped again below).
    if (scene_->layoutHash() != pendingHash_ || scene_->display() != pending_) {
      const bool changed = display_ != pending_;
      display_ = pending_;
      scene_->setDisplay(pending_, pendingHash_);
      if (changed) Q_EMIT displayChanged();
    }
    pending_.reset();
    pendingHash_ = 0;
    cancelButton_->hide();
  }
  if (!scene_->setLayout(std::move(layout))) return;
  layoutCancelled_ = false;
  syncSelection();
  if (focusGroup_ >= 0 && display_) {
    // Centre on what changed: the expanded group's frame, or the group it collapsed into.
    QRectF focus;
    for (int v = 0; v < display_->shownCount(); ++v)
      if (display_->baseGroupOf(v) == focusGroup_) focus |= scene_->nodeRect(v);
    focusGroup_ = -1;
    fitPending_ = false;
    if (atFit_) fitAll();
    if (!focus.isEmpty()) {
      if (zoom() < 0.45) zoomBy(std::min(1.0, 0.8 * viewport()->width() / focus.width()) / zoom());
      centerOn(focus.center());
    }
  } else if (fitPending_) {
    fitAll();
  }
  updateMinimap();
  viewport()->update();
}

void GraphView::syncSelection() {
  if (!selection_) return;
  scene_->setSelected(shownNodeOf(selection_->selected()));
  scene_->setHovered(shownNodeOf(selection_->hovered()));
}

void GraphView::setSnapshot(SnapshotPtr snapshot) {
  if (snapshot && (!display_ || snapshot->graph != display_->full())) setGraph(snapshot->graph);
  scene_->setSnapshot(std::move(snapshot));
  // The header grows with a placement (devices, method, legend): a fitted view fits again.
  if (atFit_ && hasLayout()) fitAll();
  viewport()->update();
}

double GraphView::zoom() const {
  return transform().m11();
}

void GraphView::setCriticalPathVisible(bool on) {
  scene_->setCriticalPathVisible(on);
  viewport()->update();
}

void GraphView::setStepOverlay(StepOverlayPtr overlay) {
  const bool had = scene_->stepOverlay() != nullptr;
  const int before = had == (overlay != nullptr) ? -1 : currentHeaderHeight();
  scene_->setStepOverlay(std::move(overlay));
  // The legend gains or loses the stepper's rows: a fitted view fits again under it. Steps
  // alone keep the header's height, so stepping never moves the graph.
  if (before >= 0 && before != currentHeaderHeight() && atFit_ && hasLayout()) fitAll();
  // Zoomed in (or fitted along the breadth of a large graph), the view follows the chosen node:
  // a step whose pick lies off screen would otherwise show nothing happening.
  if (const StepOverlayPtr& o = scene_->stepOverlay(); o && o->chosen >= 0 && hasLayout())
    ensureNodeVisible(shownNodeOf(o->chosen));
  viewport()->update();
}

int GraphView::nodeAtViewport(const QPoint& pos) const {
  if (!hasLayout()) return -1;
  return scene_->nodeAt(mapToScene(pos));
}

QPoint GraphView::viewportPosOfNode(int node) const {
  const QRectF r = scene_->nodeRect(node);
  return r.isEmpty() ? QPoint(-1, -1) : mapFromScene(r.center());
}

int GraphView::currentHeaderHeight() const {
  return headerHeight(header(), font(), viewport()->width());
}

ViewHeader GraphView::header() const {
  ViewHeader h;
  h.title = tr("Dataflow graph");
  const SnapshotPtr& s = scene_->snapshot();
  const auto& g = scene_->graph();
  if (!g) return h;
  const DataflowGraph& full = display_ ? *display_->full() : *g;
  QStringList parts;
  parts << QString::fromStdString(full.name.empty() ? std::string("unnamed") : full.name)
        << tr("%1 nodes, %2 edges").arg(count(full.nodeCount()), count(full.edgeCount()));
  // Which layout engine drew what: "dot · 312 groups of 20,000 nodes".
  if (const LayoutResultPtr& layout = scene_->layout(); layout && display_) {
    const QString engine = layout->engine.isEmpty() ? tr("grid") : layout->engine;
    if (display_->coarse()) {
      QString drawn = tr("%1 · %2 groups of %3 nodes")
                          .arg(engine, count(display_->shownCount()), count(full.nodeCount()));
      if (!display_->expanded().empty())
        drawn += tr(", %n expanded", nullptr, static_cast<int>(display_->expanded().size()));
      parts << drawn;
    } else {
      parts << engine;
    }
  }
  if (layoutPending() && pending_)
    parts << tr("laying out %1 with %2… (Esc cancels)")
                 .arg(count(pending_->shownCount()),
                      QString::fromLatin1(layoutEngineFor(pending_->shownCount())));
  if (s && display_ && s->graph == display_->full()) {
    // The makespan too, labelled, so that the graph presented alone or exported into slides says
    // what the placement achieves (the stepper's overlay has its own, planned, in the timeline).
    // While stepping, the fill is the stepped plan's, not the tuner's placement: the header
    // names the plan.
    const StepOverlayPtr& stepping = scene_->stepOverlay();
    parts << QString::fromStdString(s->devices->name)
          << (stepping && !stepping->source.empty()
                  ? tr("stepping %1").arg(QString::fromStdString(stepping->source))
                  : QString::fromStdString(s->settings.method));
    if (!stepping) parts << tr("simulated makespan %1").arg(formatDuration(s->makespan()));
    parts << tr("%1 edges cross devices").arg(scene_->crossEdgeCount());
    const int d = s->devices->size();
    const int shown = std::min(d, 12);
    for (int i = 0; i < shown; ++i)
      h.legend.push_back({LegendEntry::Kind::Swatch, Theme::deviceColor(i), deviceName(*s, i)});
    if (shown < d)
      h.legend.push_back(
          {LegendEntry::Kind::Swatch, Theme::deviceColor(shown), tr("… %1 devices").arg(d)});
    const Theme& t = Theme::current();
    h.legend.push_back(
        {LegendEntry::Kind::Line, t.crossEdge, tr("cross-device edge (width ∝ transfer time)"), 3});
    h.legend.push_back({LegendEntry::Kind::Line, t.localEdge, tr("same-device edge"), 1});
    if (display_ && display_->coarse())
      h.legend.push_back({LegendEntry::Kind::Outline, t.mutedText,
                          tr("group: members, summed cost; coloured by the device with most of "
                             "its work, bar: device shares; double-click expands"),
                          1});
    if (scene_->criticalPathVisible())
      h.legend.push_back({LegendEntry::Kind::Outline, t.critical, tr("critical path"), 2.5});
    if (scene_->movedCount() > 0)
      h.legend.push_back({LegendEntry::Kind::DashedOutline, t.moved,
                          tr("moved device since last setting (%1)").arg(scene_->movedCount()), 2});
    if (scene_->comparing() && !scene_->stepOverlay()) {
      // The mode says what it compares; the fill stays the shown placement's.
      const GraphScene::Comparison& c = scene_->comparison();
      h.title = tr("Dataflow graph — comparing %1 → %2").arg(c.shown, c.other);
      parts.prepend(tr("%n node(s) elsewhere in %1 (Esc leaves the comparison)", nullptr,
                       scene_->comparedMoveCount())
                        .arg(c.other));
      h.legend.push_back({LegendEntry::Kind::Outline, t.mutedText,
                          tr("ring: its device in %1 (fill: %2)").arg(c.other, c.shown), 4});
    }
  }
  if (const StepOverlayPtr& step = scene_->stepOverlay()) {
    parts << (step->step < step->steps
                  ? tr("step %1/%2, %3 ready")
                        .arg(step->step)
                        .arg(step->steps)
                        .arg(step->ready.size())
                  : tr("step %1/%2, complete").arg(step->step).arg(step->steps));
    const QString meaning = scoreMeaning(step->node_score);
    h.legend.push_back({LegendEntry::Kind::Outline, stepAccent(),
                        !step->node_scored  ? tr("ready (recorded order: no scores)")
                        : meaning.isEmpty() ? tr("ready, with its score")
                                            : tr("ready, with its %1").arg(meaning),
                        2});
    h.legend.push_back({LegendEntry::Kind::Outline, stepAccent(), tr("chosen at this step"), 3.5});
    const Theme& t = Theme::current();
    h.legend.push_back({LegendEntry::Kind::Swatch, t.dark ? t.grid : t.panel.darker(108),
                        tr("not placed yet (faded: planned device)")});
  }
  h.subtitle = parts.join(QStringLiteral(" · "));
  return h;
}

void GraphView::fitAll() {
  if (!hasLayout() || viewport()->width() < 10) {
    fitPending_ = true;
    return;
  }
  const QRectF r = scene_->sceneRect();
  const int hh = currentHeaderHeight();
  const QRectF avail = QRectF(viewport()->rect()).adjusted(6, hh + 6, -6, -6);
  double s = std::min(avail.width() / r.width(), avail.height() / r.height());
  s = std::clamp(s, 0.02, 1.5);
  // A graph too large to read whole: if its breadth fits at a legible zoom, fit that instead and
  // show the start of the flow (the minimap shows the rest). With a least label size, the zoom
  // that gives it is the floor, and the graph fills its breadth above it.
  const bool lr = direction_ == LayoutDirection::LeftToRight;
  const double across = lr ? avail.height() / r.height() : avail.width() / r.width();
  const double fontPx = std::max(1, QFontInfo(scene_->font()).pixelSize());
  const double floor = minLabelPx_ > 0 ? minLabelPx_ / fontPx : 0;
  const bool partial = floor > 0 ? s < floor : s < kLegibleZoom && across >= kLegibleZoom;
  if (partial) s = floor > 0 ? std::max(floor, std::min(across, 1.5)) : std::min(across, 1.0);
  inFit_ = true;
  setTransform(QTransform::fromScale(s, s));
  // Room above the graph for the header, in scene units, so the header never hides a node.
  setSceneRect(r.adjusted(-6 / s, -(hh + 6) / s, 6 / s, 6 / s));
  QPointF centre(r.center().x(), r.center().y() - (hh / 2.0) / s);
  if (partial && lr) centre.setX(r.left() + avail.width() / 2 / s);
  if (partial && !lr) centre.setY(r.top() + (avail.height() / 2 - hh / 2.0) / s);
  centerOn(centre);
  inFit_ = false;
  fitPending_ = false;
  if (partial && floor > 0 && scene_->selected() >= 0)
    centerOn(scene_->nodeRect(scene_->selected()).center());
  atFit_ = true;
  updateMinimap();
}

void GraphView::setMinimumLabelPixels(double px) {
  minLabelPx_ = std::max(0.0, px);
  if (atFit_) fitAll();
}

double GraphView::labelPixels() const {
  return QFontInfo(scene_->font()).pixelSize() * zoom();
}

void GraphView::zoomBy(double factor) {
  const double current = zoom();
  const double target = std::clamp(current * factor, 0.02, 8.0);
  if (target == current) return;
  atFit_ = false;
  scale(target / current, target / current);
  if (hasLayout()) {
    const QRectF r = scene_->sceneRect();
    const int hh = currentHeaderHeight();
    setSceneRect(r.adjusted(-6 / target, -(hh + 6) / target, 6 / target, 6 / target));
  }
  updateMinimap();
}

void GraphView::ensureNodeVisible(int node) {
  const QRectF r = scene_->nodeRect(node);
  if (r.isEmpty()) return;
  const QRectF visible =
      mapToScene(viewport()->rect().adjusted(0, currentHeaderHeight(), 0, 0)).boundingRect();
  if (!visible.contains(r)) centerOn(r.center());
}

int GraphView::search(const QString& text, bool next) {
  matches_.clear();
  // Searches every node of the graph; a match inside a group marks the group.
  const auto g = display_ ? display_->full() : nullptr;
  if (!g || text.trimmed().isEmpty()) {
    scene_->setMarked({});
    searchInfo_->hide();
    return 0;
  }
  matches_ = findNodes(*g, text);
  scene_->setMarked(matches_);
  if (matches_.empty()) {
    searchInfo_->setText(tr(" no match "));
  } else {
    matchCursor_ = next ? (matchCursor_ + 1) % static_cast<int>(matches_.size()) : 0;
    const int v = matches_[matchCursor_];
    if (selection_) selection_->setSelected(v);
    if (zoom() < 0.8) zoomBy(1.0 / zoom());
    centerOn(scene_->nodeRect(shownNodeOf(v)).center());
    searchInfo_->setText(tr(" %1 of %2 ").arg(matchCursor_ + 1).arg(matches_.size()));
  }
  if (searchEdit_->isVisible()) searchInfo_->show();
  placeOverlays();
  return static_cast<int>(matches_.size());
}

void GraphView::showSearch() {
  searchEdit_->show();
  placeOverlays();
  searchEdit_->setFocus();
  searchEdit_->selectAll();
}

void GraphView::placeOverlays() {
  const int w = std::min(300, viewport()->width() - 20);
  const int hh = currentHeaderHeight();
  searchEdit_->setGeometry(viewport()->width() - w - 10, hh + 8, w,
                           searchEdit_->sizeHint().height());
  cancelButton_->adjustSize();
  cancelButton_->move(viewport()->width() - cancelButton_->width() - 10,
                      searchEdit_->isVisible() ? searchEdit_->geometry().bottom() + 34 : hh + 8);
  searchInfo_->adjustSize();
  searchInfo_->move(viewport()->width() - 10 - searchInfo_->width(),
                    searchEdit_->geometry().bottom() + 4);
  const QRectF sr = scene_->sceneRect();
  if (!sr.isEmpty()) {
    const double aspect = sr.width() / sr.height();
    int mw = 220, mh = static_cast<int>(220 / aspect);
    if (mh > 150) {
      mh = 150;
      mw = static_cast<int>(150 * aspect);
    }
    mw = std::max(mw, 40);
    mh = std::max(mh, 30);
    minimap_->setGeometry(viewport()->width() - mw - 10, viewport()->height() - mh - 10, mw, mh);
  }
}

void GraphView::updateMinimap() {
  if (!hasLayout() || scene_->graph()->nodeCount() < 2) {
    minimap_->hide();
    return;
  }
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  const bool fits = visible.contains(scene_->sceneRect().adjusted(10, 10, -10, -10));
  placeOverlays();
  minimap_->setVisible(!fits);
  minimap_->update();
}

QSize GraphView::cleanImageSize() const {
  const QRectF r = scene_->sceneRect();
  if (r.isEmpty()) return {900, 200};
  double s = 1;
  if (r.width() * s > 2400) s = 2400 / r.width();
  if (r.height() * s > 2400) s = std::min(s, 2400 / r.height());
  if (r.width() * s < 900) s = std::min(900 / r.width(), 2.0);
  const int w = std::max(900, static_cast<int>(r.width() * s) + 24);
  return {w, static_cast<int>(r.height() * s) + 24 + headerHeight(header(), font(), w)};
}

QString GraphView::notReadyReason() const {
  if (hasLayout() || (!display_ && !pending_)) return {};  // drawn, or nothing to draw
  return layoutPending()
             ? tr("The graph is still being laid out; export it once it appears.")
             : tr("The graph has no layout (it was abandoned): lay it out again first.");
}

void GraphView::renderClean(QPainter& p, const QSize& size) {
  const Theme& t = Theme::current();
  p.fillRect(QRect(QPoint(0, 0), size), t.background);
  const ViewHeader h = header();
  const int hh = headerHeight(h, font(), size.width());
  if (hasLayout()) {
    const QRectF target = renderTarget(size, hh);
    scene_->render(&p, target, scene_->sceneRect(), Qt::KeepAspectRatio);
    const QRectF sr = scene_->sceneRect();
    const double s = target.width() / sr.width();
    const QTransform toImage = QTransform::fromTranslate(-sr.left(), -sr.top()) *
                               QTransform::fromScale(s, s) *
                               QTransform::fromTranslate(target.left(), target.top());
    scene_->paintLandmarks(p, toImage, font(), target.adjusted(-12, -12, 12, 12));
    scene_->paintStepBadges(p, toImage, font());
  }
  paintHeader(p, h, font(), QRect(QPoint(0, 0), size));
}

// Where render(KeepAspectRatio) puts the scene in an image: centred in the area under the header.
QRectF GraphView::renderTarget(const QSize& size, int headerHeight) const {
  const QRectF area(12, headerHeight + 12, size.width() - 24, size.height() - headerHeight - 24);
  const QRectF sr = scene_->sceneRect();
  if (sr.isEmpty() || area.isEmpty()) return area;
  const double s = std::min(area.width() / sr.width(), area.height() / sr.height());
  const QSizeF fitted(sr.width() * s, sr.height() * s);
  return QRectF(area.center() - QPointF(fitted.width() / 2, fitted.height() / 2), fitted);
}

void GraphView::drawBackground(QPainter* painter, const QRectF& rect) {
  painter->fillRect(rect, Theme::current().background);
}

void GraphView::drawForeground(QPainter* painter, const QRectF&) {
  painter->save();
  painter->resetTransform();
  const Theme& t = Theme::current();
  const QRect area = viewport()->rect();
  const auto& g = scene_->graph();
  QString hint;
  if (!g)
    hint = tr("Open a graph (Ctrl+O), generate one (Ctrl+G) or drop a file here");
  else if (!hasLayout() && layoutCancelled_)
    hint = tr("Layout cancelled. Press L to lay the graph out again.");
  else if (!hasLayout() && display_)
    hint = display_->coarse()
               ? tr("Laying out %1 groups of %2 nodes with Graphviz %3… (Esc cancels)")
                     .arg(count(display_->shownCount()), count(display_->fullCount()),
                          QString::fromLatin1(layoutEngineFor(display_->shownCount())))
               : tr("Laying out %1 nodes with Graphviz %2… (Esc cancels)")
                     .arg(count(display_->shownCount()),
                          QString::fromLatin1(layoutEngineFor(display_->shownCount())));
  if (!hint.isEmpty()) {
    painter->setPen(t.mutedText);
    painter->setFont(titleFont(*this, 1.1, false));
    painter->drawText(area, Qt::AlignCenter, hint);
  }
  if (hasLayout()) {
    // Under the header nothing is read: the names keep to the rest of the viewport.
    scene_->paintLandmarks(*painter, viewportTransform(), font(),
                           QRectF(area).adjusted(0, currentHeaderHeight(), 0, 0));
    scene_->paintStepBadges(*painter, viewportTransform(), font());
  }
  paintHeader(*painter, header(), font(), area);
  painter->restore();
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  if (delta == 0) return QGraphicsView::wheelEvent(event);
  setTransformationAnchor(AnchorUnderMouse);
  zoomBy(std::pow(1.0015, delta));
  event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  setTransformationAnchor(AnchorViewCenter);
  const int selectedShown = selection_ ? shownNodeOf(selection_->selected()) : -1;
  if (event->key() == Qt::Key_Escape && layoutPending() && !searchEdit_->isVisible()) {
    cancelLayout();
  } else if (event->key() == Qt::Key_Escape && scene_->comparing() && !searchEdit_->isVisible()) {
    scene_->clearComparison();
  } else if (event->key() == Qt::Key_E && !(event->modifiers() & Qt::ShiftModifier) &&
             selectedShown >= 0 && display_ && display_->isGroup(selectedShown)) {
    expandGroup(selectedShown);
  } else if (event->key() == Qt::Key_E && (event->modifiers() & Qt::ShiftModifier) && display_ &&
             display_->coarse()) {
    if (!collapseGroup(selectedShown)) collapseAll();
  } else if (event->key() == Qt::Key_L && event->modifiers() == Qt::NoModifier &&
             layoutCancelled_) {
    relayout();
  } else if (matches(event, Command::Find)) {
    showSearch();
  } else if (matches(event, Command::Fit)) {
    fitAll();
  } else if (matches(event, Command::GraphZoomIn)) {
    zoomBy(1.25);
  } else if (matches(event, Command::GraphZoomOut)) {
    zoomBy(0.8);
  } else if (matches(event, Command::GraphZoomReset)) {
    zoomBy(1.0 / zoom());
  } else if (matches(event, Command::ClearSelection)) {
    if (searchEdit_->isVisible()) {
      searchEdit_->hide();
      searchInfo_->hide();
      search(QString());
      setFocus();
    } else if (selection_) {
      selection_->setSelected(-1);
    }
  } else {
    setTransformationAnchor(AnchorUnderMouse);
    return QGraphicsView::keyPressEvent(event);
  }
  setTransformationAnchor(AnchorUnderMouse);
  event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  pressedOnEmpty_ = false;
  if (event->button() == Qt::LeftButton) {
    const int v = nodeAtViewport(event->position().toPoint());
    if (v >= 0) {
      // A group selects its longest-running member (the timeline shows it; the group lights).
      if (selection_)
        selection_->setSelected(representativeMember(*display_, v, scene_->snapshot().get()));
      const StepRole role = scene_->stepRole(v);
      if (role == StepRole::Ready || role == StepRole::Chosen) {
        // The step's chosen node if this drawn node holds it, else its first ready member.
        const StepOverlayPtr& step = scene_->stepOverlay();
        int pick = -1;
        if (step && shownNodeOf(step->chosen) == v) pick = step->chosen;
        for (size_t i = 0; step && pick < 0 && i < step->ready.size(); ++i)
          if (shownNodeOf(step->ready[i].node) == v) pick = step->ready[i].node;
        if (pick >= 0) Q_EMIT stepNodeClicked(pick);
      }
      event->accept();
      return;
    }
    pressedOnEmpty_ = true;
    pressPos_ = event->position().toPoint();
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() == Qt::NoButton && selection_ && display_) {
    const int v = nodeAtViewport(event->position().toPoint());
    // Hovering the drawn node that holds the hovered node changes nothing.
    if (v < 0 || v != shownNodeOf(selection_->hovered()))
      selection_->setHovered(
          v < 0 ? -1
                : (v == shownNodeOf(selection_->selected())
                       ? selection_->selected()
                       : representativeMember(*display_, v, scene_->snapshot().get())));
  }
  QGraphicsView::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) minimap_->update();
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && pressedOnEmpty_ &&
      (event->position().toPoint() - pressPos_).manhattanLength() < 4 && selection_)
    selection_->setSelected(-1);
  pressedOnEmpty_ = false;
  QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && display_) {
    const int v = nodeAtViewport(event->position().toPoint());
    if (v >= 0 && (display_->isGroup(v) ? expandGroup(v) : collapseGroup(v))) {
      event->accept();
      return;
    }
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphView::leaveEvent(QEvent* event) {
  if (selection_) selection_->setHovered(-1);
  QGraphicsView::leaveEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  const bool refit = fitPending_ || atFit_;
  inFit_ = true;  // the scroll bars move while resizing; that is not the user panning
  QGraphicsView::resizeEvent(event);
  inFit_ = false;
  if (refit) fitAll();
  placeOverlays();
  updateMinimap();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  if (!inFit_) atFit_ = false;
  minimap_->update();
}

bool GraphView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int v = nodeAtViewport(help->pos());
    const SnapshotPtr& s = scene_->snapshot();
    if (v >= 0 && s && display_ && display_->isGroup(v)) {
      QToolTip::showText(help->globalPos(), groupTooltipHtml(v), viewport());
      return true;
    }
    if (v >= 0 && s && display_) {
      const int node = display_->members(v).front();
      QString html = nodeTooltipHtml(*s, node);
      const StepOverlayPtr& step = scene_->stepOverlay();
      const StepRole role = scene_->stepRole(v);
      if (step && (role == StepRole::Ready || role == StepRole::Chosen)) {
        for (const CandidateScore& c : step->ready)
          if (c.node == node)
            html += tr("<br><b>ready</b> · %1 %2")
                        .arg(QString::fromStdString(step->node_score).toHtmlEscaped(),
                             formatScore(c.score, step->node_score));
        html += role == StepRole::Chosen ? tr("<br>chosen at this step")
                                         : tr("<br>click: take this node instead");
      } else if (step && role == StepRole::Unplaced) {
        html += tr("<br>not placed yet at step %1").arg(step->step);
      }
      QToolTip::showText(help->globalPos(), html, viewport());
    } else
      QToolTip::hideText();
    return true;
  }
  return QGraphicsView::viewportEvent(event);
}

QString GraphView::groupTooltipHtml(int node) const {
  const SnapshotPtr& s = scene_->snapshot();
  const DataflowGraph& shown = *display_->shown();
  QString html = tr("<b>%1</b><br>group of %2 nodes · %3")
                     .arg(QString::fromStdString(shown.node(node).id).toHtmlEscaped(),
                          count(display_->memberCount(node)),
                          QString::fromStdString(groupSummary(*display_, node))
                              .section(QString::fromUtf8(" \u00b7 "), 1));
  if (s && s->graph == display_->full()) {
    // Work per device, as the share bar shows it.
    std::vector<double> work(s->devices->size(), 0);
    double total = 0;
    for (int m : display_->members(node)) {
      const int dev = s->assignment[m];
      const double us = s->costs->compute(m, dev);
      work[dev] += us;
      total += us;
    }
    html += tr("<br>compute %1 in all").arg(formatDuration(total));
    for (size_t d = 0; d < work.size(); ++d)
      if (work[d] > 0)
        html +=
            QStringLiteral("<br>&nbsp;&nbsp;<span style='color:%1'>■</span> %2: %3 (%4%)")
                .arg(Theme::deviceColor(static_cast<int>(d)).name(),
                     deviceName(*s, static_cast<int>(d)).toHtmlEscaped(), formatDuration(work[d]))
                .arg(total > 0 ? 100.0 * work[d] / total : 0, 0, 'f', 0);
  }
  html += tr("<br><i>double-click or E: expand in place</i>");
  return html;
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  const int v = nodeAtViewport(event->pos());
  if (display_ && display_->coarse()) {
    if (v >= 0 && display_->isGroup(v))
      menu.addAction(tr("Expand group\tE / double-click"), this, [this, v] { expandGroup(v); });
    if (v >= 0 && display_->isExpandedMember(v))
      menu.addAction(tr("Collapse group\tShift+E / double-click"), this,
                     [this, v] { collapseGroup(v); });
    QAction* all = menu.addAction(tr("Collapse all groups"), this, &GraphView::collapseAll);
    all->setEnabled(!display_->expanded().empty());
    menu.addSeparator();
  }
  if (layoutPending()) {
    menu.addAction(tr("Cancel layout\tEsc"), this, &GraphView::cancelLayout);
    menu.addSeparator();
  } else if (layoutCancelled_) {
    menu.addAction(tr("Lay out again\tL"), this, &GraphView::relayout);
    menu.addSeparator();
  }
  menu.addAction(tr("Fit to view\tF"), this, &GraphView::fitAll);
  menu.addAction(tr("Zoom in\t+"), this, [this] { zoomBy(1.25); });
  menu.addAction(tr("Zoom out\t-"), this, [this] { zoomBy(0.8); });
  menu.addAction(tr("Find node…\tCtrl+F"), this, &GraphView::showSearch);
  QAction* critical = menu.addAction(tr("Show critical path"));
  critical->setCheckable(true);
  critical->setChecked(criticalPathVisible());
  connect(critical, &QAction::toggled, this, &GraphView::setCriticalPathVisible);
  menu.addSeparator();
  menu.addAction(tr("Copy image"), this, [this] { Q_EMIT copyImageRequested(); });
  menu.addAction(tr("Save image…"), this, [this] { Q_EMIT saveImageRequested(); });
  menu.exec(event->globalPos());
}

void GraphView::changeEvent(QEvent* event) {
  QGraphicsView::changeEvent(event);
  if (event->type() == QEvent::FontChange) {
    placeOverlays();
    viewport()->update();
  }
}

}  // namespace doppler::views

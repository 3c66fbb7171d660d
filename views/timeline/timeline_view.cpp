#include "views/timeline/timeline_view.h"

#include <QContextMenuEvent>
#include <QFile>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/sim/chrome_trace.h"
#include "core/sim/critical_path.h"
#include "views/common/node_details.h"
#include "views/common/node_search.h"
#include "views/common/selection_state.h"
#include "views/common/shortcuts.h"
#include "views/common/theme.h"
#include "views/stepper/score_scale.h"
#include "views/timeline/timeline_search_bar.h"

namespace doppler::views {
namespace {

bool samePlan(const Schedule& a, const Schedule& b) {
  if (a.makespan_us != b.makespan_us || a.nodes.size() != b.nodes.size() ||
      a.transfers.size() != b.transfers.size())
    return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeSpan &x = a.nodes[i], &y = b.nodes[i];
    if (x.device != y.device || x.start_us != y.start_us || x.finish_us != y.finish_us)
      return false;
  }
  return true;
}

}  // namespace

TimelineView::TimelineView(SelectionState* selection, QWidget* parent)
    : QAbstractScrollArea(parent), selection_(selection) {
  setObjectName(QStringLiteral("timelineView"));
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setFrameShape(QFrame::NoFrame);
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  setMouseTracking(true);
  setMinimumSize(200, 120);
  search_ = new TimelineSearchBar(this);
  connect(search_, &TimelineSearchBar::textChanged, this, [this](const QString& t) { search(t); });
  connect(search_, &TimelineSearchBar::nextRequested, this,
          [this] { search(search_->text(), true); });
  connect(search_, &TimelineSearchBar::closed, this, [this] {
    search(QString());
    setFocus();
  });
  if (selection_) {
    connect(selection_, &SelectionState::selectedChanged, this, [this](int v) {
      state_.selected = v;
      ensureNodeVisible(v);
      viewport()->update();
    });
    connect(selection_, &SelectionState::hoveredChanged, this, [this](int v) {
      state_.hovered = v;
      viewport()->update();
    });
  }
}

void TimelineView::setGroupNodes(std::vector<int> nodes) {
  state_.groupNodes = std::move(nodes);
  viewport()->update();
}

void TimelineView::setSnapshot(SnapshotPtr snapshot) {
  const bool sameShape = snapshot_ && snapshot && snapshot_->graph == snapshot->graph &&
                         snapshot_->devices->size() == snapshot->devices->size();
  snapshot_ = std::move(snapshot);
  if (snapshot_ && snapshot_->timeline)
    snapshotData_ = snapshot_->timeline;  // arranged by the worker that placed it
  else if (snapshot_ && snapshot_->graph)
    snapshotData_ = std::make_shared<TimelineData>(
        TimelineData::build(*snapshot_->graph, *snapshot_->devices, snapshot_->sim.schedule));
  else
    snapshotData_.reset();
  data_ = snapshotData_;
  // A measured run belongs to the placement that ran.
  if (measured_ && measured_->snapshot != snapshot_) {
    measured_.reset();
    state_.ghost.reset();
  }
  if (measured_) {
    data_ = std::make_shared<TimelineData>(
        TimelineData::build(*snapshot_->graph, *snapshot_->devices, measured_->schedule));
    state_.ghost = snapshotData_;
  }
  // The plan stays shown across a new placement of the same graph (the stepper follows it).
  if (overlay_ && snapshot_ && overlay_->plan.nodes.size() == snapshot_->graph->nodes().size() &&
      sameShape)
    data_ = std::make_shared<TimelineData>(
        TimelineData::build(*snapshot_->graph, *snapshot_->devices, overlay_->plan));
  else if (overlay_) {
    overlay_.reset();
    state_.placed.clear();
    state_.stepMarkerUs = -1;
  }
  if (!sameShape) state_.selected = state_.hovered = -1;
  if (!sameShape && snapshot_)
    state_.linksCollapsed = snapshot_->devices->size() > TimelinePainter::kLinksExpandedUpTo;
  if (!sameShape) {
    state_.groupNodes.clear();
    zoomStack_.clear();                                 // its times are of another schedule's shape
    if (search_->isVisible()) search(search_->text());  // the same text, the new graph's nodes
  }
  // A graph without op kinds would paint every bar in the one "(no op)" colour.
  if (data_ && !hasOpKinds() && state_.colorMode == TimelineColorMode::OpKind)
    state_.colorMode = TimelineColorMode::Device;
  if (selection_) {
    state_.selected = selection_->selected();
    state_.hovered = selection_->hovered();
  }
  updateCriticalPath();
  state_.header = header();
  if (state_.range)
    state_.rangeStats = snapshot_ ? deviceRangeStats(*shownSchedule(), snapshot_->devices->size(),
                                                     state_.range->first, state_.range->second)
                                  : std::vector<DeviceRangeStats>{};
  if (!sameShape || atFit_) fit();
  updateScrollBar();
  viewport()->update();
}

void TimelineView::setMeasured(MeasuredRunPtr run) {
  if (run && (!snapshot_ || run->snapshot != snapshot_ ||
              run->schedule.nodes.size() != snapshot_->graph->nodes().size()))
    run.reset();  // of another placement
  if (!run && !measured_) return;
  if (run && overlay_) setStepOverlay(nullptr);
  measured_ = std::move(run);
  data_ = measured_ ? std::make_shared<TimelineData>(TimelineData::build(
                          *snapshot_->graph, *snapshot_->devices, measured_->schedule))
                    : snapshotData_;
  state_.ghost = measured_ ? snapshotData_ : nullptr;
  if (state_.range) setRange(state_.range);  // the stats follow the schedule shown
  updateCriticalPath();
  state_.header = header();
  if (atFit_) fit();
  updateScrollBar();
  viewport()->update();
}

void TimelineView::setStepOverlay(StepOverlayPtr overlay) {
  const size_t n = snapshot_ && snapshot_->graph ? snapshot_->graph->nodes().size() : 0;
  if (overlay && (n == 0 || overlay->plan.nodes.size() != n || overlay->placed.size() != n))
    overlay.reset();  // for another graph
  if (overlay && measured_) {
    measured_.reset();
    state_.ghost.reset();
    data_ = snapshotData_;
  }
  const bool newPlan = (overlay == nullptr) != (overlay_ == nullptr) ||
                       (overlay && overlay_ && !samePlan(overlay->plan, overlay_->plan));
  overlay_ = std::move(overlay);
  if (newPlan) {
    data_ = overlay_ ? std::make_shared<TimelineData>(TimelineData::build(
                           *snapshot_->graph, *snapshot_->devices, overlay_->plan))
                     : snapshotData_;
    if (state_.range) setRange(state_.range);  // the stats follow the schedule shown
  }
  state_.placed = overlay_ ? overlay_->placed : std::vector<char>{};
  state_.stepMarkerUs = overlay_ ? overlay_->partial_makespan_us : -1;
  updateCriticalPath();
  state_.header = header();
  if (newPlan) {
    if (atFit_) fit();
    updateScrollBar();
  }
  viewport()->update();
}

int TimelineView::faintNodeCount() const {
  if (!data_) return 0;
  int count = 0;
  for (int l = 0; l < data_->computeLanes; ++l)
    for (const TimelineEvent& e : data_->lanes[l].events)
      count += TimelinePainter::faint(*data_, state_, e);
  return count;
}

const Schedule* TimelineView::shownSchedule() const {
  if (overlay_) return &overlay_->plan;
  if (measured_) return &measured_->schedule;
  return snapshot_ ? &snapshot_->sim.schedule : nullptr;
}

ViewHeader TimelineView::header() const {
  ViewHeader h;
  h.title = tr("Timeline");
  if (!snapshot_ || !data_) return h;
  const PlacementSnapshot& s = *snapshot_;
  const Theme& t = Theme::current();
  if (overlay_) {
    h.title = tr("Timeline, planned, step %1/%2").arg(overlay_->step).arg(overlay_->steps);
    h.subtitle = tr("%1 on %2 · planned so far %3 · planned makespan %4")
                     .arg(QString::fromStdString(overlay_->source.empty() ? s.settings.method
                                                                          : overlay_->source),
                          QString::fromStdString(s.devices->name),
                          formatDuration(overlay_->partial_makespan_us),
                          formatDuration(overlay_->plan.makespan_us));
  } else if (measured_) {
    const MeasuredRun& m = *measured_;
    h.title = tr("Timeline, measured");
    h.subtitle = tr("%1 · median of %2 · error %3% vs simulated · %4 measured (%5 real), %6 "
                    "simulated%7")
                     .arg(measuredWhere(m))
                     .arg(m.repeat())
                     .arg(QString::asprintf("%+.1f", m.errorPercent()))
                     .arg(formatDuration(m.schedule.makespan_us),
                          formatDuration(m.measured_makespan_us), formatDuration(s.makespan()),
                          m.outputs_match ? tr(" · outputs match one device")
                                          : tr(" · OUTPUTS DIFFER from one device"));
  } else {
    h.subtitle = tr("%1 on %2 · makespan %3 · %4× lower bound · mean utilization %5% · %6 events")
                     .arg(QString::fromStdString(s.settings.method),
                          QString::fromStdString(s.devices->name), formatDuration(s.makespan()))
                     .arg(s.lower_bound_us > 0 ? s.makespan() / s.lower_bound_us : 0.0, 0, 'f', 2)
                     .arg(s.meanUtilization() * 100, 0, 'f', 0)
                     .arg(data_->eventCount);
  }
  if (state_.colorMode == TimelineColorMode::OpKind) {
    const int kinds = static_cast<int>(data_->ops.size());
    const int shaded = std::min(kinds, Theme::kOpShades);
    for (int i = 0; i < shaded; ++i)
      h.legend.push_back({LegendEntry::Kind::Swatch, QColor::fromRgb(data_->ops[i].color),
                          TimelinePainter::opLegendName(data_->ops[i].op)});
    if (kinds > shaded) {
      int nodes = 0;
      for (int i = shaded; i < kinds; ++i) nodes += data_->ops[i].nodes;
      h.legend.push_back({LegendEntry::Kind::Dotted, QColor::fromRgb(data_->ops[shaded].color),
                          tr("%n other op kind(s), %1 nodes", nullptr, kinds - shaded).arg(nodes)});
    }
  } else if (state_.colorMode == TimelineColorMode::Device) {
    for (int d = 0; d < std::min(s.devices->size(), 10); ++d)
      h.legend.push_back({LegendEntry::Kind::Swatch, QColor::fromRgb(data_->deviceColor[d]),
                          QString::fromStdString(s.devices->devices[d].name)});
  } else {
    h.legend.push_back(
        {LegendEntry::Kind::Swatch, Theme::nodeColor(3), tr("colour = node (C: next colouring)")});
  }
  h.legend.push_back({LegendEntry::Kind::Hatch, t.idleHatch, tr("idle")});
  h.legend.push_back({LegendEntry::Kind::Line, t.critical,
                      overlay_    ? tr("planned makespan")
                      : measured_ ? tr("measured makespan")
                                  : tr("makespan"),
                      1.5});
  if (!state_.criticalNodes.empty())
    h.legend.push_back({LegendEntry::Kind::Outline, t.critical,
                        measured_ ? tr("critical path (measured)") : tr("critical path"), 2});
  if (measured_) {
    QColor ghost = t.mutedText;
    ghost.setAlphaF(0.35f);
    h.legend.push_back({LegendEntry::Kind::Swatch, ghost, tr("simulated (ghost)")});
    ghost.setAlphaF(0.7f);
    h.legend.push_back({LegendEntry::Kind::Line, ghost, tr("simulated makespan"), 1.5});
  }
  if (overlay_) {
    QColor faint = t.mutedText;
    faint.setAlphaF(0.3);
    h.legend.push_back({LegendEntry::Kind::Swatch, faint, tr("not placed yet (faint)")});
    h.legend.push_back({LegendEntry::Kind::Line, stepAccent(), tr("planned so far"), 2});
  }
  if (state_.selected >= 0)
    h.legend.push_back(
        {LegendEntry::Kind::Line, t.flow, tr("transfers of the selected node"), 1.6});
  return h;
}

TimelineGeometry TimelineView::geometry() const {
  static const TimelineData empty;
  return TimelinePainter::geometry(data_ ? *data_ : empty, state_.header, font(),
                                   viewport()->size(), state_.linksCollapsed);
}

double TimelineView::visibleEnd() const {
  return state_.t0 + geometry().plotWidth() * state_.usPerPx;
}
double TimelineView::timeAtX(double x) const {
  return state_.t0 + (x - geometry().plotLeft) * state_.usPerPx;
}

void TimelineView::setCriticalPathVisible(bool on) {
  if (criticalVisible_ == on) return;
  criticalVisible_ = on;
  updateCriticalPath();
  state_.header = header();
  viewport()->update();
}

void TimelineView::updateCriticalPath() {
  // Not for the stepper's plan: it is partial until the last step, and the planned makespan's
  // path is not the schedule's.
  if (!criticalVisible_ || !snapshot_ || !snapshot_->graph || overlay_) {
    state_.criticalNodes.clear();
    state_.criticalEdges.clear();
    return;
  }
  if (snapshot_->critical && shownSchedule() == &snapshot_->sim.schedule) {
    state_.criticalNodes = snapshot_->critical->onPath;  // found by the worker that placed it
    state_.criticalEdges = snapshot_->critical->edgeOnPath;
    return;
  }
  const CriticalPath cp = criticalPath(*snapshot_->graph, *shownSchedule());
  state_.criticalNodes = cp.onPath;
  state_.criticalEdges = cp.edgeOnPath;
}

void TimelineView::setLinksCollapsed(bool collapsed) {
  if (state_.linksCollapsed == collapsed) return;
  state_.linksCollapsed = collapsed;
  updateScrollBar();
  viewport()->update();
}

void TimelineView::fit() {
  atFit_ = true;
  const double span = data_ && data_->makespan > 0 ? data_->makespan : 1000;
  const int w = std::max(geometry().plotWidth(), 10);
  state_.usPerPx = span * 1.03 / w;
  state_.t0 = -span * 0.01;
  viewport()->update();
}

bool TimelineView::zoomToRange() {
  if (!state_.range || state_.range->second <= state_.range->first) return false;
  zoomStack_.emplace_back(state_.t0, state_.usPerPx);
  const auto [a, b] = *state_.range;
  const int w = std::max(geometry().plotWidth(), 10);
  // A little room on both sides, so the range's edges stay visible.
  const double span = (b - a) * 1.06;
  state_.usPerPx = span / w;
  state_.t0 = a - (b - a) * 0.03;
  clampView();
  atFit_ = false;
  viewport()->update();
  return true;
}

bool TimelineView::zoomBack() {
  if (zoomStack_.empty()) return false;
  std::tie(state_.t0, state_.usPerPx) = zoomStack_.back();
  zoomStack_.pop_back();
  clampView();
  atFit_ = false;
  viewport()->update();
  return true;
}

void TimelineView::showSearch() {
  search_->open();
  resizeEvent(nullptr);  // placed over the plot's top right
}

int TimelineView::search(const QString& text, bool next) {
  state_.marked =
      snapshot_ && snapshot_->graph ? findNodes(*snapshot_->graph, text) : std::vector<int>{};
  const int count = static_cast<int>(state_.marked.size());
  if (count > 0) {
    matchCursor_ = next ? (matchCursor_ + 1) % count : 0;
    const int v = state_.marked[matchCursor_];
    if (selection_)
      selection_->setSelected(v);  // which brings its bar into view
    else
      ensureNodeVisible(v);
  }
  search_->showCount(count > 0 ? matchCursor_ : -1, count);
  viewport()->update();
  return count;
}

void TimelineView::clampView() {
  const double makespan = data_ && data_->makespan > 0 ? data_->makespan : 1000;
  const int w = std::max(geometry().plotWidth(), 10);
  state_.usPerPx = std::clamp(state_.usPerPx, 1e-5, makespan * 20 / w);
  const double span = w * state_.usPerPx;
  state_.t0 = std::clamp(state_.t0, -span * 0.5, makespan - span * 0.5);
}

void TimelineView::zoomAround(double factor, double x) {
  const double t = timeAtX(x);
  state_.usPerPx /= factor;
  clampView();
  state_.t0 = t - (x - geometry().plotLeft) * state_.usPerPx;
  clampView();
  atFit_ = false;
  viewport()->update();
}

void TimelineView::zoomBy(double factor) {
  const TimelineGeometry g = geometry();
  const QPoint mouse = viewport()->mapFromGlobal(QCursor::pos());
  const double x = viewport()->rect().contains(mouse) && mouse.x() > g.plotLeft
                       ? mouse.x()
                       : (g.plotLeft + g.plotRight) / 2.0;
  zoomAround(factor, x);
}

void TimelineView::panBy(double fraction) {
  state_.t0 += fraction * geometry().plotWidth() * state_.usPerPx;
  clampView();
  atFit_ = false;
  viewport()->update();
}

void TimelineView::updateScrollBar() {
  const TimelineGeometry g = geometry();
  const int visible = std::max(0, viewport()->height() - g.lanesTop);
  verticalScrollBar()->setRange(0, std::max(0, g.contentH - visible));
  verticalScrollBar()->setPageStep(std::max(1, visible));
  verticalScrollBar()->setSingleStep(20);
  state_.scrollY = verticalScrollBar()->value();
}

void TimelineView::scrollContentsBy(int, int) {
  state_.scrollY = verticalScrollBar()->value();
  viewport()->update();
}

void TimelineView::ensureNodeVisible(int node) {
  if (!data_ || node < 0 || node >= static_cast<int>(data_->nodeLane.size())) return;
  const int lane = data_->nodeLane[node];
  if (lane < 0) return;
  const TimelineEvent& e = data_->lanes[lane].events[data_->nodeIndex[node]];
  const double a = visibleStart(), b = visibleEnd();
  if (e.finish < a || e.start > b) {
    state_.t0 = (e.start + e.finish) / 2 - (b - a) / 2;
    clampView();
    atFit_ = false;
  }
  const TimelineGeometry g = geometry();
  const int top = g.laneY[lane], bottom = top + g.laneH[lane];
  const int visible = viewport()->height() - g.lanesTop;
  if (top < state_.scrollY)
    verticalScrollBar()->setValue(top);
  else if (bottom > state_.scrollY + visible)
    verticalScrollBar()->setValue(bottom - visible);
}

int TimelineView::nodeAt(const QPoint& pos) const {
  if (!data_) return -1;
  const TimelineGeometry g = geometry();
  if (pos.x() < g.plotLeft || pos.x() > g.plotRight) return -1;
  int lane = TimelinePainter::laneAt(g, state_, pos.y());
  const int index =
      TimelinePainter::eventInRow(*data_, g, lane, timeAtX(pos.x()), 3 * state_.usPerPx);
  if (index < 0) return -1;
  const TimelineEvent& e = data_->lanes[lane].events[index];
  return e.edge >= 0 ? data_->edges[e.edge].second : e.node;
}

QPoint TimelineView::pointOfNode(int node) const {
  if (!data_ || node < 0 || node >= static_cast<int>(data_->nodeLane.size())) return {-1, -1};
  const int lane = data_->nodeLane[node];
  if (lane < 0) return {-1, -1};
  const TimelineEvent& e = data_->lanes[lane].events[data_->nodeIndex[node]];
  const TimelineGeometry g = geometry();
  const double x = g.plotLeft + ((e.start + e.finish) / 2 - state_.t0) / state_.usPerPx;
  const int y = g.lanesTop + g.laneY[lane] - state_.scrollY + g.laneH[lane] / 2;
  if (x < g.plotLeft || x > g.plotRight || y < g.lanesTop || y > viewport()->height())
    return {-1, -1};
  return {static_cast<int>(std::round(x)), y};
}

bool TimelineView::hasOpKinds() const {
  if (!data_) return false;
  for (const OpKind& k : data_->ops)
    if (!k.op.empty()) return true;
  return false;
}

void TimelineView::cycleColorMode() {
  switch (state_.colorMode) {
    case TimelineColorMode::Device:
      return setColorMode(hasOpKinds() ? TimelineColorMode::OpKind : TimelineColorMode::Node);
    case TimelineColorMode::OpKind:
      return setColorMode(TimelineColorMode::Node);
    case TimelineColorMode::Node:
      return setColorMode(TimelineColorMode::Device);
  }
}

QColor TimelineView::barColor(int node) const {
  if (!data_ || node < 0 || node >= static_cast<int>(data_->nodeLane.size())) return {};
  const int lane = data_->nodeLane[node];
  if (lane < 0) return {};
  const TimelineLane& l = data_->lanes[lane];
  return QColor::fromRgb(
      TimelinePainter::barColor(*data_, state_.colorMode, l, l.events[data_->nodeIndex[node]]));
}

QColor TimelineView::laneColor(int node) const {
  if (!data_ || node < 0 || node >= static_cast<int>(data_->nodeLane.size())) return {};
  const int lane = data_->nodeLane[node];
  return lane < 0 ? QColor() : QColor::fromRgb(data_->deviceColor[data_->lanes[lane].device]);
}

void TimelineView::setColorMode(TimelineColorMode mode) {
  state_.colorMode = mode;
  state_.header = header();
  viewport()->update();
}

void TimelineView::setRange(std::optional<std::pair<double, double>> range) {
  if (range && range->second < range->first) std::swap(range->first, range->second);
  state_.range = range;
  state_.rangeStats.clear();
  if (range && snapshot_)
    state_.rangeStats =
        deviceRangeStats(*shownSchedule(), snapshot_->devices->size(), range->first, range->second);
  viewport()->update();
  Q_EMIT rangeChanged(range.has_value(), range ? range->first : 0, range ? range->second : 0);
}

QString TimelineView::exportChromeTrace(const QString& path) const {
  if (!snapshot_) return tr("nothing to export");
  const std::string json =
      chromeTraceJson(*snapshot_->graph, *snapshot_->devices, snapshot_->sim.schedule);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return tr("cannot write %1: %2").arg(path, f.errorString());
  if (f.write(json.data(), static_cast<qint64>(json.size())) != static_cast<qint64>(json.size()))
    return tr("cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QSize TimelineView::cleanImageSize() const {
  static const TimelineData empty;
  const int w = std::max(viewport()->width(), 1000);
  const TimelineGeometry g = TimelinePainter::geometry(
      data_ ? *data_ : empty, state_.header, font(), QSize(w, 100), state_.linksCollapsed);
  return {w, g.lanesTop + g.contentH + 4};
}

void TimelineView::renderClean(QPainter& p, const QSize& size) {
  static const TimelineData empty;
  const TimelineData& data = data_ ? *data_ : empty;
  TimelineState s = state_;
  s.scrollY = 0;
  s.hovered = -1;
  s.header = header();
  const TimelineGeometry g =
      TimelinePainter::geometry(data, s.header, font(), size, s.linksCollapsed);
  // Same time span as on screen, stretched to the image's width.
  s.usPerPx = state_.usPerPx * geometry().plotWidth() / std::max(1, g.plotWidth());
  TimelinePainter::paint(p, size, data, s, font(), g);
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  static const TimelineData empty;
  state_.header = header();
  const TimelineGeometry g = geometry();
  TimelinePainter::paint(p, viewport()->size(), data_ ? *data_ : empty, state_, font(), g);
  if (!data_) {
    p.setPen(Theme::current().mutedText);
    p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No placement yet"));
  }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  if (event) QAbstractScrollArea::resizeEvent(event);
  const int w = std::min(320, viewport()->width() - 20);
  search_->setGeometry(viewport()->width() - w - 10, geometry().headerH + 4, w,
                       search_->sizeHint().height());
  if (atFit_) fit();
  updateScrollBar();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint d = event->angleDelta();
  if (event->modifiers() & Qt::ShiftModifier) {
    panBy(-(d.y() + d.x()) / 1200.0);
  } else if (event->modifiers() & Qt::ControlModifier) {
    verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y() / 4);
  } else if (std::abs(d.x()) > std::abs(d.y())) {
    panBy(-d.x() / 1200.0);
  } else if (d.y() != 0) {
    const TimelineGeometry g = geometry();
    const double x = std::max<double>(event->position().x(), g.plotLeft);
    zoomAround(std::pow(1.0015, d.y()), x);
  }
  event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  if (matches(event, Command::Find)) {
    showSearch();
    return event->accept();
  }
  if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))
    return QAbstractScrollArea::keyPressEvent(event);
  if (matches(event, Command::TimelineZoomIn)) {
    zoomBy(1.5);
  } else if (matches(event, Command::TimelineZoomOut)) {
    zoomBy(1 / 1.5);
  } else if (matches(event, Command::TimelinePanEarlier)) {
    panBy(-0.2);
  } else if (matches(event, Command::TimelinePanLater)) {
    panBy(0.2);
  } else if (matches(event, Command::Fit)) {
    fit();
  } else if (matches(event, Command::TimelineColour)) {
    cycleColorMode();
  } else if (matches(event, Command::TimelineZoomToRange)) {
    zoomToRange();
  } else if (matches(event, Command::TimelineZoomBack)) {
    zoomBack();
  } else if (matches(event, Command::ClearSelection)) {
    if (state_.range)
      setRange(std::nullopt);
    else if (selection_)
      selection_->setSelected(-1);
  } else {
    return QAbstractScrollArea::keyPressEvent(event);
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  pressPos_ = event->position().toPoint();
  dragging_ = false;
  panning_ = event->button() == Qt::MiddleButton;
  panStartT0_ = state_.t0;
  if (panning_) viewport()->setCursor(Qt::ClosedHandCursor);
  event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (panning_ && (event->buttons() & Qt::MiddleButton)) {
    state_.t0 = panStartT0_ - (pos.x() - pressPos_.x()) * state_.usPerPx;
    clampView();
    atFit_ = false;
    viewport()->update();
    return;
  }
  if (event->buttons() & Qt::LeftButton) {
    if (!dragging_ && std::abs(pos.x() - pressPos_.x()) > 4) dragging_ = true;
    if (dragging_) {
      const TimelineGeometry g = geometry();
      const double a = timeAtX(std::max(pressPos_.x(), g.plotLeft));
      const double b = timeAtX(std::clamp(pos.x(), g.plotLeft, g.plotRight));
      setRange(std::make_pair(std::min(a, b), std::max(a, b)));
    }
    return;
  }
  if (selection_) selection_->setHovered(nodeAt(pos));
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_) {
    panning_ = false;
    viewport()->unsetCursor();
    return;
  }
  if (event->button() == Qt::LeftButton && !dragging_ && data_) {
    // A click on a link lane's label folds the links into one row or unfolds them.
    const QPoint pos = event->position().toPoint();
    const TimelineGeometry g = geometry();
    const int lane = TimelinePainter::laneAt(g, state_, pos.y());
    if (pos.x() < g.plotLeft && lane >= data_->computeLanes) {
      setLinksCollapsed(!state_.linksCollapsed);
      dragging_ = false;
      return;
    }
  }
  if (event->button() == Qt::LeftButton && !dragging_) {
    const int v = nodeAt(event->position().toPoint());
    if (v < 0 && state_.range) setRange(std::nullopt);
    if (selection_) selection_->setSelected(v);
  }
  dragging_ = false;
}

void TimelineView::leaveEvent(QEvent* event) {
  if (selection_) selection_->setHovered(-1);
  QAbstractScrollArea::leaveEvent(event);
}

QString TimelineView::tooltipAt(const QPoint& pos) const {
  if (!data_ || !snapshot_) return {};
  const TimelineGeometry g = geometry();
  int lane = TimelinePainter::laneAt(g, state_, pos.y());
  if (pos.x() < g.plotLeft) {
    if (data_ && lane >= data_->computeLanes && lane >= 0)
      return state_.linksCollapsed ? tr("Click to show each link in its own lane")
                                   : tr("Click to draw the links in one row");
    return {};
  }
  const int index =
      TimelinePainter::eventInRow(*data_, g, lane, timeAtX(pos.x()), 3 * state_.usPerPx);
  if (index < 0) return {};
  const TimelineEvent& e = data_->lanes[lane].events[index];
  if (e.edge < 0 && overlay_)
    return tr("<b>%1</b><br>planned: %2 – %3 on %4<br>%5")
        .arg(QString::fromStdString(snapshot_->graph->node(e.node).id).toHtmlEscaped(),
             formatTime(e.start), formatTime(e.finish), data_->lanes[lane].label,
             TimelinePainter::faint(*data_, state_, e) ? tr("not placed yet at this step")
                                                       : tr("placed"));
  if (e.edge < 0) return nodeTooltipHtml(*snapshot_, e.node);
  const DataflowGraph& graph = *snapshot_->graph;
  const Edge& edge = graph.edge(e.edge);
  return tr("<b>transfer</b> %1 → %2<br>%3<br>start %4, finish %5 (%6)%7")
      .arg(QString::fromStdString(graph.node(edge.src).id).toHtmlEscaped(),
           QString::fromStdString(graph.node(edge.dst).id).toHtmlEscaped(),
           data_->lanes[lane].label, formatTime(e.start), formatTime(e.finish),
           formatDuration(e.finish - e.start),
           edge.bytes > 0 ? QStringLiteral("<br>%1").arg(formatBytes(edge.bytes)) : QString());
}

bool TimelineView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = tooltipAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("Fit\tF"), this, &TimelineView::fit);
  menu.addAction(tr("Zoom in\tW"), this, [this] { zoomBy(1.5); });
  menu.addAction(tr("Zoom out\tS"), this, [this] { zoomBy(1 / 1.5); });
  QMenu* colours = menu.addMenu(tr("Colour bars by"));
  const std::pair<TimelineColorMode, QString> modes[] = {{TimelineColorMode::OpKind, tr("Op kind")},
                                                         {TimelineColorMode::Device, tr("Device")},
                                                         {TimelineColorMode::Node, tr("Node")}};
  for (const auto& [mode, name] : modes) {
    QAction* a = colours->addAction(name, this, [this, m = mode] { setColorMode(m); });
    a->setCheckable(true);
    a->setChecked(state_.colorMode == mode);
    a->setEnabled(mode != TimelineColorMode::OpKind || hasOpKinds());
  }
  QAction* toRange = menu.addAction(tr("Zoom to range\tZ"), this, &TimelineView::zoomToRange);
  toRange->setEnabled(state_.range.has_value());
  toRange->setToolTip(tr("Drag across the timeline to choose a range first"));
  QAction* back = menu.addAction(tr("Zoom back\tBackspace"), this, &TimelineView::zoomBack);
  back->setEnabled(!zoomStack_.empty());
  menu.setToolTipsVisible(true);
  menu.addAction(tr("Find node…\tCtrl+F"), this, &TimelineView::showSearch);
  if (state_.range)
    menu.addAction(tr("Clear range\tEsc"), this, [this] { setRange(std::nullopt); });
  menu.addSeparator();
  menu.addAction(tr("Copy image"), this, [this] { Q_EMIT copyImageRequested(); });
  menu.addAction(tr("Save image…"), this, [this] { Q_EMIT saveImageRequested(); });
  menu.addAction(tr("Export Chrome trace…"), this, [this] { Q_EMIT exportTraceRequested(); });
  menu.exec(event->globalPos());
}

}  // namespace doppler::views

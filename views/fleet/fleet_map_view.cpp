#include "views/fleet/fleet_map_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "views/common/theme.h"
#include "views/fleet/fleet_colors.h"

namespace doppler::views {

namespace fs = doppler::fleet::sim;

FleetMapView::FleetMapView(FleetRunModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("fleetMap"));
  setMouseTracking(true);
  setMinimumSize(320, 220);
  connect(model_, &FleetRunModel::resultsChanged, this, [this] {
    project();
    update();
  });
  connect(model_, &FleetRunModel::selectionChanged, this, [this] {
    // The width and queue scales are the shown method's over its whole run, steady while the
    // slider plays: computed again only for another method.
    if (scaledFor_ != model_->method()) project();
    update();
  });
}

void FleetMapView::setMetric(HeatMetric metric) {
  if (metric == metric_) return;
  metric_ = metric;
  colorMax_ = model_->heatScaleMax(metric_, model_->method());
  update();
}

void FleetMapView::project() {
  projection_ = {};
  maxPool_ = 0;
  const fleet::World* w = model_->world();
  if (!w) return;
  projection_ = projectWorld(*w);
  if (const fs::SimResult* r = model_->result(model_->method()))
    for (int i = 0; i < r->region_series.regions && !r->region_series.pool_rps.empty(); ++i)
      maxPool_ = std::max(maxPool_, r->region_series.at(r->region_series.pool_rps, 0, i));
  maxFlow_ = model_->maxFlow(model_->method());
  maxQueue_ = model_->heatMax(HeatMetric::Queue, model_->method());
  colorMax_ = model_->heatScaleMax(metric_, model_->method());
  scaledFor_ = model_->method();
}

QRectF FleetMapView::plotArea(const QRectF& area) const {
  // Room for the title above and the legend below.
  const double line = fontMetrics().height();
  return area.adjusted(36, 2 * line + 16, -36, -3 * line - 28);
}

QPointF FleetMapView::toWidget(int region, const QRectF& area) const {
  if (region < 0 || region >= static_cast<int>(projection_.points.size()))
    return plotArea(area).center();
  return toWidget(projection_.points[region], area);
}

QPointF FleetMapView::toWidget(const QPointF& p, const QRectF& area) const {
  const QRectF plot = plotArea(area);
  const QRectF& bounds = projection_.bounds;
  if (bounds.width() <= 0 || bounds.height() <= 0) return plot.center();
  const double scale = std::min(plot.width() / bounds.width(), plot.height() / bounds.height());
  const QPointF c = bounds.center();
  return {plot.center().x() + (p.x() - c.x()) * scale,
          plot.center().y() - (p.y() - c.y()) * scale};  // north up
}

double FleetMapView::discRadius(int region, const QRectF& area) const {
  // Area proportional to the pool's rate; the largest disc shrinks as regions get many.
  const int n = std::max(1, model_->regions());
  const double rMax =
      std::clamp(std::min(area.width(), area.height()) / (2.2 * std::sqrt(n)), 7.0, 24.0);
  const fs::SimResult* r = model_->result(model_->method());
  if (!r || maxPool_ <= 0 || r->region_series.pool_rps.empty()) return rMax * 0.6;
  const double pool = r->region_series.at(r->region_series.pool_rps, 0, region);
  return std::max(3.5, rMax * std::sqrt(pool / maxPool_));
}

QPointF FleetMapView::regionPoint(int region) const {
  return toWidget(region, QRectF(rect()));
}

int FleetMapView::regionAt(const QPointF& pos) const {
  int best = -1;
  double bestD = INFINITY;
  for (int i = 0; i < static_cast<int>(projection_.points.size()); ++i) {
    const double d = std::hypot(pos.x() - regionPoint(i).x(), pos.y() - regionPoint(i).y());
    if (d <= discRadius(i, QRectF(rect())) + 4 && d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

std::vector<FleetFlow> FleetMapView::shownFlows() const {
  const std::string& method = model_->method();
  const int slot = model_->slot();
  const fs::SimResult* r = model_->result(method);
  if (!r || slot >= static_cast<int>(r->series.arrivals.size())) return {};
  const double total = r->series.arrivals[slot];
  std::vector<FleetFlow> flows = model_->flows(method, slot, kFlowThreshold * total);
  if (flows.size() > static_cast<size_t>(kMaxFlows)) flows.resize(kMaxFlows);
  return flows;
}

void FleetMapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintMap(p, QRectF(rect()));
}

void FleetMapView::paintMap(QPainter& p, const QRectF& area) {
  const Theme& th = Theme::current();
  p.fillRect(area, th.background);
  p.setRenderHint(QPainter::Antialiasing);
  const QFontMetrics fm(font());
  const fleet::World* w = model_->world();
  const std::string& method = model_->method();
  const fs::SimResult* r = model_->result(method);
  p.setPen(th.text);
  p.setFont(titleFont(*this));
  if (!w || !r) {
    // Wrapped within a margin: on a 1366 x 768 screen the pane is narrower than the sentence.
    p.drawText(area.adjusted(12, 0, -12, 0), Qt::AlignCenter | Qt::TextWordWrap,
               tr("No fleet run yet: choose a topology and methods, then Simulate or Compare"));
    return;
  }
  const int slot = model_->slot();
  const fs::RegionSeries& rs = r->region_series;
  p.drawText(QPointF(area.left() + 10, area.top() + fm.height() + 4),
             tr("%1 · %2 · %3")
                 .arg(QString::fromStdString(w->topology), QString::fromStdString(method),
                      model_->slotLabel(slot)));
  p.setFont(font());
  p.setPen(th.mutedText);
  const double slotArrivals =
      slot < static_cast<int>(r->series.arrivals.size()) ? r->series.arrivals[slot] : 0.0;
  const double slotResponse = slot < static_cast<int>(r->series.mean_response_s.size())
                                  ? r->series.mean_response_s[slot]
                                  : 0.0;
  p.drawText(QPointF(area.left() + 10, area.top() + 2 * fm.height() + 8),
             tr("%1 requests arrived · mean response %2 s · %3 regions, %4 links")
                 .arg(shortValue(slotArrivals), shortValue(slotResponse))
                 .arg(w->regionCount())
                 .arg(w->links.size()));

  // Links, thin.
  QPen link(th.grid, 1.2);
  p.setPen(link);
  if (projection_.seam > 0) {
    // The seam, both edges: links and flows that cross it leave through one and come back
    // through the other (the map wraps around the globe).
    p.setPen(QPen(th.grid, 1.0, Qt::DashLine));
    const QRectF& b = projection_.bounds;
    for (double x : {-projection_.seam, projection_.seam})
      p.drawLine(toWidget(QPointF(x, b.top()), area), toWidget(QPointF(x, b.bottom()), area));
    p.setPen(link);
  }
  for (const fleet::TopologyLink& l : w->links)
    for (const QLineF& part : projection_.parts(l.a, l.b))
      p.drawLine(toWidget(part.p1(), area), toWidget(part.p2(), area));

  // Flows, widest on top.
  const std::vector<FleetFlow> flows = shownFlows();
  QColor flowColor = th.dark ? QColor(0x7f, 0xc8, 0xff) : QColor(0x1f, 0x5f, 0xb4);
  for (auto it = flows.rbegin(); it != flows.rend(); ++it) {
    const FleetFlow& f = *it;
    const double width = 1.0 + 9.0 * (maxFlow_ > 0 ? f.requests / maxFlow_ : 0.0);
    QColor c = flowColor;
    c.setAlphaF(0.75f);
    const double rb = discRadius(f.to, area) + 2;
    QPainterPath path;
    QPointF end, u;
    if (projection_.wraps(f.from, f.to)) {
      // The short way round: out through one edge of the map, in through the other, straight.
      const std::vector<QLineF> parts = projection_.parts(f.from, f.to);
      const QPointF a = toWidget(parts[0].p1(), area), out = toWidget(parts[0].p2(), area);
      const QPointF in = toWidget(parts[1].p1(), area), b = toWidget(parts[1].p2(), area);
      const QPointF d = b - in;
      u = d / std::max(1e-6, std::hypot(d.x(), d.y()));
      end = b - u * rb;
      path.moveTo(a);
      path.lineTo(out);
      path.moveTo(in);
      path.lineTo(end);
    } else {
      // A quadratic curve bending to its right, so that A->B and B->A stay apart.
      const QPointF a = toWidget(f.from, area), b = toWidget(f.to, area);
      const QPointF d = b - a;
      const double len = std::hypot(d.x(), d.y());
      if (len < 1) continue;
      const QPointF n(-d.y() / len, d.x() / len);
      const QPointF ctrl = (a + b) / 2 + n * (0.18 * len);
      // End at the target disc's edge, with an arrowhead there.
      const QPointF tangent = b - ctrl;
      u = tangent / std::max(1e-6, std::hypot(tangent.x(), tangent.y()));
      end = b - u * rb;
      path.moveTo(a);
      path.quadTo(ctrl, end);
    }
    p.setPen(QPen(c, width, Qt::SolidLine, Qt::RoundCap));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    const double head = 5 + width;
    const QPointF side(-u.y(), u.x());
    QPolygonF arrow;
    arrow << end + u * 2 << end - u * head + side * head * 0.5
          << end - u * head - side * head * 0.5;
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    p.drawPolygon(arrow);
  }

  // Regions: disc (area: pool, colour: the chosen metric), queue bar beside it.
  std::vector<int> order(w->regionCount());
  std::iota(order.begin(), order.end(), 0);
  const auto pool = [&](int i) { return rs.pool_rps.empty() ? 0.0 : rs.at(rs.pool_rps, 0, i); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pool(a) > pool(b); });
  const size_t labelled = w->regionCount() <= 14 ? order.size() : 8;
  // The selected region last, on top of its neighbours.
  std::vector<int> drawOrder = order;
  if (model_->region() >= 0) {
    drawOrder.erase(std::find(drawOrder.begin(), drawOrder.end(), model_->region()));
    drawOrder.push_back(model_->region());
  }
  for (int i : drawOrder) {
    const QPointF c = toWidget(i, area);
    const double rad = discRadius(i, area);
    const double value = model_->heat(metric_, method, slot, i);
    p.setPen(QPen(i == model_->region() ? th.selection : th.text,
                  i == model_->region() ? 3.0 : (i == hovered_ ? 2.0 : 0.8)));
    p.setBrush(sequentialColor(colorMax_ > 0 ? value / colorMax_ : 0.0));
    p.drawEllipse(c, rad, rad);
    const double q = model_->heat(HeatMetric::Queue, method, slot, i);
    if (q > 0 && maxQueue_ > 0) {
      const double h = std::max(2.0, 2.2 * rad * q / maxQueue_);
      const QRectF bar(c.x() + rad + 2, c.y() + rad - h, 5, h);
      p.setPen(Qt::NoPen);
      p.setBrush(th.critical);
      p.drawRect(bar);
    }
  }
  p.setFont(font());
  for (size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    if (!(k < labelled || i == model_->region() || i == hovered_)) continue;
    const QPointF c = toWidget(i, area);
    const double rad = discRadius(i, area);
    const QString name = QString::fromStdString(w->regions[i].name);
    const QRectF box(c.x() - 80, c.y() + rad + 1, 160, fm.height());
    p.setPen(th.background);
    for (int dx : {-1, 1})
      for (int dy : {-1, 1}) p.drawText(box.translated(dx, dy), Qt::AlignHCenter, name);
    p.setPen(th.text);
    p.drawText(box, Qt::AlignHCenter, name);
  }

  // Legend: the metric's colours, disc area, flow width, queue bar.
  const double y = area.bottom() - 3 * fm.height() - 8;
  QRectF bar(area.left() + 14, y, 130, 10);
  QLinearGradient g(bar.topLeft(), bar.topRight());
  for (int k = 0; k <= 8; ++k) g.setColorAt(k / 8.0, sequentialColor(k / 8.0));
  p.setPen(th.grid);
  p.setBrush(g);
  p.drawRect(bar);
  p.setPen(th.mutedText);
  p.drawText(QPointF(bar.left(), bar.bottom() + fm.height()), QStringLiteral("0"));
  p.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), fm.height()), Qt::AlignRight,
             shortValue(colorMax_));
  const QString colourTitle = tr("%1 (disc colour)").arg(heatMetricName(metric_));
  p.drawText(QPointF(bar.left(), bar.top() - 4), colourTitle);
  double x = bar.left() + std::max(fm.horizontalAdvance(colourTitle), 130) + 24;
  p.drawText(QPointF(x, bar.top() - 4), tr("disc area: pool rate"));
  p.setPen(Qt::NoPen);
  p.setBrush(th.critical);
  p.drawRect(QRectF(x, bar.top() + 1, 5, 12));
  p.setPen(th.mutedText);
  p.drawText(QPointF(x + 10, bar.bottom() + 2), tr("queue (max %1)").arg(shortValue(maxQueue_)));
  x += std::max(fm.horizontalAdvance(tr("disc area: pool rate")),
                fm.horizontalAdvance(tr("queue (max %1)").arg(shortValue(maxQueue_))) + 10) +
       24;
  p.setPen(QPen(flowColor, 6, Qt::SolidLine, Qt::RoundCap));
  p.drawLine(QPointF(x, bar.center().y()), QPointF(x + 30, bar.center().y()));
  p.setPen(th.mutedText);
  const QString flowText =
      tr("flow width: requests sent away (widest %1; %2 of %3 flows ≥ %4% shown)")
          .arg(shortValue(maxFlow_))
          .arg(flows.size())
          .arg(model_->flows(method, slot).size())
          .arg(kFlowThreshold * 100, 0, 'g', 2);
  p.drawText(QPointF(x, bar.top() - 4),
             fm.elidedText(flowText, Qt::ElideRight, static_cast<int>(area.right() - x - 8)));
}

void FleetMapView::mouseMoveEvent(QMouseEvent* event) {
  const int h = regionAt(event->position());
  if (h != hovered_) {
    hovered_ = h;
    update();
  }
}

void FleetMapView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) model_->setRegion(regionAt(event->position()));
}

void FleetMapView::leaveEvent(QEvent*) {
  hovered_ = -1;
  update();
}

bool FleetMapView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = regionAt(help->pos());
    const fleet::World* w = model_->world();
    const fs::SimResult* r = model_->result(model_->method());
    if (i < 0 || !w || !r) {
      QToolTip::hideText();
      return true;
    }
    const int t = model_->slot();
    const fs::RegionSeries& rs = r->region_series;
    QToolTip::showText(
        help->globalPos(),
        tr("<b>%1</b><br>utilization %2 · queue %3<br>arrivals %4 · routed here %5<br>"
           "servers on %6 of pool %7 req/s")
            .arg(QString::fromStdString(w->regions[i].name))
            .arg(rs.at(rs.utilization, t, i), 0, 'f', 2)
            .arg(shortValue(rs.at(rs.queued, t, i)), shortValue(rs.at(rs.arrivals, t, i)),
                 shortValue(rs.at(rs.routed, t, i)))
            .arg(rs.on_servers[static_cast<size_t>(t) * rs.regions + i])
            .arg(shortValue(rs.at(rs.pool_rps, t, i))),
        this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace doppler::views

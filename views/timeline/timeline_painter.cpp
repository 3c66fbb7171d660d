#include "views/timeline/timeline_painter.h"

#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <map>

#include "views/common/nice_ticks.h"
#include "views/common/theme.h"
#include "views/stepper/score_scale.h"

namespace doppler::views {
namespace {

// Opacity of the bars not placed yet at the stepper's step.
constexpr float kFaint = 0.22f;

constexpr int kSectionGap = 8;

// A ruler label: the unit follows the time's magnitude, the decimals the tick step, so that
// neighbouring ticks never read the same ("102.5 ms", "102.6 ms").
QString tickLabel(double t, double step) {
  if (std::abs(t) < step * 1e-6) return QStringLiteral("0");
  const double mag = std::max(std::abs(t), step);
  double scale = 1;
  const char* unit = "\u00b5s";
  if (mag >= 1e6) {
    scale = 1e6;
    unit = "s";
  } else if (mag >= 1e3) {
    scale = 1e3;
    unit = "ms";
  }
  const int decimals =
      std::clamp(static_cast<int>(std::ceil(-std::log10(step / scale) - 1e-9)), 0, 6);
  return QString::number(t / scale, 'f', decimals) + QStringLiteral(" ") + QString::fromUtf8(unit);
}

void arrowHead(QPainter& p, QPointF tip, QPointF from, const QColor& c) {
  QPointF d = tip - from;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1e-6) return;
  d /= len;
  const QPointF n(-d.y(), d.x());
  const QPointF b = tip - d * 8;
  QPolygonF tri;
  tri << tip << b + n * 3.5 << b - n * 3.5;
  p.setPen(Qt::NoPen);
  p.setBrush(c);
  p.drawPolygon(tri);
}

}  // namespace

bool TimelinePainter::faint(const TimelineData& data, const TimelineState& state,
                            const TimelineEvent& e) {
  if (state.placed.empty()) return false;
  const int node = e.edge >= 0 && e.edge < static_cast<int>(data.edges.size())
                       ? data.edges[e.edge].second
                       : e.node;
  return node >= 0 && node < static_cast<int>(state.placed.size()) && !state.placed[node];
}

QRgb TimelinePainter::barColor(const TimelineData& data, TimelineColorMode mode,
                               const TimelineLane& lane, const TimelineEvent& e) {
  if (e.node < 0) return 0xff888888;
  switch (mode) {
    case TimelineColorMode::Node:
      return Theme::nodeColor(e.node).rgb();  // of the theme shown now
    case TimelineColorMode::Device:
      return data.deviceColor[lane.device];
    case TimelineColorMode::OpKind:
      break;
  }
  return data.opColor[e.node];
}

QString TimelinePainter::opLegendName(const std::string& op) {
  return op.empty() ? QStringLiteral("(no op)") : QString::fromStdString(op);
}

TimelineGeometry TimelinePainter::geometry(const TimelineData& data, const ViewHeader& header,
                                           const QFont& font, const QSize& size,
                                           bool linksCollapsed) {
  TimelineGeometry g;
  QFontMetrics fm(font);
  g.headerH = header.title.isEmpty() ? 0 : headerHeight(header, font, size.width());
  g.rulerH = fm.height() + 10;
  int labelW = 80;
  for (const TimelineLane& lane : data.lanes)
    labelW = std::max(labelW, fm.horizontalAdvance(lane.label) + 30);
  g.labelW = std::min(labelW, 240);
  g.plotLeft = g.labelW;
  g.plotRight = std::max(g.plotLeft + 10, size.width() - 12);
  g.lanesTop = g.headerH + g.rulerH;
  int computeH = std::max(24, fm.height() + 12);
  const int transferH = std::max(14, static_cast<int>(fm.height() * 0.95));
  g.linksCollapsed = linksCollapsed && data.lanes.size() > static_cast<size_t>(data.computeLanes);
  // Every device's lane in view before any scrolling where the lanes can still hold a line of
  // text: a laptop's short timeline pane shows eight GPUs at 19 px rather than five at 27.
  const int rows = data.computeLanes + (g.linksCollapsed ? 1 : 0);
  const int room = size.height() - g.lanesTop - 8 - (rows > data.computeLanes ? kSectionGap : 0);
  if (rows > 0 && room < rows * (computeH + 2))
    computeH = std::max(fm.height() + 4, room / rows - 2);
  int y = 4;
  for (size_t l = 0; l < data.lanes.size(); ++l) {
    const bool link = static_cast<int>(l) >= data.computeLanes;
    if (static_cast<int>(l) == data.computeLanes && l > 0) y += kSectionGap;
    if (link && g.linksCollapsed) {
      // One row, as tall as a compute lane, that every link lane draws into.
      if (static_cast<int>(l) > data.computeLanes) {
        g.laneY.push_back(g.laneY.back());
        g.laneH.push_back(g.laneH.back());
        continue;
      }
      g.laneY.push_back(y);
      g.laneH.push_back(computeH);
      y += computeH + 2;
      continue;
    }
    const int h = link ? transferH : computeH;
    g.laneY.push_back(y);
    g.laneH.push_back(h);
    y += h + 2;
  }
  g.contentH = y + 4;
  return g;
}

int TimelinePainter::laneAt(const TimelineGeometry& geo, const TimelineState& state, int y) {
  const int rel = y - geo.lanesTop + state.scrollY;
  if (y < geo.lanesTop) return -1;
  for (size_t l = 0; l < geo.laneY.size(); ++l)
    if (rel >= geo.laneY[l] && rel < geo.laneY[l] + geo.laneH[l]) return static_cast<int>(l);
  return -1;
}

int TimelinePainter::eventAt(const TimelineData& data, int lane, double t, double slack) {
  if (lane < 0 || lane >= static_cast<int>(data.lanes.size())) return -1;
  const TimelineLane& L = data.lanes[lane];
  int best = -1;
  double bestDist = slack;
  for (size_t i = data.firstVisible(L, t - slack); i < L.events.size(); ++i) {
    const TimelineEvent& e = L.events[i];
    if (e.start > t + slack) break;
    const double dist = t < e.start ? e.start - t : t > e.finish ? t - e.finish : 0;
    if (dist < bestDist || (dist == 0 && best < 0) ||
        (dist == 0 && bestDist == 0 && e.start > L.events[best].start)) {
      bestDist = dist;
      best = static_cast<int>(i);
    }
  }
  return best;
}

int TimelinePainter::eventInRow(const TimelineData& data, const TimelineGeometry& geo, int& lane,
                                double t, double slack) {
  if (!geo.linksCollapsed || lane < data.computeLanes) return eventAt(data, lane, t, slack);
  int best = -1;
  double bestDist = slack;
  for (int l = data.computeLanes; l < static_cast<int>(data.lanes.size()); ++l) {
    const int i = eventAt(data, l, t, slack);
    if (i < 0) continue;
    const TimelineEvent& e = data.lanes[l].events[i];
    const double dist = t < e.start ? e.start - t : t > e.finish ? t - e.finish : 0;
    if (best < 0 || dist < bestDist) {
      best = i;
      bestDist = dist;
      lane = l;
    }
  }
  return best;
}

void TimelinePainter::paint(QPainter& p, const QSize& size, const TimelineData& data,
                            const TimelineState& st, const QFont& font,
                            const TimelineGeometry& geo) {
  const Theme& theme = Theme::current();
  const QRect all(QPoint(0, 0), size);
  p.fillRect(all, theme.background);
  p.setFont(font);
  QFontMetrics fm(font);
  const int plotW = geo.plotWidth();
  const double upp = st.usPerPx > 0 ? st.usPerPx : 1;
  const double tLeft = st.t0, tRight = st.t0 + plotW * upp;
  auto xOf = [&](double t) { return geo.plotLeft + (t - st.t0) / upp; };
  auto laneTop = [&](int l) { return geo.lanesTop + geo.laneY[l] - st.scrollY; };
  const QRect lanesClip(0, geo.lanesTop, size.width(), size.height() - geo.lanesTop);

  // Ruler ticks (the grid lines are drawn under the lanes).
  const double step = niceStep(std::max(upp * 90, 1e-9), 1);
  const double firstTick = std::ceil(tLeft / step) * step;

  p.save();
  p.setClipRect(lanesClip);
  // Lane backgrounds and idle hatching (compute lanes, within [0, makespan]).
  const QBrush hatch(theme.idleHatch, Qt::BDiagPattern);
  for (size_t l = 0; l < data.lanes.size(); ++l) {
    const int y = laneTop(static_cast<int>(l)), h = geo.laneH[l];
    if (y + h < geo.lanesTop || y > size.height()) continue;
    if (geo.linksCollapsed && static_cast<int>(l) > data.computeLanes) break;  // one row drawn
    p.fillRect(QRect(geo.plotLeft, y, plotW, h), l % 2 ? theme.laneAlt : theme.background);
    if (data.lanes[l].kind == TimelineLane::Kind::Compute) {
      const double a = std::max(xOf(0), double(geo.plotLeft)),
                   b = std::min(xOf(data.makespan), double(geo.plotRight));
      if (b > a) {
        const QRectF idle(a, y + 2, b - a, h - 4);
        p.fillRect(idle, theme.idle);
        p.fillRect(idle, hatch);
      }
    }
  }
  p.setPen(QPen(theme.grid, 1));
  for (double t = firstTick; t <= tRight; t += step) {
    const double x = std::round(xOf(t)) + 0.5;
    p.drawLine(QPointF(x, geo.lanesTop), QPointF(x, size.height()));
  }

  // Bars.
  std::vector<float> cover(std::max(plotW, 1)), best(std::max(plotW, 1));
  std::vector<QRgb> colour(std::max(plotW, 1));
  std::vector<char> solidPx(std::max(plotW, 1));  // a placed event covers the column
  QImage row(std::max(plotW, 1), 1, QImage::Format_ARGB32_Premultiplied);
  struct Bar {
    QRectF r;
    QRgb c;
    const TimelineEvent* e;
    bool faint;
  };
  std::vector<Bar> bars;
  auto colourOf = [&](const TimelineEvent& e, const TimelineLane& lane) {
    return barColor(data, st.colorMode, lane, e);
  };
  for (size_t l = 0; l < data.lanes.size(); ++l) {
    const TimelineLane& lane = data.lanes[l];
    const int y = laneTop(static_cast<int>(l)), h = geo.laneH[l];
    if (y + h < geo.lanesTop || y > size.height() || lane.events.empty()) continue;
    const bool transfer = lane.kind == TimelineLane::Kind::Transfer;
    bars.clear();
    std::fill(cover.begin(), cover.end(), 0.f);
    std::fill(best.begin(), best.end(), 0.f);
    std::fill(solidPx.begin(), solidPx.end(), 0);
    bool anyThin = false;
    for (size_t i = data.firstVisible(lane, tLeft); i < lane.events.size(); ++i) {
      const TimelineEvent& e = lane.events[i];
      if (e.start > tRight) break;
      if (e.finish < tLeft) continue;
      const double x0 = (e.start - st.t0) / upp, x1 = (e.finish - st.t0) / upp;
      const QRgb c = colourOf(e, lane);
      const bool isFaint = faint(data, st, e);
      if (x1 - x0 >= 3) {
        const double a = std::max(x0, -2.0), b = std::min(x1, plotW + 2.0);
        bars.push_back({QRectF(geo.plotLeft + a, y + 2, b - a, h - 4), c, &e, isFaint});
        continue;
      }
      const double a = std::max(x0, 0.0), b = std::min(x1, double(plotW));
      if (b < a) continue;
      anyThin = true;
      const int ia = std::min(static_cast<int>(a), plotW - 1),
                ib = std::min(static_cast<int>(b), plotW - 1);
      for (int px = ia; px <= ib; ++px) {
        const float part = static_cast<float>(std::min(b, px + 1.0) - std::max(a, double(px)));
        const float amount = std::max(part, 0.02f);
        cover[px] += amount;
        if (!isFaint) solidPx[px] = 1;
        if (amount > best[px]) {
          best[px] = amount;
          colour[px] = c;
        }
      }
    }
    if (anyThin) {
      auto* line = reinterpret_cast<QRgb*>(row.scanLine(0));
      for (int px = 0; px < plotW; ++px) {
        if (cover[px] <= 0) {
          line[px] = 0;
          continue;
        }
        const float alpha = std::clamp(cover[px], 0.45f, 1.0f) * (solidPx[px] ? 1.0f : kFaint);
        const QRgb c = colour[px];
        line[px] = qRgba(static_cast<int>(qRed(c) * alpha), static_cast<int>(qGreen(c) * alpha),
                         static_cast<int>(qBlue(c) * alpha), static_cast<int>(255 * alpha));
      }
      p.drawImage(QRectF(geo.plotLeft, y + 2, plotW, h - 4), row);
    }
    for (const Bar& b : bars) {
      const QColor c = QColor::fromRgb(b.c);
      QColor fill = transfer ? c.darker(110) : c, edge = c.darker(150);
      if (b.faint) {
        fill.setAlphaF(kFaint);
        edge.setAlphaF(kFaint * 1.6f);
      }
      // A faint bar hides the idle hatching behind it, so it reads as a bar, not as idle time.
      if (b.faint) p.fillRect(b.r, l % 2 ? theme.laneAlt : theme.background);
      p.fillRect(b.r, fill);
      if (!transfer && st.colorMode == TimelineColorMode::OpKind && data.otherOp(b.e->node))
        p.fillRect(b.r, QBrush(edge, Qt::Dense6Pattern));  // "other" op kinds: dotted
      if (b.r.width() >= 5) {
        p.setPen(QPen(edge, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(b.r.adjusted(0.5, 0.5, -0.5, -0.5));
      }
      if (!transfer && b.r.width() > 34) {
        const QString& label = data.nodeLabels.empty() ? QString() : data.nodeLabels[b.e->node];
        const QRectF tr = b.r.adjusted(4, 0, -3, 0).intersected(QRectF(geo.plotLeft, y, plotW, h));
        if (tr.width() > 20 && !label.isEmpty()) {
          p.setPen(b.faint ? theme.mutedText : Theme::textOn(c));
          // Elided in the middle: node ids differ in their suffixes (q_proj_s0, q_proj_s1).
          p.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft,
                     fm.elidedText(label, Qt::ElideMiddle, static_cast<int>(tr.width())));
        }
      }
    }
  }

  // The simulated schedule behind a measured one: faint outlined ghosts on the same lanes.
  if (st.ghost) {
    QColor fill = theme.mutedText, edge = theme.mutedText;
    fill.setAlphaF(0.16f);
    edge.setAlphaF(0.7f);
    p.setPen(QPen(edge, 1, Qt::DashLine));
    p.setBrush(fill);
    const int lanes = std::min(st.ghost->computeLanes, data.computeLanes);
    for (int l = 0; l < lanes; ++l) {
      const int y = laneTop(l), h = geo.laneH[l];
      if (y + h < geo.lanesTop || y > size.height()) continue;
      const TimelineLane& lane = st.ghost->lanes[l];
      for (size_t i = st.ghost->firstVisible(lane, tLeft); i < lane.events.size(); ++i) {
        const TimelineEvent& e = lane.events[i];
        if (e.start > tRight) break;
        if (e.finish < tLeft) continue;
        const double a = std::max(xOf(e.start), geo.plotLeft - 2.0),
                     b = std::min(xOf(e.finish), geo.plotRight + 2.0);
        if (b - a < 1) continue;
        p.drawRect(QRectF(a + 0.5, y + h * 0.55, b - a - 1, h * 0.45 - 2.5));
      }
    }
    const double x = xOf(st.ghost->makespan);
    if (st.ghost->makespan > 0 && x >= geo.plotLeft && x <= geo.plotRight) {
      p.setPen(QPen(edge, 1.5, Qt::DotLine));
      p.drawLine(QPointF(x, geo.lanesTop), QPointF(x, geo.lanesTop + geo.contentH - st.scrollY));
    }
  }

  // Makespan marker.
  if (data.makespan > 0) {
    const double x = xOf(data.makespan);
    if (x >= geo.plotLeft && x <= geo.plotRight) {
      p.setPen(QPen(theme.critical, 1.5, Qt::DashLine));
      p.drawLine(QPointF(x, geo.lanesTop), QPointF(x, geo.lanesTop + geo.contentH - st.scrollY));
    }
  }
  // The stepper's position: how far the placed nodes reach.
  if (st.stepMarkerUs >= 0) {
    const double x = xOf(st.stepMarkerUs);
    if (x >= geo.plotLeft - 1 && x <= geo.plotRight + 1) {
      p.setPen(QPen(stepAccent(), 2));
      p.drawLine(QPointF(x, geo.lanesTop), QPointF(x, geo.lanesTop + geo.contentH - st.scrollY));
    }
  }

  // Highlight: hovered and selected node bars, the selected node's transfers and flow arrows.
  auto eventRect = [&](int lane, int index) -> QRectF {
    if (lane < 0 || index < 0) return {};
    const TimelineEvent& e = data.lanes[lane].events[index];
    double a = xOf(e.start), b = xOf(e.finish);
    if (b - a < 3) {
      const double mid = (a + b) / 2;
      a = mid - 1.5;
      b = mid + 1.5;
    }
    return QRectF(a, laneTop(lane) + 1, b - a, geo.laneH[lane] - 2);
  };
  auto nodeRect = [&](int v) {
    return v >= 0 && v < static_cast<int>(data.nodeLane.size())
               ? eventRect(data.nodeLane[v], data.nodeIndex[v])
               : QRectF();
  };
  p.setRenderHint(QPainter::Antialiasing, true);
  // The critical path: its compute bars and the transfers between them, outlined.
  if (!st.criticalNodes.empty() || !st.criticalEdges.empty()) {
    p.setPen(QPen(theme.critical, 2));
    p.setBrush(Qt::NoBrush);
    // A bar too narrow for an outline to leave its fill visible (a zoomed-out timeline of
    // thousands of events) is marked by a strip along its top instead: outlined, every lane on
    // the path would read in the path's colour rather than its device's.
    // The strips are gathered per lane top and pixel column first, then drawn as runs: a path of
    // a million nodes is a million strips, and as many antialiased fills took seconds.
    std::map<int, std::vector<char>> strips;  // lane top -> marked columns of the plot
    auto outline = [&](const QRectF& r) {
      if (r.isNull() || r.right() < geo.plotLeft || r.left() > geo.plotRight) return;
      if (r.width() >= 8) {
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        return;
      }
      std::vector<char>& marks = strips[static_cast<int>(std::lround(r.top()))];
      marks.resize(std::max(plotW, 1));
      const int a = std::clamp(static_cast<int>(std::floor(r.left() - geo.plotLeft)), 0, plotW - 1);
      const int b = std::clamp(static_cast<int>(std::ceil(r.right() - geo.plotLeft)), a + 1, plotW);
      std::fill(marks.begin() + a, marks.begin() + b, 1);
    };
    for (size_t v = 0; v < st.criticalNodes.size() && v < data.nodeLane.size(); ++v)
      if (st.criticalNodes[v]) outline(nodeRect(static_cast<int>(v)));
    for (size_t e = 0; e < st.criticalEdges.size() && e < data.edgeLane.size(); ++e)
      if (st.criticalEdges[e] && data.edgeLane[e] >= 0)
        outline(eventRect(data.edgeLane[e], data.edgeIndex[e]));
    for (const auto& [top, marks] : strips)
      for (int x = 0; x < static_cast<int>(marks.size());) {
        if (!marks[x]) {
          ++x;
          continue;
        }
        const int from = x;
        while (x < static_cast<int>(marks.size()) && marks[x]) ++x;
        p.fillRect(QRectF(geo.plotLeft + from, top - 1, x - from, 3), theme.critical);
      }
  }
  if (!st.groupNodes.empty()) {
    QColor c = theme.selection;
    c.setAlphaF(0.55f);
    p.setPen(QPen(c, 1.5));
    p.setBrush(Qt::NoBrush);
    for (int v : st.groupNodes) {
      const QRectF r = nodeRect(v);
      if (!r.isNull() && r.right() >= geo.plotLeft && r.left() <= geo.plotRight)
        p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
    }
  }
  if (!st.marked.empty()) {
    // Search matches: the hover colour, dashed, as the graph rings them.
    p.setPen(QPen(theme.hover, 2, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (int v : st.marked) {
      const QRectF r = nodeRect(v);
      if (!r.isNull() && r.right() >= geo.plotLeft && r.left() <= geo.plotRight)
        p.drawRect(r.adjusted(-1.5, -1.5, 1.5, 1.5));
    }
  }
  if (st.selected >= 0 && st.selected < static_cast<int>(data.nodeLane.size())) {
    const int v = st.selected;
    const QRectF nr = nodeRect(v);
    auto flow = [&](QPointF a, QPointF b) {
      QPainterPath path(a);
      const double dx = std::max(20.0, std::abs(b.x() - a.x()) / 2);
      path.cubicTo(a + QPointF(dx, 0), b - QPointF(dx, 0), b);
      p.setPen(QPen(theme.flow, 1.6));
      p.setBrush(Qt::NoBrush);
      p.drawPath(path);
      arrowHead(p, b, b - QPointF(dx, 0) * 0.3 + (a - b) * 0.05, theme.flow);
    };
    for (int e : data.inEdges[v]) {
      const int tl = data.edgeLane[e];
      if (tl < 0) continue;
      const QRectF trect = eventRect(tl, data.edgeIndex[e]);
      const QRectF prod = nodeRect(data.edges[e].first);
      p.setPen(QPen(theme.selection, 1.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(trect);
      if (!prod.isNull())
        flow(QPointF(prod.right(), prod.center().y()), QPointF(trect.left(), trect.center().y()));
      if (!nr.isNull())
        flow(QPointF(trect.right(), trect.center().y()), QPointF(nr.left(), nr.center().y()));
    }
    for (int e : data.outEdges[v]) {
      const int tl = data.edgeLane[e];
      if (tl < 0) continue;
      const QRectF trect = eventRect(tl, data.edgeIndex[e]);
      const QRectF cons = nodeRect(data.edges[e].second);
      p.setPen(QPen(theme.selection, 1.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(trect);
      if (!nr.isNull())
        flow(QPointF(nr.right(), nr.center().y()), QPointF(trect.left(), trect.center().y()));
      if (!cons.isNull())
        flow(QPointF(trect.right(), trect.center().y()), QPointF(cons.left(), cons.center().y()));
    }
    if (!nr.isNull()) {
      p.setPen(QPen(theme.selection, 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(nr.adjusted(-1, -1, 1, 1));
    }
  }
  if (st.hovered >= 0 && st.hovered != st.selected) {
    const QRectF hr = nodeRect(st.hovered);
    if (!hr.isNull()) {
      p.setPen(QPen(theme.hover, 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(hr.adjusted(-1, -1, 1, 1));
    }
  }
  p.setRenderHint(QPainter::Antialiasing, false);

  // The dragged range, with per-device busy and idle time inside it.
  if (st.range) {
    const double a = xOf(std::min(st.range->first, st.range->second));
    const double b = xOf(std::max(st.range->first, st.range->second));
    const QRectF r(a, geo.lanesTop, std::max(b - a, 1.0), size.height() - geo.lanesTop);
    p.fillRect(r, theme.rangeFill);
    p.setPen(QPen(theme.rangeEdge, 1.5));
    p.drawLine(QPointF(a, r.top()), QPointF(a, r.bottom()));
    p.drawLine(QPointF(b, r.top()), QPointF(b, r.bottom()));
    if (!st.rangeStats.empty()) {
      const double len = std::abs(st.range->second - st.range->first);
      QStringList lines;
      lines << QStringLiteral("%1 – %2  (%3)")
                   .arg(formatDuration(std::min(st.range->first, st.range->second)),
                        formatDuration(std::max(st.range->first, st.range->second)),
                        formatDuration(len));
      const int shown = std::min<int>(st.rangeStats.size(), 16);
      for (int d = 0; d < shown; ++d)
        lines << QStringLiteral("%1  %2% busy, %3 idle")
                     .arg(data.lanes[d].label)
                     .arg(st.rangeStats[d].utilization * 100, 0, 'f', 1)
                     .arg(formatDuration(st.rangeStats[d].idle_us));
      int w = 0;
      for (const QString& s : lines) w = std::max(w, fm.horizontalAdvance(s));
      const int boxW = w + 16, boxH = static_cast<int>(lines.size()) * fm.height() + 10;
      double bx = b + 8;
      if (bx + boxW > geo.plotRight) bx = std::max(double(geo.plotLeft) + 4, a - 8 - boxW);
      const QRectF box(bx, geo.lanesTop + 6, boxW, boxH);
      p.fillRect(box, theme.legendBackground);
      p.setPen(theme.rangeEdge);
      p.drawRect(box);
      p.setPen(theme.text);
      for (int i = 0; i < lines.size(); ++i)
        p.drawText(QPointF(box.left() + 8, box.top() + 5 + fm.ascent() + i * fm.height()),
                   lines[i]);
    }
  }
  p.restore();

  // Ruler.
  const QRect ruler(0, geo.headerH, size.width(), geo.rulerH);
  p.fillRect(ruler, theme.panel);
  p.setPen(theme.grid);
  p.drawLine(ruler.bottomLeft(), ruler.bottomRight());
  p.setPen(theme.mutedText);
  for (double t = firstTick; t <= tRight; t += step) {
    const double x = std::round(xOf(t)) + 0.5;
    p.drawLine(QPointF(x, ruler.bottom() - 5), QPointF(x, ruler.bottom()));
    p.drawText(QPointF(x + 3, ruler.top() + 3 + fm.ascent()), tickLabel(t, step));
  }
  if (st.stepMarkerUs >= 0) {
    const double x = xOf(st.stepMarkerUs);
    if (x >= geo.plotLeft - 1 && x <= geo.plotRight + 1) {
      const QString text = QStringLiteral("planned so far %1").arg(formatDuration(st.stepMarkerUs));
      const double w = fm.horizontalAdvance(text) + 12;
      // Left of the line when it would run off the right edge.
      const double left = x + w + 2 > geo.plotRight ? x - w : x;
      const QRectF tag(left, ruler.top() + 2, w, ruler.height() - 4);
      p.setRenderHint(QPainter::Antialiasing, true);
      p.setPen(Qt::NoPen);
      p.setBrush(stepAccent());
      p.drawRoundedRect(tag, 3, 3);
      p.setRenderHint(QPainter::Antialiasing, false);
      p.setPen(Theme::textOn(stepAccent()));
      p.drawText(tag, Qt::AlignCenter, text);
    }
  }

  // Lane labels.
  p.setClipRect(QRect(0, geo.lanesTop, geo.labelW, size.height() - geo.lanesTop));
  p.fillRect(QRect(0, geo.lanesTop, geo.labelW, size.height() - geo.lanesTop), theme.panel);
  QFont small = font;
  if (small.pointSizeF() > 0) small.setPointSizeF(small.pointSizeF() * 0.9);
  for (size_t l = 0; l < data.lanes.size(); ++l) {
    const TimelineLane& lane = data.lanes[l];
    const int y = laneTop(static_cast<int>(l)), h = geo.laneH[l];
    if (y + h < geo.lanesTop || y > size.height()) continue;
    if (lane.kind == TimelineLane::Kind::Compute) {
      p.setFont(font);
      p.fillRect(QRect(8, y + h / 2 - 6, 12, 12), QColor::fromRgb(data.deviceColor[lane.device]));
      p.setPen(theme.text);
      p.drawText(QRect(26, y, geo.labelW - 30, h), Qt::AlignVCenter | Qt::AlignLeft, lane.label);
    } else if (geo.linksCollapsed) {
      if (static_cast<int>(l) > data.computeLanes) break;
      p.setFont(small);
      p.setPen(theme.mutedText);
      const int links = static_cast<int>(data.lanes.size()) - data.computeLanes;
      p.drawText(QRect(8, y, geo.labelW - 12, h), Qt::AlignVCenter | Qt::AlignLeft,
                 QStringLiteral("\u25b8 %1 links").arg(links));
    } else {
      p.setFont(small);
      const bool first = static_cast<int>(l) == data.computeLanes;
      if (first) {  // the toggle back to one row
        p.setPen(theme.mutedText);
        p.drawText(QRect(0, y, 10, h), Qt::AlignVCenter | Qt::AlignRight, QStringLiteral("\u25be"));
      }
      p.fillRect(QRect(10, y + h / 2 - 1, 8, 3), QColor::fromRgb(data.deviceColor[lane.device]));
      p.setPen(theme.mutedText);
      p.drawText(QRect(26, y, geo.labelW - 30, h), Qt::AlignVCenter | Qt::AlignLeft, lane.label);
    }
  }
  p.setFont(font);
  p.setClipping(false);
  p.setPen(theme.grid);
  p.drawLine(geo.labelW - 1, geo.lanesTop, geo.labelW - 1, size.height());
  if (data.lanes.size() > static_cast<size_t>(data.computeLanes) && data.computeLanes > 0) {
    const int y = laneTop(data.computeLanes) - kSectionGap / 2 - 1;
    if (y > geo.lanesTop) p.drawLine(0, y, size.width(), y);
  }

  if (geo.headerH > 0) paintHeader(p, st.header, font, QRect(0, 0, size.width(), geo.headerH));
}

}  // namespace doppler::views

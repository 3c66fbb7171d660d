#include "views/fleet/fleet_line_chart.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "views/common/nice_ticks.h"
#include "views/common/theme.h"
#include "views/fleet/fleet_colors.h"

namespace doppler::views {

QRectF paintLineChart(QPainter& p, const QRectF& area, const LineChartSpec& spec) {
  const Theme& th = Theme::current();
  const QFontMetrics fm = p.fontMetrics();
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  size_t slots = 0;
  const bool logY = spec.logY;
  // The axis works in f(v): v, or log10 v.
  const auto f = [logY](double v) { return logY ? (v > 0 ? std::log10(v) : NAN) : v; };
  double lo = logY ? INFINITY : 0.0, hi = -INFINITY;
  for (const ChartSeries& s : spec.series) {
    slots = std::max(slots, s.values.size());
    for (double v : s.values)
      if (std::isfinite(f(v))) {
        lo = std::min(lo, f(v));
        hi = std::max(hi, f(v));
      }
  }
  if (!std::isfinite(lo)) lo = 0;
  if (!std::isfinite(hi) || hi <= lo) hi = lo + 1;
  // Three or four ticks at round numbers, the range out to the outer ones; a log axis ticks at
  // whole powers of ten (a step of at least 1 in log10).
  NiceTicks ticks = niceTicks(lo, hi, 3);
  if (logY && ticks.step < 1) ticks = niceTicks(std::floor(lo), std::ceil(hi), 3);
  lo = std::floor(lo / ticks.step + 1e-9) * ticks.step;
  hi = std::ceil(hi / ticks.step - 1e-9) * ticks.step;
  if (hi <= lo) hi = lo + ticks.step;
  ticks = niceTicks(lo, hi, std::max(1, static_cast<int>(std::lround((hi - lo) / ticks.step))));
  const auto label = [&](double axis) {
    return logY ? shortValue(std::pow(10.0, axis)) : tickText(axis, ticks);
  };
  double yLabelW = 0;
  for (double v : ticks.ticks) yLabelW = std::max<double>(yLabelW, fm.horizontalAdvance(label(v)));
  yLabelW += 8;
  // Title, then the legend, flowing onto more rows rather than cutting entries off.
  QString title = spec.title;
  if (!spec.unit.isEmpty()) title += QStringLiteral(" (") + spec.unit + QStringLiteral(")");
  if (logY) title += QCoreApplication::translate("FleetLineChart", ", log scale");
  struct Entry {
    QString name;
    QColor color;
    bool dashed = false, marker = false;
    QPointF at;  // top-left of the swatch
  };
  std::vector<Entry> entries;
  for (const ChartSeries& s : spec.series)
    if (s.inLegend) entries.push_back({s.name, s.color, s.dashed, false, {}});
  if (!spec.markers.empty() && !spec.markerName.isEmpty())
    entries.push_back({spec.markerName, th.critical, false, true, {}});
  const double rowH = fm.height() + 2;
  double lx = area.left() + 12 + fm.horizontalAdvance(title) + 12, ly = area.top();
  for (Entry& e : entries) {
    const double w = 24 + fm.horizontalAdvance(e.name);
    if (lx + w > area.right() - 4) {
      lx = area.left() + 12;
      ly += rowH;
    }
    e.at = QPointF(lx, ly);
    lx += w + 10;
  }
  const QRectF plot =
      area.adjusted(yLabelW, ly - area.top() + fm.height() + 8, -8, -fm.height() - 4);
  p.setPen(th.text);
  p.drawText(QPointF(area.left() + 4, area.top() + fm.ascent() + 2), title);
  for (const Entry& e : entries) {
    const double mid = e.at.y() + fm.height() / 2.0 + 2;
    if (e.marker) {
      p.setPen(Qt::NoPen);
      p.setBrush(th.critical);
      p.drawRect(QRectF(e.at.x() + 6, e.at.y() + 3, 4, fm.height() - 4));
    } else {
      p.setPen(QPen(e.color, 2.5, e.dashed ? Qt::DashLine : Qt::SolidLine));
      p.drawLine(QPointF(e.at.x(), mid), QPointF(e.at.x() + 16, mid));
    }
    p.setPen(th.mutedText);
    p.drawText(QPointF(e.at.x() + 20, e.at.y() + fm.ascent() + 2), e.name);
  }
  // Axes: a grid line at every inner tick.
  p.setPen(th.grid);
  p.drawRect(plot);
  for (double v : ticks.ticks) {
    const double y = plot.bottom() - (v - lo) / (hi - lo) * plot.height();
    p.setPen(th.grid);
    if (y > plot.top() + 1 && y < plot.bottom() - 1)
      p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(th.mutedText);
    p.drawText(QRectF(area.left(), y - fm.height() / 2.0, yLabelW - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, label(v));
  }
  if (slots == 0) {
    p.restore();
    return plot;
  }
  const auto X = [&](double t) {
    return plot.left() + (t + 0.5) * plot.width() / static_cast<double>(slots);
  };
  const auto Y = [&](double v) { return plot.bottom() - (v - lo) / (hi - lo) * plot.height(); };
  if (spec.zeroLine && lo < 0) {
    p.setPen(QPen(th.mutedText, 1, Qt::DotLine));
    p.drawLine(QPointF(plot.left(), Y(0)), QPointF(plot.right(), Y(0)));
  }
  p.setPen(th.mutedText);
  p.drawText(QRectF(plot.left(), plot.bottom() + 1, plot.width(), fm.height()), Qt::AlignLeft,
             QStringLiteral("0"));
  p.drawText(QRectF(plot.left(), plot.bottom() + 1, plot.width(), fm.height()), Qt::AlignRight,
             QStringLiteral("%1 %2").arg(spec.xName).arg(slots - 1));
  p.setClipRect(plot.adjusted(-1, -1, 1, 1));
  for (const int m : spec.markers) {
    p.setPen(Qt::NoPen);
    p.setBrush(th.critical);
    p.drawRect(QRectF(X(m) - 1.5, plot.bottom() - 6, 3, 6));
  }
  for (const ChartSeries& s : spec.series) {
    QPainterPath path;
    bool open = false;
    for (size_t t = 0; t < s.values.size(); ++t) {
      if (!std::isfinite(f(s.values[t]))) {
        open = false;
        continue;
      }
      const QPointF pt(X(static_cast<double>(t)), Y(f(s.values[t])));
      if (open)
        path.lineTo(pt);
      else
        path.moveTo(pt);
      open = true;
    }
    p.setPen(QPen(s.color, s.width, s.dashed ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
  }
  if (spec.slot >= 0) {
    p.setPen(QPen(th.hover, 1.5));
    p.drawLine(QPointF(X(spec.slot), plot.top()), QPointF(X(spec.slot), plot.bottom()));
  }
  p.restore();
  return plot;
}

int slotAtX(const QRectF& plot, int slots, double x) {
  if (slots <= 0 || plot.width() <= 0) return -1;
  return std::clamp(static_cast<int>((x - plot.left()) * slots / plot.width()), 0, slots - 1);
}

}  // namespace doppler::views

#include "views/fleet/fleet_line_chart.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

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
  hi += 0.05 * (hi - lo);
  const auto label = [&](double axis) { return shortValue(logY ? std::pow(10.0, axis) : axis); };
  double yLabelW = 0;
  for (int k = 0; k <= 2; ++k)
    yLabelW = std::max<double>(yLabelW, fm.horizontalAdvance(label(lo + (hi - lo) * k / 2.0)));
  yLabelW += 8;
  const QRectF plot = area.adjusted(yLabelW, fm.height() + 8, -8, -fm.height() - 4);
  // Title and legend on one line.
  p.setPen(th.text);
  QString title = spec.title;
  if (!spec.unit.isEmpty()) title += QStringLiteral(" (") + spec.unit + QStringLiteral(")");
  if (logY) title += QCoreApplication::translate("FleetLineChart", ", log scale");
  p.drawText(QPointF(area.left() + 4, area.top() + fm.ascent() + 2), title);
  double lx = area.left() + 12 + fm.horizontalAdvance(title) + 12;
  for (const ChartSeries& s : spec.series) {
    if (lx + 60 > area.right()) break;
    p.setPen(QPen(s.color, 2.5, s.dashed ? Qt::DashLine : Qt::SolidLine));
    p.drawLine(QPointF(lx, area.top() + fm.height() / 2.0 + 2),
               QPointF(lx + 16, area.top() + fm.height() / 2.0 + 2));
    p.setPen(th.mutedText);
    p.drawText(QPointF(lx + 20, area.top() + fm.ascent() + 2), s.name);
    lx += 30 + fm.horizontalAdvance(s.name);
  }
  if (!spec.markers.empty() && !spec.markerName.isEmpty() && lx + 60 < area.right()) {
    p.setPen(Qt::NoPen);
    p.setBrush(th.critical);
    p.drawRect(QRectF(lx, area.top() + 3, 4, fm.height() - 4));
    p.setPen(th.mutedText);
    p.drawText(QPointF(lx + 8, area.top() + fm.ascent() + 2), spec.markerName);
  }
  // Axes: three y ticks.
  p.setPen(th.grid);
  p.drawRect(plot);
  for (int k = 0; k <= 2; ++k) {
    const double v = lo + (hi - lo) * k / 2.0;
    const double y = plot.bottom() - plot.height() * k / 2.0;
    p.setPen(th.grid);
    if (k == 1) p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
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
    p.setPen(QPen(s.color, 1.6, s.dashed ? Qt::DashLine : Qt::SolidLine));
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

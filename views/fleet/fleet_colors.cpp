#include "views/fleet/fleet_colors.h"

#include <QLinearGradient>
#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

#include "views/common/theme.h"

namespace doppler::views {

namespace {

// Viridis at nine stops (matplotlib's table, every 32nd entry).
constexpr std::array<QRgb, 9> kViridis = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                          0x28ae80, 0x5ec962, 0xaadc32, 0xfde725};

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

QColor sequentialColor(double t) {
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0) * (kViridis.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), kViridis.size() - 2);
  return mix(QColor(kViridis[i]), QColor(kViridis[i + 1]), t - static_cast<double>(i));
}

QColor divergingColor(double t) {
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, -1.0, 1.0);
  const QColor mid = Theme::current().background;
  // ColorBrewer RdBu's ends.
  return t < 0 ? mix(mid, QColor(0x2166ac), -t) : mix(mid, QColor(0xb2182b), t);
}

QColor methodColor(const std::string& method) {
  // Every method the fleet knows, in a fixed order: a method's colour is the same in the map, the
  // charts, the table and the decision trace, whichever methods a run asked for.
  static const char* const known[] = {
      "torta", "ot",   "milp",        "local",         "round-robin", "least-loaded",
      "skylb", "sdib", "ot-smoothed", "torta-routing", "ot-allocator"};
  for (size_t i = 0; i < std::size(known); ++i)
    if (method == known[i]) return Theme::seriesColor(static_cast<int64_t>(i));
  uint32_t h = 2166136261u;
  for (unsigned char c : method) h = (h ^ c) * 16777619u;
  return Theme::seriesColor(h);
}

void paintColorBar(QPainter& p, const QRectF& bar, bool diverging, const QString& low,
                   const QString& high, const QString& title) {
  const Theme& th = Theme::current();
  QLinearGradient g(bar.bottomLeft(), bar.topLeft());
  for (int k = 0; k <= 8; ++k) {
    const double t = k / 8.0;
    g.setColorAt(t, diverging ? divergingColor(2 * t - 1) : sequentialColor(t));
  }
  p.save();
  p.setPen(th.grid);
  p.setBrush(g);
  p.drawRect(bar);
  p.setPen(th.mutedText);
  const QFontMetrics fm = p.fontMetrics();
  p.drawText(QPointF(bar.right() + 4, bar.top() + fm.ascent() - 2), high);
  p.drawText(QPointF(bar.right() + 4, bar.bottom()), low);
  if (!title.isEmpty()) {
    p.translate(bar.left() - 4, bar.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-bar.height() / 2, -fm.height(), bar.height(), fm.height()), Qt::AlignCenter,
               title);
  }
  p.restore();
}

QString shortValue(double v) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  const double a = std::abs(v);
  if (a >= 1e6) return QString::number(v / 1e6, 'f', 2) + QStringLiteral(" M");
  if (a >= 1e4) return QString::number(v / 1e3, 'f', 1) + QStringLiteral(" k");
  if (a >= 100) return QString::number(v, 'f', 0);
  if (a >= 10) return QString::number(v, 'f', 1);
  if (a >= 1) return QString::number(v, 'f', 2);
  if (a == 0) return QStringLiteral("0");
  return QString::number(v, 'g', 3);
}

}  // namespace doppler::views

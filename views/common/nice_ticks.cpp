#include "views/common/nice_ticks.h"

#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

namespace doppler::views {

double niceStep(double span, int targetTicks) {
  const double raw = std::abs(span) / std::max(1, targetTicks);
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  return 10 * p;
}

NiceTicks niceTicks(double lo, double hi, int targetTicks, bool pad) {
  NiceTicks t;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {  // a flat series: a small range around it
    const double d = std::max(std::abs(hi) * 0.05, 1e-12);
    lo -= d;
    hi += d;
  }
  if (pad) {
    const double d = (hi - lo) * 0.06;
    lo = lo >= 0 ? std::max(0.0, lo - d) : lo - d;
    hi += d;
  }
  t.lo = lo;
  t.hi = hi;
  t.step = niceStep(hi - lo, targetTicks);
  // A few steps at most past the target: the loop is bounded even for a degenerate step.
  for (double v = std::ceil(lo / t.step - 1e-9) * t.step;
       v <= hi + t.step * 1e-9 && t.ticks.size() < 64; v += t.step)
    t.ticks.push_back(std::abs(v) < t.step * 1e-9 ? 0.0 : v);
  const int power = static_cast<int>(std::floor(std::log10(t.step) + 1e-9));
  t.decimals = std::clamp(-power, 0, 8);
  return t;
}

QString tickText(double value, const NiceTicks& t) {
  return QString::number(value, 'f', t.decimals);
}

void setNiceAxis(QValueAxis* axis, double lo, double hi, int targetTicks, bool pad) {
  const NiceTicks t = niceTicks(lo, hi, targetTicks, pad);
  // Fixed ticks while the range changes: laid out with the old interval, a range that grew from
  // a flat series (interval ~1e-12) to a spread one would make trillions of ticks (it did: the
  // studio ran out of memory on a stage III run whose loss started at exactly 0).
  axis->setTickType(QValueAxis::TicksFixed);
  axis->setRange(t.lo, t.hi);
  axis->setTickAnchor(std::ceil(t.lo / t.step - 1e-9) * t.step);
  axis->setTickInterval(t.step);
  axis->setTickType(QValueAxis::TicksDynamic);
  // As many decimals as the step needs: Qt's default %g switches to exponents.
  const QString format = QStringLiteral("%.%1f").arg(t.decimals);
  if (axis->labelFormat() != format) axis->setLabelFormat(format);
}

}  // namespace doppler::views

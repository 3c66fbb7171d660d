#include "views/training/minmax_decimator.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace doppler::views {

namespace {

// x -> pixel column, with the division done once per series rather than once per point (the
// decimator's inner loop: 50,000 points per series and redraw).
struct Columns {
  double x0, perUnit;
  int last;
  Columns(double x0_, double x1, int width)
      : x0(x0_), perUnit(x1 > x0_ ? width / (x1 - x0_) : 0.0), last(std::max(width - 1, 0)) {}
  int operator()(double x) const {
    const double f = (x - x0) * perUnit;
    // Truncation is floor for f >= 0; the clamp keeps x1 itself (f == width) in the last column.
    return f <= 0 ? 0 : f >= last ? last : static_cast<int>(f);
  }
};

}  // namespace

int pixelColumn(double x, double x0, double x1, int width) {
  return Columns(x0, x1, width)(x);
}

void decimateMinMax(std::span<const double> xs, std::span<const double> ys, double x0, double x1,
                    int width, std::vector<XY>& out) {
  assert(xs.size() == ys.size());
  if (width <= 0 || xs.empty() || !(x1 >= x0)) return;
  const size_t n = std::min(xs.size(), ys.size());
  const auto xBegin = xs.begin(), xEnd = xs.begin() + static_cast<std::ptrdiff_t>(n);
  // xs is sorted, so the visible range is one contiguous run [first, last).
  const size_t first = static_cast<size_t>(std::lower_bound(xBegin, xEnd, x0) - xBegin);
  const size_t last = static_cast<size_t>(std::upper_bound(xBegin, xEnd, x1) - xBegin);

  // The nearest drawable point before the range: the line from it enters the plot at its edge.
  for (size_t i = first; i-- > 0;)
    if (!std::isnan(ys[i])) {
      out.push_back({xs[i], ys[i]});
      break;
    }

  if (last - first <= 2 * static_cast<size_t>(width)) {
    // Few enough to draw them all: decimating would only lose points.
    for (size_t i = first; i < last; ++i)
      if (!std::isnan(ys[i])) out.push_back({xs[i], ys[i]});
  } else {
    size_t firstValid = last, lastValid = last;
    for (size_t i = first; i < last; ++i)
      if (!std::isnan(ys[i])) {
        firstValid = i;
        break;
      }
    for (size_t i = last; i-- > first;)
      if (!std::isnan(ys[i])) {
        lastValid = i;
        break;
      }
    // One pass over the range; a column is flushed when the next one starts. Indices, not
    // values, so that the two extremes come out in their original x order.
    const Columns columnOf(x0, x1, width);
    size_t lo = last, hi = last;  // of the current column; `last` = none yet
    int column = -1;
    auto flush = [&] {
      if (lo == last) return;
      size_t a = std::min(lo, hi), b = std::max(lo, hi);
      // The range's first and last points are kept even when they are no extreme.
      if (firstValid < a && columnOf(xs[firstValid]) == column)
        out.push_back({xs[firstValid], ys[firstValid]});
      out.push_back({xs[a], ys[a]});
      if (b != a) out.push_back({xs[b], ys[b]});
      if (lastValid > b && columnOf(xs[lastValid]) == column)
        out.push_back({xs[lastValid], ys[lastValid]});
    };
    for (size_t i = first; i < last; ++i) {
      const double y = ys[i];
      if (std::isnan(y)) continue;
      const int c = columnOf(xs[i]);
      if (c != column) {
        flush();
        column = c;
        lo = hi = i;
        continue;
      }
      // Strict comparisons keep the earliest of equal extremes: ties add no point.
      if (y < ys[lo]) lo = i;
      if (y > ys[hi]) hi = i;
    }
    flush();
  }

  // The nearest drawable point after the range.
  for (size_t i = last; i < n; ++i)
    if (!std::isnan(ys[i])) {
      out.push_back({xs[i], ys[i]});
      break;
    }
}

std::vector<XY> decimateMinMax(std::span<const double> xs, std::span<const double> ys, double x0,
                               double x1, int width) {
  std::vector<XY> out;
  out.reserve(std::min(xs.size(), 2 * static_cast<size_t>(std::max(width, 0)) + 4));
  decimateMinMax(xs, ys, x0, x1, width, out);
  return out;
}

}  // namespace doppler::views

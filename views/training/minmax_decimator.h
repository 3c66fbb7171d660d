#pragma once
// Min/max decimation of a long (x, y) series for drawing: a line or scatter plot of 50,000 points
// on an 800-pixel plot sets each pixel column to the span between the column's smallest and
// largest y, so keeping exactly those two points per column draws the same picture at a fraction
// of the cost. Plain C++, no Qt: the charts convert the few points that remain.
#include <span>
#include <vector>

namespace doppler::views {

struct XY {
  double x = 0, y = 0;
  bool operator==(const XY&) const = default;
};

// Reduces the points (xs[i], ys[i]) to what a plot of the x-range [x0, x1] that is `width`
// pixels wide needs, appended to `out` in x order:
//   - for every pixel column, the point with the smallest and the one with the largest y (one
//     point when they coincide), in their original order;
//   - the first and the last point inside the range, so that a line starts and ends where the
//     data does;
//   - the nearest point on each side outside the range, so that a line runs into the plot's edge.
// So the result has at most 2 * width + 4 points. Points with a NaN y are skipped (a gap in the
// data is not a value); xs must be non-decreasing and finite. When the range holds no more than
// 2 * width points they are all kept as they are. width <= 0 keeps nothing.
void decimateMinMax(std::span<const double> xs, std::span<const double> ys, double x0, double x1,
                    int width, std::vector<XY>& out);

std::vector<XY> decimateMinMax(std::span<const double> xs, std::span<const double> ys, double x0,
                               double x1, int width);

// The pixel column of x in a plot of [x0, x1] that is `width` pixels wide (clamped to
// [0, width - 1]); the decimator's binning, exposed so that tests check against the same rule.
int pixelColumn(double x, double x0, double x1, int width);

}  // namespace doppler::views

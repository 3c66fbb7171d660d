#pragma once
// The fleet workbench's colour scales, shared by the map, the heatmap and the decision trace so
// one value reads the same everywhere: a sequential scale (viridis: dark blue, low, to yellow,
// high; readable in both themes and for colour-blind readers), a diverging one (blue, negative,
// through the theme's background, to red, positive) and one colour per method.
#include <QColor>
#include <QRectF>
#include <QString>
#include <string>
#include <vector>

class QPainter;

namespace doppler::views {

// t in [0, 1] (clamped).
QColor sequentialColor(double t);
// t in [-1, 1] (clamped); 0 is the theme's background.
QColor divergingColor(double t);
// A stable colour per method, the same in every window (the runs' series palette, apart from the
// devices'): a fixed place for the fleet's own methods, else a hash of the name.
QColor methodColor(const std::string& method);

// A vertical colour bar with its end labels, for legends.
void paintColorBar(QPainter& p, const QRectF& bar, bool diverging, const QString& low,
                   const QString& high, const QString& title);

// "1.23 k", "0.456", "12.3": a number in a short label.
QString shortValue(double v);

}  // namespace doppler::views

#pragma once
// A small line chart over slots painted with QPainter: one line per series, the selected slot as
// a vertical line, optional markers (the decision trace's fallback slots). Shared by the
// workbench's per-method charts and the decision trace's regret.
#include <QColor>
#include <QRectF>
#include <QString>
#include <vector>

class QPainter;

namespace doppler::views {

struct ChartSeries {
  QString name;
  QColor color;
  std::vector<double> values;  // one per slot; NaN leaves a gap
  bool dashed = false;
  double width = 1.6;    // pen width; a raw series under its smoothed one is drawn thin
  bool inLegend = true;  // false: drawn without a legend entry (that faint raw series)
};

struct LineChartSpec {
  QString title, unit;
  std::vector<ChartSeries> series;
  int slot = -1;             // the selected slot (-1: none)
  std::vector<int> markers;  // slots marked on the x axis
  QString markerName;        // the markers' legend entry
  bool zeroLine = false;     // a line at y = 0 (regret)
  // A logarithmic y axis (positive values only; others leave gaps): one method that saturates
  // would otherwise flatten the others into a line at the bottom.
  bool logY = false;
  QString xName = QStringLiteral("slot");  // the x axis' unit, on its last tick
};

// Paints into `area`; returns the plot rectangle (for mapping clicks to slots).
QRectF paintLineChart(QPainter& p, const QRectF& area, const LineChartSpec& spec);
// The slot under x in a plot rectangle of `slots` slots.
int slotAtX(const QRectF& plot, int slots, double x);

}  // namespace doppler::views

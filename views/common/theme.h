#pragma once
// Colours and fonts every view draws with, for the light and the dark theme. One colour, one
// meaning: devices get a colour-blind-safe qualitative palette of twelve hues and nothing else
// uses it; op kinds get greys (no hue at all), so a timeline coloured by op is never read as one
// coloured by device.
#include <QColor>
#include <QFont>
#include <cstdint>

class QApplication;
class QWidget;

namespace doppler::views {

struct Theme {
  bool dark = false;
  QColor background, panel, text, mutedText, grid, laneAlt, idle, idleHatch, selection, hover,
      critical, moved, localEdge, crossEdge, rangeFill, rangeEdge, flow, legendBackground;

  static const Theme& current();
  static bool isDark();
  // Switches the theme (and, given an application, its palette: Fusion style with matching
  // colours).
  static void setDark(bool dark, QApplication* app = nullptr);

  static QColor deviceColor(int device);
  // Op kinds ranked by how many nodes they have (TimelineData): the first kOpShades get a grey
  // each, the rest share one light grey that views draw dotted, named "other" in the legend.
  static constexpr int kOpShades = 8;
  static QColor opShade(int rank);
  // Lines in charts, one per run or method: a palette of its own, at least 15 CIEDE2000 from every
  // device colour, so a run's line is never read as a device. `key` picks it (a run's id, a
  // method's place in a fixed list) and cycles after kSeriesColors.
  static constexpr int kSeriesColors = 11;
  static QColor seriesColor(int64_t key);
  static QColor nodeColor(int node);  // a stable colour per node index (timeline "by node")
  // A readable text colour on a given fill.
  static QColor textOn(const QColor& fill);
};

// Scales a widget's font for titles and read-outs (presentation mode scales the base font, so
// everything derived from it grows with it).
QFont titleFont(const QWidget& w, double factor = 1.15, bool bold = true);

// "12.3 ms", "850 us", "2.41 s": a duration in microseconds, three significant digits.
QString formatDuration(double us);
// A point in time with microsecond resolution ("18.312 ms"), for start and finish times.
QString formatTime(double us);
QString formatBytes(double bytes);
QString formatFlops(double flops);

}  // namespace doppler::views

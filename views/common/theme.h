#pragma once
// Colours and fonts every view draws with, for the light and the dark theme. Devices get strong
// qualitative colours (Tableau 10); op kinds get a softer palette so a timeline coloured by op is
// never mistaken for one coloured by device.
#include <QColor>
#include <QFont>
#include <string>

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
  static QColor opColor(const std::string& op);
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

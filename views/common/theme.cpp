#include "views/common/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>
#include <algorithm>
#include <array>
#include <cmath>

namespace doppler::views {
namespace {

Theme makeTheme(bool dark) {
  Theme t;
  t.dark = dark;
  if (!dark) {
    t.background = QColor(0xfb, 0xfb, 0xfc);
    t.panel = QColor(0xf0, 0xf1, 0xf4);
    t.text = QColor(0x1f, 0x23, 0x28);
    t.mutedText = QColor(0x5f, 0x66, 0x70);
    t.grid = QColor(0xdd, 0xe0, 0xe5);
    t.laneAlt = QColor(0xf3, 0xf4, 0xf7);
    t.idle = QColor(0xfd, 0xef, 0xef);
    t.idleHatch = QColor(0xe8, 0xa0, 0xa0);
    t.selection = QColor(0x10, 0x10, 0x10);
    t.hover = QColor(0xff, 0xb0, 0x00);
    t.critical = QColor(0xd6, 0x1f, 0x69);
    t.moved = QColor(0xff, 0x6d, 0x00);
    t.localEdge = QColor(0xa8, 0xae, 0xb8);
    t.crossEdge = QColor(0x3c, 0x45, 0x55);
    t.rangeFill = QColor(0x33, 0x66, 0xcc, 40);
    t.rangeEdge = QColor(0x33, 0x66, 0xcc);
    t.flow = QColor(0x22, 0x22, 0x22);
    t.legendBackground = QColor(255, 255, 255, 235);
  } else {
    t.background = QColor(0x1e, 0x20, 0x24);
    t.panel = QColor(0x2a, 0x2d, 0x32);
    t.text = QColor(0xe6, 0xe8, 0xeb);
    t.mutedText = QColor(0xa0, 0xa6, 0xb0);
    t.grid = QColor(0x3a, 0x3e, 0x45);
    t.laneAlt = QColor(0x25, 0x28, 0x2d);
    t.idle = QColor(0x3a, 0x26, 0x28);
    t.idleHatch = QColor(0x8a, 0x4a, 0x4e);
    t.selection = QColor(0xff, 0xff, 0xff);
    t.hover = QColor(0xff, 0xc4, 0x3d);
    t.critical = QColor(0xff, 0x4f, 0x8b);
    t.moved = QColor(0xff, 0x8f, 0x1f);
    t.localEdge = QColor(0x6a, 0x70, 0x7a);
    t.crossEdge = QColor(0xc4, 0xc9, 0xd1);
    t.rangeFill = QColor(0x6f, 0x9c, 0xff, 50);
    t.rangeEdge = QColor(0x8f, 0xb4, 0xff);
    t.flow = QColor(0xf0, 0xf0, 0xf0);
    t.legendBackground = QColor(0x2a, 0x2d, 0x32, 235);
  }
  return t;
}

Theme& mutableTheme() {
  static Theme theme = makeTheme(false);
  return theme;
}

// Twelve qualitative colours that stay apart for colour-blind viewers: the smallest CIEDE2000
// difference between any two, under normal vision and simulated protanopia, deuteranopia and
// tritanopia (Machado et al. 2009), is 11.9 (Tableau 10 gives 0.7), and each stands at least 13
// from the light and the dark background. The first four are Okabe-Ito's blue, orange, green and
// a wine; the order keeps every prefix at least 12.4 apart up to seven devices.
// tests/views/palette_test.cpp recomputes these figures.
constexpr std::array<QRgb, 12> kDevicePalette = {0x0072b2, 0xe69f00, 0x009e73, 0x993366,
                                                 0x99ddff, 0xd55e00, 0x9999ff, 0x006633,
                                                 0xccff99, 0x3300cc, 0x660000, 0x330066};
// Runs and methods (chart lines): each at least 15.4 CIEDE2000 from every device colour and 23
// from each other (normal vision), lightness 28 to 75 so a line reads on both backgrounds.
constexpr std::array<QRgb, Theme::kSeriesColors> kSeriesPalette = {
    0xee6677, 0x00aaee, 0x888800, 0xcc44ee, 0xaa2200, 0x006666,
    0x444488, 0xccaa88, 0x00cc00, 0x444422, 0xccaacc};
// Op kinds are greys, so no op is ever read as a device: eight lightness levels (CIE L*),
// alternating dark and light so kinds next to each other in the legend differ most, and none
// between 33 and 47, where a grey comes within CIEDE2000 5 of a device colour for a colour-blind
// viewer (the wine and the indigo lose their hue).
constexpr std::array<int, Theme::kOpShades> kOpLightness = {20, 72, 48, 88, 30, 64, 80, 56};

// The sRGB grey of a CIE lightness L* (0..100).
QColor greyOfLightness(double l) {
  const double y = l > 8 ? std::pow((l + 16) / 116, 3) : l / 903.3;
  const double c = y <= 0.0031308 ? 12.92 * y : 1.055 * std::pow(y, 1 / 2.4) - 0.055;
  const int v = static_cast<int>(std::lround(std::clamp(c, 0.0, 1.0) * 255));
  return QColor(v, v, v);
}

}  // namespace

const Theme& Theme::current() {
  return mutableTheme();
}
bool Theme::isDark() {
  return mutableTheme().dark;
}

void Theme::setDark(bool dark, QApplication* app) {
  mutableTheme() = makeTheme(dark);
  if (!app) return;
  app->setStyle(QStyleFactory::create("Fusion"));
  if (!dark) {
    app->setPalette(app->style()->standardPalette());
    return;
  }
  QPalette p;
  const Theme& t = current();
  p.setColor(QPalette::Window, t.panel);
  p.setColor(QPalette::WindowText, t.text);
  p.setColor(QPalette::Base, t.background);
  p.setColor(QPalette::AlternateBase, t.laneAlt);
  p.setColor(QPalette::ToolTipBase, t.panel);
  p.setColor(QPalette::ToolTipText, t.text);
  p.setColor(QPalette::PlaceholderText, t.mutedText);
  p.setColor(QPalette::Text, t.text);
  p.setColor(QPalette::Button, t.panel);
  p.setColor(QPalette::ButtonText, t.text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, QColor(0x6f, 0x9c, 0xff));
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x6e, 0xc9));
  p.setColor(QPalette::HighlightedText, Qt::white);
  const QColor disabled(0x6b, 0x70, 0x79);
  p.setColor(QPalette::Disabled, QPalette::Text, disabled);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
  p.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
  p.setColor(QPalette::Disabled, QPalette::Base, t.panel);
  app->setPalette(p);
}

QColor Theme::deviceColor(int device) {
  if (device < 0) return QColor(0x99, 0x99, 0x99);
  if (device < static_cast<int>(kDevicePalette.size())) return QColor(kDevicePalette[device]);
  // Beyond twelve devices: golden-angle hues, alternating lightness so neighbours differ (not
  // colour-blind safe; the legend and the lane names carry the device there).
  const int hue = static_cast<int>(std::fmod(device * 137.508, 360.0));
  return QColor::fromHsl(hue, 150, device % 2 ? 120 : 150);
}

QColor Theme::opShade(int rank) {
  if (rank >= 0 && rank < kOpShades) return greyOfLightness(kOpLightness[rank]);
  return greyOfLightness(96);  // the other kinds, drawn dotted over it
}

QColor Theme::seriesColor(int64_t key) {
  const int64_t n = static_cast<int64_t>(kSeriesPalette.size());
  return QColor(kSeriesPalette[static_cast<size_t>(((key % n) + n) % n)]);
}

QColor Theme::nodeColor(int node) {
  const int hue = static_cast<int>(std::fmod(node * 137.508, 360.0));
  return QColor::fromHsl(hue, 140, current().dark ? 110 : 170);
}

QColor Theme::textOn(const QColor& fill) {
  const double l = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
  return l > 0.55 ? QColor(0x1a, 0x1a, 0x1a) : QColor(0xf8, 0xf8, 0xf8);
}

QFont titleFont(const QWidget& w, double factor, bool bold) {
  QFont f = w.font();
  if (f.pointSizeF() > 0)
    f.setPointSizeF(f.pointSizeF() * factor);
  else
    f.setPixelSize(static_cast<int>(f.pixelSize() * factor));
  f.setBold(bold);
  return f;
}

QString formatDuration(double us) {
  const double a = std::abs(us);
  if (a == 0) return QStringLiteral("0");
  auto three = [](double x) {
    const int decimals = std::abs(x) >= 100 ? 0 : std::abs(x) >= 10 ? 1 : 2;
    return QString::number(x, 'f', decimals);
  };
  if (a >= 1e6) return three(us / 1e6) + " s";
  if (a >= 1e3) return three(us / 1e3) + " ms";
  if (a >= 1) return three(us) + QString::fromUtf8(" µs");
  return QString::number(us * 1e3, 'f', 0) + " ns";
}

QString formatTime(double us) {
  const double a = std::abs(us);
  if (a == 0) return QStringLiteral("0");
  if (a >= 1e6) return QString::number(us / 1e6, 'f', 6) + " s";
  if (a >= 1e3) return QString::number(us / 1e3, 'f', 3) + " ms";
  return QString::number(us, 'f', 3) + QString::fromUtf8(" µs");
}

QString formatBytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (std::abs(bytes) >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  return QString::number(bytes, 'g', 3) + " " + units[u];
}

QString formatFlops(double flops) {
  const char* units[] = {"", "K", "M", "G", "T", "P"};
  int u = 0;
  while (std::abs(flops) >= 1000 && u < 5) {
    flops /= 1000;
    ++u;
  }
  return QString::number(flops, 'g', 3) + " " + units[u] + "FLOP";
}

}  // namespace doppler::views

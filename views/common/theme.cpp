#include "views/common/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>
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

constexpr std::array<QRgb, 10> kDevicePalette = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                                 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
// ColorBrewer Set3, a soft qualitative palette.
constexpr std::array<QRgb, 12> kOpPalette = {0x8dd3c7, 0xffffb3, 0xbebada, 0xfb8072,
                                             0x80b1d3, 0xfdb462, 0xb3de69, 0xfccde5,
                                             0xd9d9d9, 0xbc80bd, 0xccebc5, 0xffed6f};

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
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
  // Beyond ten devices: golden-angle hues, alternating lightness so neighbours differ.
  const int hue = static_cast<int>(std::fmod(device * 137.508, 360.0));
  return QColor::fromHsl(hue, 150, device % 2 ? 120 : 150);
}

QColor Theme::opColor(const std::string& op) {
  static const std::pair<const char*, int> known[] = {
      {"matmul", 4},  {"add", 0},  {"input", 8},   {"relu", 6},     {"bias_add", 1}, {"concat", 9},
      {"softmax", 3}, {"rope", 5}, {"rmsnorm", 2}, {"silu_mul", 7}, {"mul", 10},     {"", 11}};
  for (const auto& [name, index] : known)
    if (op == name) return QColor(kOpPalette[index]);
  return QColor(kOpPalette[fnv1a(op) % kOpPalette.size()]);
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

// views.palette: one colour per meaning. The device palette keeps twelve colours apart for
// everyone: every pair differs by CIEDE2000 ≥ 10 under normal vision and under simulated
// protanopia, deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009, severity 1), and
// each stands apart from the light and the dark background. Op kinds are greys (no hue, so never
// a device's) with distinct shades for the most common kinds and one "other" for the rest: a
// 200-kind model does not cycle through colours that mean something else.
#include <QtTest>
#include <algorithm>
#include <array>
#include <cmath>

#include "core/common/numbered.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/sim/schedule.h"
#include "views/common/theme.h"
#include "views/timeline/timeline_data.h"

using namespace doppler;
using namespace doppler::views;

namespace {

using Lab = std::array<double, 3>;
using Matrix = std::array<std::array<double, 3>, 3>;

// Machado et al. 2009, severity 1.0, on linear RGB.
constexpr std::array<Matrix, 4> kVision = {{
    {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
    {{{0.152286, 1.052583, -0.204868},
      {0.114503, 0.786281, 0.099216},
      {-0.003882, -0.048116, 1.051998}}},
    {{{0.367322, 0.860646, -0.227968},
      {0.280085, 0.672501, 0.047413},
      {-0.011820, 0.042940, 0.968881}}},
    {{{1.255528, -0.076749, -0.178779},
      {-0.078411, 0.930809, 0.147602},
      {0.004733, 0.691367, 0.303900}}},
}};

double linear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

Lab labOf(const QColor& colour, const Matrix& m) {
  const std::array<double, 3> in = {linear(colour.redF()), linear(colour.greenF()),
                                    linear(colour.blueF())};
  std::array<double, 3> rgb{};
  for (int i = 0; i < 3; ++i)
    rgb[i] = std::clamp(m[i][0] * in[0] + m[i][1] * in[1] + m[i][2] * in[2], 0.0, 1.0);
  const double x = 0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2];
  const double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  const double z = 0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2];
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  const double fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

double radians(double deg) {
  return deg * M_PI / 180;
}

// CIEDE2000 (Sharma, Wu and Dalal 2005).
double deltaE2000(const Lab& p, const Lab& q) {
  const double c1 = std::hypot(p[1], p[2]), c2 = std::hypot(q[1], q[2]);
  const double cBar = (c1 + c2) / 2;
  const double g = 0.5 * (1 - std::sqrt(std::pow(cBar, 7) / (std::pow(cBar, 7) + std::pow(25, 7))));
  const double a1 = (1 + g) * p[1], a2 = (1 + g) * q[1];
  const double c1p = std::hypot(a1, p[2]), c2p = std::hypot(a2, q[2]);
  auto hue = [](double b, double a) {
    const double h = std::atan2(b, a) * 180 / M_PI;
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(p[2], a1), h2 = hue(q[2], a2);
  const double dL = q[0] - p[0], dC = c2p - c1p;
  double dh = 0;
  if (c1p * c2p != 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    if (dh < -180) dh += 360;
  }
  const double dH = 2 * std::sqrt(c1p * c2p) * std::sin(radians(dh / 2));
  const double lBar = (p[0] + q[0]) / 2, cBarP = (c1p + c2p) / 2;
  double hBar = h1 + h2;
  if (c1p * c2p != 0)
    hBar = std::abs(h1 - h2) <= 180 ? (h1 + h2) / 2
           : h1 + h2 < 360          ? (h1 + h2 + 360) / 2
                                    : (h1 + h2 - 360) / 2;
  const double t = 1 - 0.17 * std::cos(radians(hBar - 30)) + 0.24 * std::cos(radians(2 * hBar)) +
                   0.32 * std::cos(radians(3 * hBar + 6)) - 0.20 * std::cos(radians(4 * hBar - 63));
  const double dTheta = 30 * std::exp(-std::pow((hBar - 275) / 25, 2));
  const double rc = 2 * std::sqrt(std::pow(cBarP, 7) / (std::pow(cBarP, 7) + std::pow(25, 7)));
  const double sl = 1 + 0.015 * std::pow(lBar - 50, 2) / std::sqrt(20 + std::pow(lBar - 50, 2));
  const double sc = 1 + 0.045 * cBarP, sh = 1 + 0.015 * cBarP * t;
  const double rt = -std::sin(radians(2 * dTheta)) * rc;
  return std::sqrt(std::pow(dL / sl, 2) + std::pow(dC / sc, 2) + std::pow(dH / sh, 2) +
                   rt * (dC / sc) * (dH / sh));
}

// The smallest difference between two colours over the four kinds of vision.
double worstDifference(const QColor& a, const QColor& b) {
  double worst = 1e9;
  for (const Matrix& m : kVision) worst = std::min(worst, deltaE2000(labOf(a, m), labOf(b, m)));
  return worst;
}

}  // namespace

class PaletteTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void theDifferenceIsCiede2000() {
    // Sharma et al.'s test data, pairs 1 and 17.
    QVERIFY(std::abs(deltaE2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}) - 2.0425) < 1e-3);
    QVERIFY(std::abs(deltaE2000({50, 2.5, 0}, {73, 25, -18}) - 27.1492) < 1e-3);
  }

  void twelveDeviceColoursStayApartForColourBlindViewers() {
    double worst = 1e9;
    for (int a = 0; a < 12; ++a)
      for (int b = a + 1; b < 12; ++b) {
        const double d = worstDifference(Theme::deviceColor(a), Theme::deviceColor(b));
        QVERIFY2(d >= 10, qPrintable(QStringLiteral("devices %1 and %2: %3").arg(a).arg(b).arg(d)));
        worst = std::min(worst, d);
      }
    qInfo("smallest CIEDE2000 between two of the 12 device colours, any vision: %.1f", worst);
    // Tableau 10, the palette before, fails the same measure.
    const std::array<QRgb, 10> tableau = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                          0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    double tableauWorst = 1e9;
    for (size_t a = 0; a < tableau.size(); ++a)
      for (size_t b = a + 1; b < tableau.size(); ++b)
        tableauWorst =
            std::min(tableauWorst, worstDifference(QColor(tableau[a]), QColor(tableau[b])));
    QVERIFY(tableauWorst < 10);
  }

  void deviceColoursStandOutFromBothBackgrounds() {
    for (const bool dark : {false, true}) {
      Theme::setDark(dark);
      for (int d = 0; d < 12; ++d)
        QVERIFY2(worstDifference(Theme::deviceColor(d), Theme::current().background) >= 10,
                 qPrintable(QStringLiteral("device %1, dark %2").arg(d).arg(dark)));
    }
    Theme::setDark(false);
  }

  void opKindsAreGreysThatDoNotCycle() {
    // A 200-kind graph: the eight commonest kinds get a shade each, the rest one "other".
    DataflowGraph g;
    for (int k = 0; k < 200; ++k)
      for (int copies = 0; copies <= (k < 8 ? 8 - k : 0); ++copies) {
        Node node;
        node.id = doppler::numbered("n", g.nodeCount());
        node.op = doppler::numbered("op", k);
        g.addNode(std::move(node));
      }
    const DeviceSet devices = DeviceSet::uniform(2);
    const TimelineData t = TimelineData::build(g, devices, Schedule{});
    QCOMPARE(t.ops.size(), size_t(200));
    std::vector<QRgb> shades;
    for (int rank = 0; rank < Theme::kOpShades; ++rank) {
      QCOMPARE(t.ops[rank].op, "op" + std::to_string(rank));  // most nodes first
      shades.push_back(t.ops[rank].color);
    }
    for (int v = 0; v < g.nodeCount(); ++v) {
      const QColor c = QColor::fromRgb(t.opColor[v]);
      QCOMPARE(c.red(), c.green());  // grey: no hue to share with a device
      QCOMPARE(c.green(), c.blue());
      const bool other = t.opRank[v] >= Theme::kOpShades;
      QCOMPARE(t.otherOp(v), other);
      if (other) QCOMPARE(t.opColor[v], Theme::opShade(Theme::kOpShades).rgb());
    }
    std::sort(shades.begin(), shades.end());
    QVERIFY(std::adjacent_find(shades.begin(), shades.end()) == shades.end());
    QVERIFY(std::find(shades.begin(), shades.end(), Theme::opShade(Theme::kOpShades).rgb()) ==
            shades.end());
    // Every grey is far from every device colour.
    for (int rank = 0; rank <= Theme::kOpShades; ++rank)
      for (int d = 0; d < 12; ++d)
        QVERIFY2(worstDifference(Theme::opShade(rank), Theme::deviceColor(d)) >= 5,
                 qPrintable(QStringLiteral("shade %1, device %2").arg(rank).arg(d)));
  }
};

int runPaletteTest(int argc, char** argv) {
  PaletteTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "palette_test.moc"

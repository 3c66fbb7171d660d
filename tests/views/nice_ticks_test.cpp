// views.ticks: every chart's axis ticks fall on 1, 2 or 5 x 10^k, including the episode axis
// that read 0/37/75/112/150 on a 150-episode run, and the Qt Charts axes are set to them.
#include "views/common/nice_ticks.h"

#include <QtCharts/QValueAxis>
#include <QtTest>
#include <cmath>

using namespace doppler::views;

namespace {

bool isRound(double step) {
  const double p = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double m = step / p;
  return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
}

}  // namespace

class NiceTicksTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void stepsAreOneTwoOrFiveTimesAPowerOfTen() {
    for (double span : {1.0, 3.0, 7.5, 37.0, 150.0, 999.0, 0.013, 2.4e6})
      for (int target : {2, 3, 4, 5, 6}) {
        const double step = niceStep(span, target);
        QVERIFY2(isRound(step),
                 qPrintable(QStringLiteral("%1 / %2 -> %3").arg(span).arg(target).arg(step)));
        QVERIFY(step >= span / target * (1 - 1e-9));
        QVERIFY(step <= span / target * 5 + 1e-12);  // never coarser than one step of the next
      }
  }

  void aHundredAndFiftyEpisodesTickAtRoundNumbers() {
    const NiceTicks t = niceTicks(0, 150, 5);
    QCOMPARE(t.lo, 0.0);
    QCOMPARE(t.hi, 150.0);  // an x axis keeps the data's range
    QCOMPARE(t.step, 50.0);
    QCOMPARE(t.ticks, (std::vector<double>{0, 50, 100, 150}));
    QCOMPARE(tickText(100, t), QStringLiteral("100"));
  }

  void paddedRangesStayAtOrAboveZeroAndLabelWithTheStepsDecimals() {
    const NiceTicks t = niceTicks(0.02, 0.35, 4, true);
    QVERIFY(t.lo >= 0);
    QVERIFY(t.lo < 0.02 && t.hi > 0.35);
    QCOMPARE(t.step, 0.1);
    QCOMPARE(tickText(0.3, t), QStringLiteral("0.3"));
    for (double v : t.ticks) QVERIFY(std::abs(v / t.step - std::round(v / t.step)) < 1e-9);
    // A flat series still gets a range and ticks.
    const NiceTicks flat = niceTicks(5, 5, 4);
    QVERIFY(flat.hi > flat.lo);
    QVERIFY(!flat.ticks.empty());
  }

  void aQtChartsAxisGetsDynamicRoundTicks() {
    QValueAxis axis;
    setNiceAxis(&axis, 0, 150, 5);
    QCOMPARE(axis.min(), 0.0);
    QCOMPARE(axis.max(), 150.0);
    QCOMPARE(axis.tickType(), QValueAxis::TicksDynamic);
    QCOMPARE(axis.tickInterval(), 50.0);
    QCOMPARE(axis.tickAnchor(), 0.0);
    QCOMPARE(axis.labelFormat(), QStringLiteral("%.0f"));
  }
};

int runNiceTicksTest(int argc, char** argv) {
  NiceTicksTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "nice_ticks_test.moc"

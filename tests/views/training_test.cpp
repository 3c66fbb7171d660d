// The training dashboard's parts: the min/max decimator (exact per pixel column), the live charts
// (bounded drawn series, a monotone best, reference lines) and the dashboard itself (editors
// generated from the training specs, changed values only, buttons by state, signals, ETA).
// DOPPLER_TRAINING_PNG=DIR saves the dashboard on a synthetic 12,000-episode run, light and dark.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyleFactory>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QValueAxis>
#include <QtCharts/QXYSeries>
#include <QtTest>
#include <cmath>
#include <random>

#include "views/common/legend_bar.h"
#include "views/common/param_editors.h"
#include "views/common/theme.h"
#include "views/training/minmax_decimator.h"
#include "views/training/training_dashboard.h"

using namespace doppler;
using namespace doppler::views;

namespace {

// A noisy makespan decaying from ~2x to ~1.05x a 10 ms bound, as stage II runs look, with a
// greedy evaluation every 50 episodes and the losses, entropy and rates of a real report.
std::vector<train::TrainProgress> syntheticRun(long episodes, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 1);
  std::vector<train::TrainProgress> out;
  out.reserve(static_cast<size_t>(episodes));
  double best = NAN;
  for (long e = 1; e <= episodes; ++e) {
    const double f = static_cast<double>(e) / static_cast<double>(episodes);
    const double level = 10'000 * (1.05 + 0.95 * std::exp(-6 * f));
    train::TrainProgress p;
    p.stage = train::Stage::Simulation;
    p.episode = e;
    p.episodes = episodes;
    p.makespan_us = level * (1 + 0.08 * (1 - 0.6 * f) * std::abs(noise(rng)));
    best = std::isnan(best) ? p.makespan_us : std::min(best, p.makespan_us);
    p.best_makespan_us = best;
    p.sel_loss = 0.8 * std::exp(-3 * f) + 0.05 * noise(rng) * (1 - f);
    p.plc_loss = 1.2 * std::exp(-4 * f) + 0.08 * noise(rng) * (1 - f);
    p.entropy = 2.5 * (1 - f) + 0.3 + 0.05 * noise(rng);
    p.lr = 3e-4 + (1e-6 - 3e-4) * f;
    p.episodes_per_s = 850 + 40 * noise(rng);
    p.elapsed_s = e / 850.0;
    if (e % 50 == 0) {
      p.evaluated = true;
      p.greedy_makespan_us = level * (1 + 0.02 * std::abs(noise(rng)));
    }
    out.push_back(p);
  }
  return out;
}

std::vector<XY> all(const std::vector<double>& xs, const std::vector<double>& ys) {
  std::vector<XY> out;
  for (size_t i = 0; i < xs.size(); ++i) out.push_back({xs[i], ys[i]});
  return out;
}

bool contains(const std::vector<XY>& points, XY p) {
  return std::find(points.begin(), points.end(), p) != points.end();
}

}  // namespace

class TrainingTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // ---- Decimator

  void decimationKeepsEveryColumnsMinimumAndMaximum() {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-5, 5);
    std::vector<double> xs, ys;
    for (int i = 0; i < 20000; ++i) {
      xs.push_back(i * 0.37);
      ys.push_back(u(rng));
    }
    const double x0 = 1000, x1 = 5000;
    const int width = 333;
    const std::vector<XY> out = decimateMinMax(xs, ys, x0, x1, width);
    QVERIFY(out.size() <= 2 * static_cast<size_t>(width) + 4);
    // Brute force: each column's extremes, from the original data.
    std::vector<double> lo(width, INFINITY), hi(width, -INFINITY);
    for (size_t i = 0; i < xs.size(); ++i)
      if (xs[i] >= x0 && xs[i] <= x1) {
        const int c = pixelColumn(xs[i], x0, x1, width);
        lo[c] = std::min(lo[c], ys[i]);
        hi[c] = std::max(hi[c], ys[i]);
      }
    std::vector<double> gotLo(width, INFINITY), gotHi(width, -INFINITY);
    for (const XY& p : out)
      if (p.x >= x0 && p.x <= x1) {
        const int c = pixelColumn(p.x, x0, x1, width);
        gotLo[c] = std::min(gotLo[c], p.y);
        gotHi[c] = std::max(gotHi[c], p.y);
      }
    for (int c = 0; c < width; ++c) {
      QCOMPARE(gotLo[c], lo[c]);
      QCOMPARE(gotHi[c], hi[c]);
    }
    // In x order, and every point is one of the data's.
    for (size_t i = 1; i < out.size(); ++i) QVERIFY(out[i - 1].x <= out[i].x);
    const std::vector<XY> data = all(xs, ys);
    for (const XY& p : out) QVERIFY(contains(data, p));
  }

  void decimationKeepsOnlyTheNeighboursOutsideTheRange() {
    std::vector<double> xs, ys;
    for (int i = 0; i < 10000; ++i) {
      xs.push_back(i);
      ys.push_back(std::sin(i * 0.01));
    }
    const std::vector<XY> out = decimateMinMax(xs, ys, 2000.5, 7000.5, 100);
    int before = 0, after = 0;
    for (const XY& p : out) {
      if (p.x < 2000.5) ++before;
      if (p.x > 7000.5) ++after;
    }
    QCOMPARE(before, 1);
    QCOMPARE(after, 1);
    // ... and they are the nearest ones, so that lines run into the edges.
    QCOMPARE(out.front(), (XY{2000, ys[2000]}));
    QCOMPARE(out.back(), (XY{7001, ys[7001]}));
    // The first and last points inside the range are kept even when they are no extreme.
    QVERIFY(contains(out, XY{2001, ys[2001]}));
    QVERIFY(contains(out, XY{7000, ys[7000]}));
  }

  void decimationSkipsNaN() {
    std::vector<double> xs, ys;
    for (int i = 0; i < 5000; ++i) {
      xs.push_back(i);
      // Every third value missing, and the largest and smallest would be NaN's neighbours.
      ys.push_back(i % 3 == 0 ? NAN : std::cos(i * 0.05) * i);
    }
    const std::vector<XY> out = decimateMinMax(xs, ys, 0, 4999, 50);
    QVERIFY(!out.empty());
    for (const XY& p : out) QVERIFY(!std::isnan(p.y));
    // A NaN at the nearest outside position gives way to the next drawable one.
    const std::vector<XY> edge = decimateMinMax(xs, ys, 3.5, 10, 2);
    QCOMPARE(edge.front(), (XY{2, ys[2]}));
    QCOMPARE(edge.back(), (XY{11, ys[11]}));
  }

  void shortRangesAreKeptWhole() {
    const std::vector<double> xs{0, 1, 2, 3, 4, 5}, ys{5, NAN, 3, 9, 1, 2};
    const std::vector<XY> out = decimateMinMax(xs, ys, 0, 5, 800);
    QCOMPARE(out, (std::vector<XY>{{0, 5}, {2, 3}, {3, 9}, {4, 1}, {5, 2}}));
    QVERIFY(decimateMinMax(xs, ys, 0, 5, 0).empty());
    QVERIFY(decimateMinMax({}, {}, 0, 5, 100).empty());
  }

  void equalExtremesInAColumnGiveOnePoint() {
    // A flat series: every column's minimum is its maximum.
    std::vector<double> xs, ys(1000, 4.0);
    for (int i = 0; i < 1000; ++i) xs.push_back(i);
    const std::vector<XY> out = decimateMinMax(xs, ys, 0, 999, 10);
    // One point a column, plus the range's last point (the first is column 0's extreme).
    QCOMPARE(out.size(), size_t(11));
  }

  // ---- Charts

  void drawnSeriesStayBoundedByThePlotWidth() {
    TrainingCharts charts;
    charts.resize(1000, 600);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.reset(20000);
    for (const auto& p : syntheticRun(20000)) charts.addProgress(p);
    QCOMPARE(charts.reportCount(), 20000L);
    // Appending only stores: the drawing waits for the timer.
    QVERIFY(charts.redrawPending());
    charts.redrawNow();
    const int width = charts.makespanPlotWidth();
    QVERIFY(width > 100 && width < 1000);
    for (const char* name : {"makespan", "movingMean", "bestSoFar", "evaluations"}) {
      QXYSeries* s = charts.series(QString::fromLatin1(name));
      QVERIFY2(s, name);
      QVERIFY2(s->count() > 0, name);
      QVERIFY2(s->count() <= 2 * width + 4, name);
    }
    // 20,000 episodes on fewer than 1,000 pixels: the cloud was reduced, not copied.
    QVERIFY(charts.series(QStringLiteral("makespan"))->count() < 20000);
    for (const char* name :
         {"selLoss", "plcLoss", "entropy", "learningRate", "episodesPerSecond"}) {
      QXYSeries* s = charts.series(QString::fromLatin1(name));
      QVERIFY2(s && s->count() > 0, name);
      QVERIFY2(s->count() <= 2 * 1000 + 4, name);
    }
    // The moving mean's window is 2% of the run.
    QCOMPARE(charts.movingMeanWindow(), 400);
  }

  void bestSoFarNeverRises() {
    TrainingCharts charts;
    charts.resize(900, 500);
    charts.reset(3000);
    // Reports whose best goes up now and then (a resumed run's stale figure): the line still
    // never rises.
    std::vector<train::TrainProgress> run = syntheticRun(3000);
    for (size_t i = 0; i < run.size(); i += 97) run[i].best_makespan_us *= 1.3;
    for (const auto& p : run) charts.addProgress(p);
    charts.redrawNow();
    const QList<QPointF> best = charts.series(QStringLiteral("bestSoFar"))->points();
    QVERIFY(best.size() >= 2);
    for (qsizetype i = 1; i < best.size(); ++i) {
      QVERIFY(best[i].y() <= best[i - 1].y());
      QVERIFY(best[i].x() >= best[i - 1].x());
    }
    // It runs to the latest report and ends at the run's best.
    QCOMPARE(best.back().x(), 3000.0);
    double runBest = INFINITY;
    for (const auto& p : run) runBest = std::min(runBest, p.makespan_us);
    QCOMPARE(best.back().y(), runBest / 1000);  // drawn in ms
  }

  void theMovingMeanIsTheMeanOfTheLastWindow() {
    TrainingCharts charts;
    charts.resize(900, 500);
    charts.reset(500);  // window 10
    QCOMPARE(charts.movingMeanWindow(), 10);
    for (int e = 1; e <= 30; ++e) {
      train::TrainProgress p;
      p.episode = e;
      p.makespan_us = e * 1000.0;
      charts.addProgress(p);
    }
    charts.redrawNow();
    const QList<QPointF> mean = charts.series(QStringLiteral("movingMean"))->points();
    QCOMPARE(mean.size(), qsizetype(30));
    QCOMPARE(mean[0].y(), 1.0);    // episode 1 alone
    QCOMPARE(mean[29].y(), 25.5);  // episodes 21..30, in ms
    QCOMPARE(mean[9].y(), 5.5);    // episodes 1..10
  }

  void referenceLinesAppearOnlyWhenKnown() {
    TrainingCharts charts;
    charts.resize(900, 500);
    // Legend markers are graphics items: visible only in a shown chart.
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.reset(1000);
    for (const auto& p : syntheticRun(1000)) charts.addProgress(p);
    charts.setReferences({10'000, NAN, 11'000});
    charts.redrawNow();
    auto* lower = charts.series(QStringLiteral("lowerBound"));
    auto* critical = charts.series(QStringLiteral("criticalPath"));
    auto* local = charts.series(QStringLiteral("localSearch"));
    QVERIFY(lower->isVisible());
    QCOMPARE(lower->count(), 2);
    QCOMPARE(lower->at(0).y(), 10.0);
    QCOMPARE(lower->at(1).y(), 10.0);
    QVERIFY(lower->name().contains(QStringLiteral("10.0 ms")));
    QVERIFY(!critical->isVisible());
    QCOMPARE(critical->count(), 0);
    QVERIFY(local->isVisible());
    QVERIFY(local->name().startsWith(QStringLiteral("local search")));
    QChart* chart = charts.makespanView()->chart();
    auto legendHas = [&](const QString& start) {
      for (const LegendEntry& e : charts.legend()->entries())
        if (e.text.startsWith(start)) return true;
      return false;
    };
    QVERIFY(legendHas(QStringLiteral("lower bound 10.0 ms")));
    QVERIFY(!legendHas(QStringLiteral("critical path")));
    // The bound is inside the y-range, though no episode comes near it.
    auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).first());
    QVERIFY(y->min() <= 10.0);
    // Known later: it appears.
    charts.setReferences({10'000, 12'000, 11'000});
    charts.redrawNow();
    QVERIFY(critical->isVisible());
    QCOMPARE(critical->count(), 2);
    QVERIFY(legendHas(QStringLiteral("critical path 12.0 ms")));
  }

  // The legend flows over rows as the chart narrows: every entry stays whole.
  void theLegendWrapsInsteadOfCutting() {
    TrainingCharts charts;
    charts.resize(1400, 500);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.reset(100);
    charts.setReferences({10'000, 12'000, 11'000});
    const LegendBar* legend = charts.legend();
    QCOMPARE(int(legend->entries().size()), 7);
    QTRY_VERIFY(legend->height() > 0);
    const int wide = legend->height();
    charts.resize(500, 500);
    QTRY_VERIFY(legend->height() > wide);
    QCOMPARE(legend->height(), legend->heightForWidth(legend->width()));
    bool greedy = false;
    for (const LegendEntry& e : legend->entries())
      greedy |= e.text == QStringLiteral("greedy evaluation");
    QVERIFY(greedy);
  }

  void evaluationsAreMarkedWhereReported() {
    TrainingCharts charts;
    charts.resize(900, 500);
    charts.reset(1000);
    for (const auto& p : syntheticRun(1000)) charts.addProgress(p);
    charts.redrawNow();
    // 20 evaluations fit the plot as they are.
    const QList<QPointF> evals = charts.series(QStringLiteral("evaluations"))->points();
    QCOMPARE(evals.size(), qsizetype(20));
    for (const QPointF& e : evals) QCOMPARE(std::fmod(e.x(), 50.0), 0.0);
  }

  void resetClearsTheCharts() {
    TrainingCharts charts;
    charts.resize(900, 500);
    charts.reset(1000);
    for (const auto& p : syntheticRun(1000)) charts.addProgress(p);
    charts.redrawNow();
    charts.reset(1000);
    QCOMPARE(charts.reportCount(), 0L);
    for (const char* name : {"makespan", "movingMean", "bestSoFar", "evaluations", "entropy"})
      QCOMPARE(charts.series(QString::fromLatin1(name))->count(), 0);
  }

  // ---- Dashboard

  void everyTrainingParameterHasAnEditor() {
    TrainingDashboard d;
    for (train::Stage stage : {train::Stage::Imitation, train::Stage::Simulation}) {
      d.setStage(stage);
      QCOMPARE(d.stage(), stage);
      // The stage's options and the architecture's: the same tables `doppler train` builds its
      // options from (tests/cli: TrainOptionsAreTheTables).
      std::vector<ParamSpec> specs = train::trainParamSpecs(stage);
      for (ParamSpec& a : train::architectureParamSpecs()) specs.push_back(std::move(a));
      QVERIFY(specs.size() > 10);
      for (const ParamSpec& p : specs) {
        auto* editor =
            d.findChild<QWidget*>(QStringLiteral("param_") + QString::fromStdString(p.name));
        QVERIFY2(editor, p.name.c_str());
        // Shows the stage's default (learning rates of 1e-6 included, not rounded to 0).
        QVERIFY2(
            sameParamValue(p, paramEditorValue(editor), QString::fromStdString(p.default_value)),
            p.name.c_str());
      }
      // Nothing changed yet.
      QVERIFY(d.values().empty());
    }
    // The stages have their own defaults.
    d.setStage(train::Stage::Imitation);
    QCOMPARE(d.findChild<QSpinBox*>(QStringLiteral("param_episodes"))->value(), 500);
    d.setStage(train::Stage::Simulation);
    QCOMPARE(d.findChild<QSpinBox*>(QStringLiteral("param_episodes"))->value(), 12000);
  }

  void stageThreeIsSelectableWithItsOwnParameters() {
    TrainingDashboard d;
    auto* stage = d.findChild<QComboBox*>(QStringLiteral("stage"));
    QCOMPARE(stage->count(), 3);
    auto* model = qobject_cast<QStandardItemModel*>(stage->model());
    QVERIFY(model->item(2)->isEnabled());
    stage->setCurrentIndex(2);
    QCOMPARE(d.stage(), train::Stage::Real);
    QCOMPARE(d.findChild<QSpinBox*>(QStringLiteral("param_episodes"))->value(), 200);
    bool titled = false;
    for (const QGroupBox* box : d.findChildren<QGroupBox*>())
      titled = titled || box->title().endsWith(QStringLiteral("defaults of stage III"));
    QVERIFY(titled);
    for (const char* name :
         {"repeat", "rollback-threshold", "rollback-window", "patience", "kernels", "target-ms"})
      QVERIFY2(d.findChild<QWidget*>(QStringLiteral("param_") + QString::fromLatin1(name)), name);
    // The expectation shows before a run and hides when cleared; events show the last rollback.
    auto* expected = d.findChild<QLabel*>(QStringLiteral("expected"));
    d.setExpectation(QStringLiteral("12.0% faster than critical-path in simulation"));
    QVERIFY(!expected->isHidden());
    QVERIFY(d.expectationText().contains(QStringLiteral("12.0% faster")));
    d.setExpectation({});
    QVERIFY(expected->isHidden());
    train::TrainProgress p;
    p.stage = train::Stage::Real;
    p.episode = 8;
    p.episodes = 200;
    p.rollbacks = 1;
    p.event = "episode 8: rolled back to the parameters that measured 900 us";
    d.addProgress(p);
    QVERIFY(d.eventsText().contains(QStringLiteral("1 rollback")));
    QVERIFY(d.eventsText().contains(QStringLiteral("rolled back")));
    d.reset({}, 200);
    QVERIFY(d.eventsText().isEmpty());
  }

  void valuesAreOnlyTheChangedOnes() {
    TrainingDashboard d;
    d.setStage(train::Stage::Simulation);
    QSignalSpy changed(&d, &TrainingDashboard::settingsChanged);
    d.findChild<QSpinBox*>(QStringLiteral("param_episodes"))->setValue(32000);
    d.findChild<QDoubleSpinBox*>(QStringLiteral("param_lr"))->setValue(1e-4);
    d.findChild<QComboBox*>(QStringLiteral("param_baseline"))
        ->setCurrentText(QStringLiteral("batch"));
    QCOMPARE(changed.count(), 3);
    ParamValues v = d.values();
    QCOMPARE(v.size(), size_t(3));
    QCOMPARE(v.at("episodes"), std::string("32000"));
    QCOMPARE(QString::fromStdString(v.at("lr")).toDouble(), 1e-4);
    QCOMPARE(v.at("baseline"), std::string("batch"));
    // Set back to the default: no longer reported.
    d.findChild<QDoubleSpinBox*>(QStringLiteral("param_lr"))->setValue(3e-4);
    QCOMPARE(d.values().count("lr"), size_t(0));
    // The label of a changed parameter is bold.
    QLabel* episodesLabel = nullptr;
    for (QLabel* l : d.findChildren<QLabel*>())
      if (l->text() == QStringLiteral("episodes")) episodesLabel = l;
    QVERIFY(episodesLabel && episodesLabel->font().bold());
    // Defaults: nothing changed.
    d.findChild<QPushButton*>(QStringLiteral("resetParams"))->click();
    QVERIFY(d.values().empty());
    QVERIFY(!episodesLabel->font().bold());
    // setValues shows values the studio kept.
    d.setValues({{"episodes", "20000"}, {"seed", "5"}, {"no-such", "1"}});
    QCOMPARE(d.values(), (ParamValues{{"episodes", "20000"}, {"seed", "5"}}));
  }

  void buttonsFollowTheState() {
    TrainingDashboard d;
    auto* start = d.findChild<QPushButton*>(QStringLiteral("start"));
    auto* pause = d.findChild<QPushButton*>(QStringLiteral("pause"));
    auto* cancel = d.findChild<QPushButton*>(QStringLiteral("cancel"));
    auto* showBest = d.findChild<QPushButton*>(QStringLiteral("showBest"));
    auto* openBest = d.findChild<QPushButton*>(QStringLiteral("openBestInStepper"));
    auto* episodes = d.findChild<QSpinBox*>(QStringLiteral("param_episodes"));
    QCOMPARE(d.state(), TrainingState::Idle);
    for (TrainingState s :
         {TrainingState::Idle, TrainingState::Running, TrainingState::Paused,
          TrainingState::Finished, TrainingState::Cancelled, TrainingState::Failed}) {
      d.setState(s, QStringLiteral("why"));
      QCOMPARE(d.state(), s);
      const bool active = s == TrainingState::Running || s == TrainingState::Paused;
      QCOMPARE(start->isEnabled(), !active);
      QCOMPARE(pause->isEnabled(), active);
      QCOMPARE(cancel->isEnabled(), active);
      // A running run's parameters cannot change under it.
      QCOMPARE(episodes->isEnabled(), !active);
      QVERIFY(d.statusText().contains(toDisplayString(s)));
      QVERIFY(d.statusText().contains(QStringLiteral("why")));
    }
    d.setState(TrainingState::Paused);
    QCOMPARE(pause->text(), QStringLiteral("Resume"));
    d.setState(TrainingState::Running);
    QCOMPARE(pause->text(), QStringLiteral("Pause"));
    // The best placement exists once a report came, not before.
    d.reset({}, 100);
    QVERIFY(!showBest->isEnabled());
    QVERIFY(!openBest->isEnabled());
    d.addProgress(syntheticRun(100).front());
    QVERIFY(showBest->isEnabled());
    QVERIFY(openBest->isEnabled());
    d.reset({}, 100);
    QVERIFY(!showBest->isEnabled());
  }

  void buttonsEmitTheirSignals() {
    TrainingDashboard d;
    QSignalSpy start(&d, &TrainingDashboard::startRequested);
    QSignalSpy pause(&d, &TrainingDashboard::pauseRequested);
    QSignalSpy cancel(&d, &TrainingDashboard::cancelRequested);
    QSignalSpy choose(&d, &TrainingDashboard::chooseCheckpointRequested);
    QSignalSpy showBest(&d, &TrainingDashboard::showBestRequested);
    QSignalSpy openBest(&d, &TrainingDashboard::openBestInStepperRequested);
    d.findChild<QPushButton*>(QStringLiteral("start"))->click();
    QCOMPARE(start.count(), 1);
    d.setState(TrainingState::Running);
    d.findChild<QPushButton*>(QStringLiteral("pause"))->click();
    QCOMPARE(pause.count(), 1);
    QCOMPARE(pause.at(0).at(0).toBool(), true);
    d.setState(TrainingState::Paused);
    d.findChild<QPushButton*>(QStringLiteral("pause"))->click();
    QCOMPARE(pause.count(), 2);
    QCOMPARE(pause.at(1).at(0).toBool(), false);
    d.findChild<QPushButton*>(QStringLiteral("cancel"))->click();
    QCOMPARE(cancel.count(), 1);
    d.setState(TrainingState::Cancelled);
    d.findChild<QPushButton*>(QStringLiteral("chooseCheckpoint"))->click();
    QCOMPARE(choose.count(), 1);
    d.addProgress(syntheticRun(10).front());
    d.findChild<QPushButton*>(QStringLiteral("showBest"))->click();
    d.findChild<QPushButton*>(QStringLiteral("openBestInStepper"))->click();
    QCOMPARE(showBest.count(), 1);
    QCOMPARE(openBest.count(), 1);
  }

  void startFromFreshACheckpointOrAStoredRun() {
    TrainingDashboard d;
    QVERIFY(d.startFromCheckpoint().isEmpty());
    QVERIFY(!d.startFromRun());
    auto* fromRun = d.findChild<QRadioButton*>(QStringLiteral("startRun"));
    QVERIFY(!fromRun->isEnabled());  // no runs to pick from yet
    // Choosing "checkpoint" without a file asks for one.
    QSignalSpy choose(&d, &TrainingDashboard::chooseCheckpointRequested);
    d.findChild<QRadioButton*>(QStringLiteral("startCheckpoint"))->click();
    QCOMPARE(choose.count(), 1);
    d.setCheckpointFile(QStringLiteral("/tmp/runs/best.pt"));
    QCOMPARE(d.startFromCheckpoint(), QStringLiteral("/tmp/runs/best.pt"));
    QVERIFY(!d.startFromRun());
    d.setStoredRuns({{4, QStringLiteral("sim on llama-block")}, {9, QStringLiteral("imitation")}});
    QVERIFY(fromRun->isEnabled());
    fromRun->click();
    QCOMPARE(d.startFromRun(), std::optional<int64_t>(4));
    QVERIFY(d.startFromCheckpoint().isEmpty());
    d.findChild<QComboBox*>(QStringLiteral("storedRuns"))->setCurrentIndex(1);
    QCOMPARE(d.startFromRun(), std::optional<int64_t>(9));
    // A refreshed list keeps the choice; an empty one falls back to fresh.
    d.setStoredRuns({{2, QStringLiteral("older")}, {9, QStringLiteral("imitation")}});
    QCOMPARE(d.startFromRun(), std::optional<int64_t>(9));
    d.setStoredRuns({});
    QVERIFY(!d.startFromRun());
    QVERIFY(d.findChild<QRadioButton*>(QStringLiteral("startFresh"))->isChecked());
  }

  void progressShowsAnEtaOnceTheSpeedIsKnown() {
    TrainingDashboard d;
    d.reset({10'000, NAN, NAN}, 12000);
    QVERIFY(d.progressText().contains(QStringLiteral("12,000")) ||
            d.progressText().contains(QStringLiteral("12000")));
    train::TrainProgress p;
    p.episode = 100;
    p.episodes = 12000;
    p.makespan_us = p.best_makespan_us = 12'000;
    d.addProgress(p);
    QVERIFY(!d.progressText().contains(QStringLiteral("ETA")));
    p.episode = 200;
    p.episodes_per_s = 100;  // 11,800 left: 1 min 58 s
    d.addProgress(p);
    QVERIFY2(d.progressText().contains(QStringLiteral("ETA 1 min 58 s")),
             qPrintable(d.progressText()));
    QCOMPARE(d.findChild<QProgressBar*>(QStringLiteral("progress"))->value(), 16);  // of 1000
    // The read-out names the best and its ratio to the bound.
    QCOMPARE(d.findChild<QLabel*>(QStringLiteral("best"))->text(), formatDuration(12'000));
    QVERIFY(d.findChild<QLabel*>(QStringLiteral("bestDetail"))
                ->text()
                .contains(QStringLiteral("1.200×")));
  }

  // Stage III's distillation reports carry no makespan until the greedy policy makes the best
  // placement: the charts and the dashboard take them (NaN) and still draw.
  void reportsWithoutAMakespanStillDraw() {
    TrainingDashboard d;
    d.resize(1200, 500);
    d.setStage(train::Stage::Real);
    d.reset({}, 24);
    d.setState(TrainingState::Running);
    for (long e = 4; e <= 24; e += 4) {
      train::TrainProgress p;
      p.stage = train::Stage::Real;
      p.episode = e;
      p.episodes = 24;
      p.makespan_us = 20000 - 100 * e;
      p.best_makespan_us = 20000 - 100 * e;
      p.evaluated = true;
      p.greedy_makespan_us = 21000 - 100 * e;
      p.episodes_per_s = 4;
      d.addProgress(p);
    }
    for (long u = 10; u <= 300; u += 10) {
      train::TrainProgress p;
      p.stage = train::Stage::Real;
      p.episode = 24 + u;
      p.episodes = 24 + 300;
      p.distill_update = u;
      p.best_makespan_us = 17600;
      p.loss = 0.5;
      p.lr = 3e-3;
      d.addProgress(p);
    }
    QVERIFY(d.progressText().startsWith(QStringLiteral("distilling the best episode")));
    d.setState(TrainingState::Finished);
    QCOMPARE(d.progressText(), QStringLiteral("24 episodes · 300 distillation updates"));
    d.charts()->redrawNow();
    const QImage image = d.grab().toImage();
    QVERIFY(!image.isNull());
    QCOMPARE(d.charts()->series(QStringLiteral("makespan"))->count() > 0, true);
    // The updates are on the distillation chart's axis, not appended to the episodes (where
    // their missing losses read as drops to zero).
    TrainingCharts* charts = d.charts();
    QCOMPARE(charts->reportCount(), 6L);
    QCOMPARE(charts->distillReportCount(), 30L);
    QVERIFY(!charts->distillView()->isHidden());
    for (const QPointF& pt : charts->series(QStringLiteral("selLoss"))->points())
      QVERIFY(pt.x() <= 24);
    QList<QAbstractAxis*> distillX = charts->distillView()->chart()->axes(Qt::Horizontal);
    QCOMPARE(distillX.size(), 1);
    QCOMPARE(qobject_cast<QValueAxis*>(distillX[0])->max(), 300.0);
    auto* target = qobject_cast<QXYSeries*>(charts->distillView()->chart()->series()[0]);
    QCOMPARE(target->objectName(), QStringLiteral("distillTarget"));
    QCOMPARE(target->at(0).y(), 17.6);
    charts->reset(10);
    QVERIFY(charts->distillView()->isHidden());
    QCOMPARE(charts->distillReportCount(), 0L);
  }

  // A small chart whose values first sit on one number (a tick interval of ~1e-12) and then
  // spread: the new range is never laid out with the old interval (trillions of ticks: the
  // studio ran out of memory so once).
  void aFlatSeriesThatSpreadsKeepsFewTicks() {
    TrainingCharts charts;
    charts.resize(900, 400);
    charts.reset(100);
    QValueAxis* axis = nullptr;
    for (QAbstractAxis* a : charts.series(QStringLiteral("selLoss"))->attachedAxes())
      if (a->orientation() == Qt::Vertical) axis = qobject_cast<QValueAxis*>(a);
    QVERIFY(axis);
    double worst = 0;  // the most ticks a range change would have laid out
    connect(axis, &QValueAxis::rangeChanged, this, [&](qreal lo, qreal hi) {
      if (axis->tickType() == QValueAxis::TicksDynamic && axis->tickInterval() > 0)
        worst = std::max(worst, (hi - lo) / axis->tickInterval());
    });
    train::TrainProgress p;
    p.stage = train::Stage::Real;
    p.episodes = 100;
    for (long e = 1; e <= 4; ++e) {
      p.episode = e;
      p.makespan_us = 1000;
      p.sel_loss = 0;
      charts.addProgress(p);
    }
    charts.redrawNow();
    for (long e = 5; e <= 40; ++e) {
      p.episode = e;
      p.sel_loss = -2.3 + 0.06 * static_cast<double>(e % 7);
      charts.addProgress(p);
    }
    charts.redrawNow();
    QVERIFY2(worst < 100, qPrintable(QString::number(worst)));
    QVERIFY(axis->max() - axis->min() > 1);
    QVERIFY((axis->max() - axis->min()) / axis->tickInterval() < 20);
  }

  void rendersASyntheticRunInBothThemes() {
    // DOPPLER_TRAINING_PNG=DIR saves the dashboard mid-run (light and dark) to look at.
    const QString dir = qEnvironmentVariable("DOPPLER_TRAINING_PNG");
    const QString style = QApplication::style()->name();
    const QPalette palette = QApplication::palette();
    TrainingDashboard d;
    d.resize(1500, 820);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.setStoredRuns({{3, QStringLiteral("sim · llama-block · 12,000 episodes")}});
    d.findChild<QSpinBox*>(QStringLiteral("param_episodes"))->setValue(12000);
    d.findChild<QDoubleSpinBox*>(QStringLiteral("param_guided"))->setValue(0.6);
    d.reset({10'000, 13'400, 10'650}, 12000);
    d.setState(TrainingState::Running, QStringLiteral("stage II on LLAMA-BLOCK, 4 devices"));
    const std::vector<train::TrainProgress> run = syntheticRun(12000);
    for (size_t i = 0; i < 9000; ++i) d.addProgress(run[i]);
    QImage shots[2];
    for (bool dark : {false, true}) {
      Theme::setDark(dark, qApp);
      d.applyTheme();
      QCoreApplication::processEvents();
      d.charts()->redrawNow();
      QCoreApplication::processEvents();
      shots[dark] = d.grab().toImage();
      QVERIFY(!shots[dark].isNull());
      if (!dir.isEmpty())
        shots[dark].save(QDir(dir).filePath(dark ? QStringLiteral("training-dark.png")
                                                 : QStringLiteral("training-light.png")));
    }
    QVERIFY(shots[0] != shots[1]);
    Theme::setDark(false);
    QApplication::setStyle(QStyleFactory::create(style));
    QApplication::setPalette(palette);
  }
};

int runTrainingTest(int argc, char** argv) {
  TrainingTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "training_test.moc"

// studio.truth: every view tells the same story about a placement. For every node, the colour
// that fills it in the graph, the colour of its bar and of its bar's lane in the timeline, and
// the legend swatches of its device in both views' headers are one colour; and both headers name
// the method the toolbar shows. Checked as a new user meets the studio: after the first start, a
// comparison of stored runs, closing it, a method change, the decision stepper's end, and in
// presentation mode. A comparison changes no fill: it rings the nodes that sit elsewhere, and a
// new method ends it.
#include <QComboBox>
#include <QDockWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "app/studio/document/studio_document.h"
#include "app/studio/panels/runs_controller.h"
#include "app/studio/panels/stepper_session.h"
#include "app/studio/window/main_window.h"
#include "tests/studio/studio_test_support.h"
#include "views/common/legend.h"
#include "views/common/node_details.h"
#include "views/common/theme.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/runs_panel.h"
#include "views/timeline/timeline_view.h"

using namespace doppler;
using namespace doppler::views;

namespace {

std::map<QString, QColor> swatches(const ViewHeader& h) {
  std::map<QString, QColor> out;
  for (const LegendEntry& e : h.legend)
    if (e.kind == LegendEntry::Kind::Swatch) out[e.text] = e.color;
  return out;
}

// The first disagreement between the views, or "" when they agree on every node.
QString disagreement(studio::MainWindow* w) {
  const SnapshotPtr s = w->document()->snapshot();
  if (!s) return QStringLiteral("no placement shown");
  GraphScene* scene = w->graphView()->graphScene();
  TimelineView* timeline = w->timelineView();
  const DataflowGraph& g = *s->graph;
  if (!scene->graph() || scene->graph()->nodeCount() != g.nodeCount())
    return QStringLiteral("the graph view does not draw the shown graph node by node");
  const QString method = QString::fromStdString(s->settings.method);
  const ViewHeader graphHeader = w->graphView()->header();
  const ViewHeader timelineHeader = timeline->header();
  if (!graphHeader.subtitle.contains(method))
    return QStringLiteral("the graph's header does not name %1: %2")
        .arg(method, graphHeader.subtitle);
  if (!timelineHeader.subtitle.contains(method))
    return QStringLiteral("the timeline's header does not name %1: %2")
        .arg(method, timelineHeader.subtitle);
  const auto graphLegend = swatches(graphHeader);
  const auto timelineLegend = swatches(timelineHeader);
  const bool byDevice = timeline->colorMode() == TimelineColorMode::Device;
  for (int v = 0; v < g.nodeCount(); ++v) {
    const QString id = QString::fromStdString(g.node(v).id);
    const int d = scene->nodeDevice(v);
    if (d < 0 || d >= s->devices->size()) return id + QStringLiteral(": no device in the graph");
    const QColor fill = scene->nodeFill(v);
    const QColor device = Theme::deviceColor(d);
    auto differs = [&](const QString& where, const QColor& c) {
      return QStringLiteral("%1 on device %2 is %3 in the graph but %4 in %5")
          .arg(id)
          .arg(d)
          .arg(fill.name(), c.isValid() ? c.name() : QStringLiteral("(none)"), where);
    };
    if (fill != device) return differs(QStringLiteral("the device palette"), device);
    if (timeline->laneColor(v) != fill)
      return differs(QStringLiteral("its timeline lane"), timeline->laneColor(v));
    if (byDevice && timeline->barColor(v) != fill)
      return differs(QStringLiteral("its timeline bar"), timeline->barColor(v));
    const auto inGraph = graphLegend.find(deviceName(*s, d));
    if (d < 12 && (inGraph == graphLegend.end() || inGraph->second != fill))
      return differs(QStringLiteral("the graph's legend"),
                     inGraph == graphLegend.end() ? QColor() : inGraph->second);
    const auto inTimeline =
        timelineLegend.find(QString::fromStdString(s->devices->devices[d].name));
    if (byDevice && d < 10 && (inTimeline == timelineLegend.end() || inTimeline->second != fill))
      return differs(QStringLiteral("the timeline's legend"),
                     inTimeline == timelineLegend.end() ? QColor() : inTimeline->second);
  }
  return {};
}

#define QVERIFY_TRUTH(w)                      \
  do {                                        \
    const QString why = disagreement(w);      \
    QVERIFY2(why.isEmpty(), qPrintable(why)); \
  } while (false)

}  // namespace

class TruthTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir data_;
  std::unique_ptr<studio::MainWindow> w_;

  GraphScene* scene() const { return w_->graphView()->graphScene(); }
  bool settle() { return w_->waitSettled(60000); }
  void chooseMethod(const QString& method) {
    auto* combo = w_->findChild<QComboBox*>(QStringLiteral("toolbarMethod"));
    QVERIFY(combo);
    const int index = combo->findText(method);
    QVERIFY2(index >= 0, qPrintable(method));
    combo->setCurrentIndex(index);
    QVERIFY(settle());
    QCOMPARE(QString::fromStdString(w_->document()->snapshot()->settings.method), method);
  }
  QList<qint64> placeRuns() const {
    QList<qint64> ids;
    for (const auto& run : w_->runsPage()->controller()->runs())
      if (run.kind == "place") ids << run.id;
    return ids;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(data_.isValid());
    qputenv("XDG_DATA_HOME", data_.path().toLocal8Bit());
    qunsetenv("DOPPLER_STUDIO_DB");
    studio::StudioOptions options;  // a real first start: the demo session is copied
    w_ = std::make_unique<studio::MainWindow>(options);
    w_->resize(1366, 768);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(settle());
    QVERIFY(w_->firstStart());
  }

  void theFirstStartShowsOnePlacement() {
    QVERIFY(!scene()->comparing());
    QCOMPARE(w_->timelineView()->colorMode(), TimelineColorMode::Device);
    QVERIFY_TRUTH(w_.get());
  }

  void aComparisonRingsMovesAndKeepsTheFill() {
    const SnapshotPtr shown = w_->document()->snapshot();
    std::vector<int> before;
    for (int v = 0; v < shown->graph->nodeCount(); ++v) before.push_back(scene()->nodeDevice(v));
    const QList<qint64> ids = placeRuns();
    QVERIFY(ids.size() >= 2);
    w_->runsPage()->panel()->selectRuns({ids[0], ids[1]});
    w_->runsPage()->panel()->compareSelected();
    QVERIFY(w_->runsPage()->compareView()->isVisible());
    QVERIFY(scene()->comparing());
    QVERIFY(w_->graphView()->header().title.contains(QStringLiteral("comparing")));
    QVERIFY(scene()->comparedMoveCount() > 0);
    for (int v = 0; v < shown->graph->nodeCount(); ++v) {
      QCOMPARE(scene()->nodeDevice(v), before[v]);
      QVERIFY(scene()->comparedDevice(v) != scene()->nodeDevice(v));
    }
    QVERIFY_TRUTH(w_.get());
  }

  void closingTheComparisonEndsIt() {
    w_->runsPage()->compareView()->close();
    QVERIFY(!scene()->comparing());
    QVERIFY(!w_->graphView()->header().title.contains(QStringLiteral("comparing")));
    QVERIFY_TRUTH(w_.get());
  }

  void escapeEndsAComparison() {
    const QList<qint64> ids = placeRuns();
    w_->runsPage()->panel()->selectRuns({ids[0], ids[1]});
    w_->runsPage()->panel()->compareSelected();
    QVERIFY(scene()->comparing());
    w_->graphView()->setFocus();
    QTest::keyClick(w_->graphView(), Qt::Key_Escape);
    QVERIFY(!scene()->comparing());
    QVERIFY_TRUTH(w_.get());
    w_->runsPage()->compareView()->close();
  }

  void aNewMethodEndsAComparisonAndIsShownEverywhere() {
    const QList<qint64> ids = placeRuns();
    w_->runsPage()->panel()->selectRuns({ids[0], ids[1]});
    w_->runsPage()->panel()->compareSelected();
    QVERIFY(scene()->comparing());
    chooseMethod(QStringLiteral("heft"));
    QVERIFY(!scene()->comparing());
    QVERIFY_TRUTH(w_.get());
    chooseMethod(QStringLiteral("critical-path"));
    QVERIFY_TRUTH(w_.get());
    w_->runsPage()->compareView()->close();
  }

  void theStepperEndShowsItsPlanEverywhere() {
    w_->stepperPage()->show();
    QVERIFY(w_->stepperPage()->session()->active());
    w_->stepperPage()->session()->setStep(w_->stepperPage()->session()->steps());
    QVERIFY(w_->graphView()->stepOverlay());
    // The plan's devices in the graph are the ones its timeline lanes are drawn on.
    QVERIFY_TRUTH(w_.get());
    const auto& plan = w_->stepperPage()->session()->branch().assignment;
    for (int v = 0; v < static_cast<int>(plan.size()); ++v)
      QCOMPARE(scene()->nodeDevice(v), plan[v]);
    w_->stepperPage()->dock()->hide();
    QVERIFY(!w_->graphView()->stepOverlay());
    QVERIFY_TRUTH(w_.get());
  }

  void presentationModeTellsTheSameStory() {
    w_->setPresentationMode(true);
    QVERIFY(w_->presentationMode());
    QVERIFY(settle());
    QVERIFY(!scene()->comparing());
    QVERIFY_TRUTH(w_.get());
    w_->setPresentationMode(false);
    QVERIFY_TRUTH(w_.get());
  }

  void cleanupTestCase() { w_.reset(); }
};

DOPPLER_STUDIO_TEST_MAIN(TruthTest)
#include "truth_test.moc"

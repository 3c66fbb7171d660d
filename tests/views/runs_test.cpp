// The runs views on plain data: the table model under QAbstractItemModelTester through in-place
// updates (add, remove, change: never a reset, so a selection survives), sorting on raw values
// for every column, the filters, the panel's requests, and the comparison view's moved nodes,
// summary and exports.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtTest>
#include <cmath>

#include "views/common/series_smoothing.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/runs_panel.h"
#include "views/runs/runs_table_model.h"

using namespace doppler;
using namespace doppler::views;
using Tester = QAbstractItemModelTester;
using sessions::RunInfo;

namespace {

RunInfo run(int64_t id, const std::string& kind = "place", const std::string& method = "heft") {
  RunInfo r;
  r.id = id;
  r.kind = kind;
  r.method = method;
  r.status = sessions::RunStatus::Finished;
  r.graph_id = 1;
  r.graph_name = "chainmm";
  r.node_count = 10;
  r.device_set_id = 1;
  r.device_set_name = "4xA100";
  r.device_count = 4;
  r.started_at = "2024-05-01T10:00:00.000Z";
  r.finished_at = "2024-05-01T10:00:01.000Z";
  return r;
}

std::vector<int64_t> idsOf(const RunsTableModel& model) {
  std::vector<int64_t> ids;
  for (int row = 0; row < model.rowCount(); ++row) ids.push_back(model.run(row).id);
  return ids;
}

// Ids in the proxy's row order.
std::vector<int64_t> idsOf(const QSortFilterProxyModel& proxy) {
  std::vector<int64_t> ids;
  for (int row = 0; row < proxy.rowCount(); ++row)
    ids.push_back(proxy.index(row, 0).data(RunsTableModel::RunIdRole).toLongLong());
  return ids;
}

}  // namespace

class RunsTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void setRunsUpdatesInPlaceWithoutAReset() {
    RunsTableModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    model.setRuns({run(3), run(1), run(2)});
    QCOMPARE(idsOf(model), (std::vector<int64_t>{1, 2, 3}));
    QCOMPARE(inserted.count(), 1);  // one stretch of new runs, one insertion
    const QPersistentModelIndex two = model.index(1, RunsTableModel::Status);

    // Run 1 deleted, run 2 finished differently, run 4 and 5 new, run 3 unchanged.
    RunInfo changedTwo = run(2);
    changedTwo.status = sessions::RunStatus::Failed;
    model.setRuns({changedTwo, run(3), run(4), run(5)});
    QCOMPARE(idsOf(model), (std::vector<int64_t>{2, 3, 4, 5}));
    QCOMPARE(removed.count(), 1);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(changed.count(), 1);  // run 2 only: run 3 did not change
    QVERIFY(two.isValid());
    QCOMPARE(two.row(), 0);
    QCOMPARE(two.data().toString(), QStringLiteral("failed"));

    // A new run between known ones goes where its id belongs; removals at both ends and inside.
    model.setRuns({run(2), run(3), run(5)});
    model.setRuns({run(1), run(2), run(3), run(5)});
    QCOMPARE(idsOf(model), (std::vector<int64_t>{1, 2, 3, 5}));
    model.setRuns({run(2), run(3), run(4)});
    QCOMPARE(idsOf(model), (std::vector<int64_t>{2, 3, 4}));
    QCOMPARE(model.rowOfRun(4), 2);
    QCOMPARE(model.rowOfRun(5), -1);
    model.setRuns({});
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(resets.count(), 0);
  }

  void everyColumnSortsByItsRawValue() {
    // Run 9 and run 10: as text "10" < "9"; 900 µs and 10 ms: as text "10.0 ms" < "900 us".
    RunInfo a = run(9, "train", "doppler");
    a.figures = {{"makespan_us", 900}, {"lower_bound_us", 600}};  // 1.5
    a.tags = {"zeta", "name:Beta"};
    a.device_count = 8;
    a.status = sessions::RunStatus::Failed;
    a.graph_name = "ffnn";
    a.started_at = "2024-05-01T09:00:00.000Z";
    a.finished_at = "2024-05-01T09:00:09.000Z";  // 9 s
    RunInfo b = run(10, "place", "critical-path");
    b.figures = {{"makespan_us", 10000}, {"lower_bound_us", 8000}};  // 1.25
    b.tags = {"alpha", "name:alpha"};
    b.device_count = 2;
    b.graph_name = "Chainmm";
    b.started_at = "2024-05-02T09:00:00.000Z";
    b.finished_at = "2024-05-02T09:01:40.000Z";  // 100 s
    RunInfo c = run(11, "eval", "heft");         // no figures, still running
    c.status = sessions::RunStatus::Running;
    c.finished_at.clear();
    c.device_count = 4;
    c.graph_name = "llama";
    c.started_at = "2024-04-30T09:00:00.000Z";
    RunsTableModel model;
    model.setRuns({a, b, c});
    RunsFilterProxy proxy;
    proxy.setSourceModel(&model);
    using V = std::vector<int64_t>;
    const std::pair<RunsTableModel::Column, V> expected[] = {
        {RunsTableModel::Id, V{9, 10, 11}},
        {RunsTableModel::Name, V{11, 10, 9}},  // "" < "alpha" < "beta" (case-insensitive)
        {RunsTableModel::Kind, V{11, 10, 9}},
        {RunsTableModel::Method, V{10, 9, 11}},
        {RunsTableModel::Graph, V{10, 9, 11}},
        {RunsTableModel::Devices, V{10, 11, 9}},
        {RunsTableModel::Makespan, V{9, 10, 11}},  // missing last
        {RunsTableModel::Ratio, V{10, 9, 11}},
        {RunsTableModel::Status, V{9, 10, 11}},  // failed < finished < running
        {RunsTableModel::Tags, V{11, 10, 9}},
        {RunsTableModel::Started, V{11, 9, 10}},
        {RunsTableModel::Duration, V{9, 10, 11}},
    };
    for (const auto& [column, order] : expected) {
      proxy.sort(column, Qt::AscendingOrder);
      QVERIFY2(idsOf(proxy) == order, qPrintable(QStringLiteral("column %1").arg(column)));
    }
    QCOMPARE(model.index(0, RunsTableModel::Name).data().toString(), QStringLiteral("Beta"));
    QCOMPARE(model.index(0, RunsTableModel::Tags).data().toString(), QStringLiteral("zeta"));
    QCOMPARE(model.index(0, RunsTableModel::Ratio).data(SortRole).toDouble(), 1.5);
    QCOMPARE(model.index(1, RunsTableModel::Duration).data(SortRole).toDouble(), 100.0);
  }

  void filtersCombineTextKindGraphAndTag() {
    RunInfo a = run(1, "place", "heft");
    a.tags = {"baseline"};
    RunInfo b = run(2, "train", "doppler");
    b.graph_name = "ffnn";
    b.tags = {"name:baseline-ish"};
    RunInfo c = run(3, "place", "critical-path");
    c.graph_name = "ffnn";
    c.tags = {"baseline", "good"};
    RunsTableModel model;
    model.setRuns({a, b, c});
    RunsFilterProxy proxy;
    proxy.setSourceModel(&model);
    proxy.sort(0);
    using V = std::vector<int64_t>;
    proxy.setKind(QStringLiteral("place"));
    QCOMPARE(idsOf(proxy), (V{1, 3}));
    proxy.setGraph(QStringLiteral("ffnn"));
    QCOMPARE(idsOf(proxy), (V{3}));
    proxy.setKind({});
    QCOMPARE(idsOf(proxy), (V{2, 3}));
    // A name is not a tag: the tag filter finds only real tags.
    proxy.setTag(QStringLiteral("baseline"));
    QCOMPARE(idsOf(proxy), (V{3}));
    proxy.setGraph({});
    QCOMPARE(idsOf(proxy), (V{1, 3}));
    proxy.setTag({});
    // Text looks in every column, the name included, case-insensitively.
    proxy.setText(QStringLiteral("BASELINE-ish"));
    QCOMPARE(idsOf(proxy), (V{2}));
    proxy.setText(QStringLiteral("critical"));
    QCOMPARE(idsOf(proxy), (V{3}));
    proxy.setText({});
    QCOMPARE(idsOf(proxy), (V{1, 2, 3}));
  }

  void panelKeepsTheSelectionAndEmitsRequests() {
    RunsPanel panel;
    panel.resize(1000, 400);
    panel.setRuns({run(1), run(2), run(3)});
    auto* compare = panel.findChild<QPushButton*>(QStringLiteral("runsCompare"));
    QVERIFY(compare);
    QVERIFY(!compare->isEnabled());
    panel.selectRuns({1, 3});
    QCOMPARE(panel.selectedRuns(), (QList<qint64>{1, 3}));
    QVERIFY(compare->isEnabled());
    // A live update that adds a run and changes another keeps the user's selection.
    RunInfo three = run(3);
    three.status = sessions::RunStatus::Failed;
    panel.setRuns({run(1), run(2), three, run(4)});
    QCOMPARE(panel.selectedRuns(), (QList<qint64>{1, 3}));
    // The kind filter offers the kinds there are.
    auto* kinds = panel.findChild<QComboBox*>(QStringLiteral("runsKind"));
    QVERIFY(kinds && kinds->findData(QStringLiteral("place")) > 0);

    QSignalSpy tag(&panel, &RunsPanel::tagRequested);
    QSignalSpy rename(&panel, &RunsPanel::renameRequested);
    QSignalSpy remove(&panel, &RunsPanel::deleteRequested);
    QSignalSpy compared(&panel, &RunsPanel::compareRequested);
    panel.tagSelected(QStringLiteral("-old"));
    QCOMPARE(tag.count(), 1);
    QCOMPARE(tag[0][1].toString(), QStringLiteral("old"));
    QCOMPARE(tag[0][2].toBool(), true);
    panel.renameSelected(QStringLiteral("two runs"));  // a name is for one run only
    QCOMPARE(rename.count(), 0);
    panel.compareSelected();
    QCOMPARE(compared.count(), 1);
    QCOMPARE(compared[0][0].value<QList<qint64>>(), (QList<qint64>{1, 3}));
    panel.selectRuns({2});
    panel.renameSelected(QStringLiteral(" fast one "));
    QCOMPARE(rename.count(), 1);
    QCOMPARE(rename[0][0].toLongLong(), 2);
    QCOMPARE(rename[0][1].toString(), QStringLiteral("fast one"));
    QVERIFY(!compare->isEnabled());
    panel.deleteSelected(false);
    QCOMPARE(remove.count(), 1);
    QCOMPARE(remove[0][0].value<QList<qint64>>(), (QList<qint64>{2}));
  }

  void compareViewShowsMovedNodesSummaryAndExports() {
    RunComparison c;
    RunInfo a = run(4), b = run(7, "place", "local-search");
    a.figures = {{"makespan_us", 2000}, {"lower_bound_us", 1000}};
    a.device_count = 2;
    b.figures = {{"makespan_us", 1500}, {"lower_bound_us", 1000}};
    c.runs = {a, b};
    c.series_name = "best_makespan_us";
    c.series = {{}, {"best_makespan_us", {10, 20, 30}, {1800, 1600, 1500}}};
    sessions::TimelineRecord t;
    t.label = "simulated";
    t.makespan_us = 2000;
    t.nodes = {{0, "x", 0, 0, 1000}, {1, "y", 1, 0, 500}};
    c.timelines = {t, std::nullopt};
    sessions::PlacementDiff d;
    d.a = 4;
    d.b = 7;
    d.same_graph = true;
    d.compared = 3;
    d.moved = {{"y", 1, 0}};
    c.diffs = {d};

    RunCompareView view;
    view.resize(1200, 800);
    QSignalSpy moved(&view, &RunCompareView::movedNodesChanged);
    view.setComparison(c);
    QCOMPARE(moved.count(), 1);
    QCOMPARE(moved[0][0].toStringList(), QStringList{QStringLiteral("y")});
    QCOMPARE(view.movedTable()->rowCount(), 1);
    QCOMPARE(view.movedTable()->item(0, 0)->text(), QStringLiteral("y"));
    QTableWidget* summary = view.summaryTable();
    QCOMPARE(summary->columnCount(), 2);
    auto rowOf = [&](const QString& name) {
      for (int row = 0; row < summary->rowCount(); ++row)
        if (summary->verticalHeaderItem(row)->text() == name) return row;
      return -1;
    };
    QCOMPARE(summary->item(rowOf(QStringLiteral("ratio to bound")), 1)->text(),
             QStringLiteral("1.500×"));
    QCOMPARE(summary->item(rowOf(QStringLiteral("moved nodes")), 1)->text(),
             QStringLiteral("1 of 3"));
    // Busy 1500 µs over 2 devices × 2000 µs.
    QCOMPARE(summary->item(rowOf(QStringLiteral("utilization")), 0)->text(),
             QStringLiteral("37.5 %"));

    QTemporaryDir dir;
    QVERIFY(view.saveCsv(dir.filePath(QStringLiteral("c.csv"))));
    QFile f(dir.filePath(QStringLiteral("c.csv")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString csv = QString::fromUtf8(f.readAll());
    QVERIFY(csv.contains(QStringLiteral("makespan_us,2000,1500\n")));
    QVERIFY(csv.contains(QStringLiteral("4,7,y,1,0\n")));
    QVERIFY(csv.contains(QStringLiteral("20,,1600\n")));
    QVERIFY(view.savePng(dir.filePath(QStringLiteral("c.png"))));
    QVERIFY(!QImage(dir.filePath(QStringLiteral("c.png"))).isNull());
    // The difference to the reference, signed, in the table and the CSV.
    QCOMPARE(summary->item(rowOf(QStringLiteral("Δ vs reference")), 0)->text(),
             QStringLiteral("reference"));
    QCOMPARE(summary->item(rowOf(QStringLiteral("Δ vs reference")), 1)->text(),
             QStringLiteral("−500 µs (−25.0 %)"));
    QVERIFY(csv.contains(QStringLiteral("delta_makespan_us,,-500\n")));
    QVERIFY(csv.contains(QStringLiteral("delta_makespan_percent,,-25\n")));
  }

  void compareViewPicksSmoothsAndLogsAnySeries() {
    RunComparison c;
    RunInfo a = run(4, "train", "doppler"), b = run(7, "train", "doppler");
    c.runs = {a, b};
    const std::vector<int64_t> steps = {0, 1, 2, 3, 4, 5, 6, 7};
    c.all_series["loss"] = {{"loss", steps, {4, -1, 3, 0, 2, 1, 1.5, 0.5}},
                            {"loss", steps, {2, 2, 1, 1, 1, 0.5, 0.5, 0.2}}};
    c.all_series["greedy_makespan_us"] = {{"greedy_makespan_us", {0, 4}, {9000, 8000}}, {}};
    c.all_series["entropy"] = {{"entropy", steps, {1, 0.9, 0.8, 0.8, 0.7, 0.6, 0.6, 0.5}},
                               {"entropy", steps, {1, 1, 0.9, 0.9, 0.8, 0.8, 0.7, 0.7}}};
    c.series_name = "loss";
    c.series = c.all_series["loss"];
    RunCompareView view;
    view.resize(1200, 800);
    view.setComparison(c);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    // Makespans first, then loss, then the rest.
    QComboBox* picker = view.seriesPicker();
    QCOMPARE(picker->count(), 3);
    QCOMPARE(picker->itemData(0).toString(), QStringLiteral("greedy_makespan_us"));
    QCOMPARE(picker->itemText(0), QStringLiteral("greedy makespan (ms)"));
    QCOMPARE(picker->itemData(1).toString(), QStringLiteral("loss"));
    QCOMPARE(picker->currentText(), QStringLiteral("loss"));
    QChart* chart = view.chartView()->chart();
    QCOMPARE(chart->series().size(), 2);  // one line per run, unsmoothed

    // A loss below zero has no log axis; the box says why.
    QVERIFY(!view.logAxisBox()->isEnabled());
    QVERIFY(view.logAxisBox()->toolTip().contains(QStringLiteral("zero")));

    // Smoothing: the raw curve stays, faint and out of the legend, under the smoothed one.
    view.setSmoothing(0.6);
    QCOMPARE(view.smoothing(), 0.6);
    QCOMPARE(chart->series().size(), 4);
    auto shownMarkers = [&] {
      int shown = 0;
      for (QLegendMarker* m : chart->legend()->markers()) shown += m->isVisible();
      return shown;
    };
    QCOMPARE(chart->legend()->markers().size(), 4);
    QTRY_COMPARE(shownMarkers(), 2);
    QVERIFY(chart->title().contains(QStringLiteral("smoothed 0.60")));
    auto* smoothed = qobject_cast<QLineSeries*>(chart->series()[1]);
    QVERIFY(smoothed);
    QCOMPARE(smoothed->at(0).y(), 4.0);  // debiased: the first point is the first value
    const std::vector<double> expected = emaSmoothed({4, -1, 3, 0, 2, 1, 1.5, 0.5}, 0.6);
    QCOMPARE(smoothed->at(7).y(), expected[7]);

    // Entropy is positive: a log axis, picked through the combo as a user does.
    picker->setCurrentIndex(picker->findData(QStringLiteral("entropy")));
    Q_EMIT picker->activated(picker->currentIndex());
    QCOMPARE(view.comparison().series_name, std::string("entropy"));
    QVERIFY(view.logAxisBox()->isEnabled());
    view.logAxisBox()->setChecked(true);
    bool logY = false;
    for (QAbstractAxis* axis : chart->axes(Qt::Vertical))
      logY |= qobject_cast<QLogValueAxis*>(axis) != nullptr;
    QVERIFY(logY);
    // Every rebuild replaces the axes: old ones left behind draw their labels over the new.
    QCOMPARE(chart->axes(Qt::Vertical).size(), 1);
    QCOMPARE(chart->axes(Qt::Horizontal).size(), 1);
    QCOMPARE(chart->findChildren<QAbstractAxis*>().size(), 2);

    // A makespan series: the run without points is drawn as nothing, not as a fake line.
    QVERIFY(view.showSeries("greedy_makespan_us"));
    QVERIFY(!view.showSeries("no such series"));
    QCOMPARE(chart->series().size(), 2);  // run 4 raw + smoothed; run 7 has neither
  }

  void emaSmoothingIsDebiasedAndSkipsGaps() {
    QCOMPARE(emaSmoothed({1, 2, 3}, 0), (std::vector<double>{1, 2, 3}));
    const std::vector<double> s = emaSmoothed({10, 10, 10}, 0.9);
    for (double v : s) QCOMPARE(v, 10.0);  // a constant stays constant: no pull towards 0
    const std::vector<double> gap = emaSmoothed({2, std::nan(""), 4}, 0.5);
    QVERIFY(std::isnan(gap[1]));
    QCOMPARE(gap[2], (0.5 * 0.5 * 2 + 0.5 * 4) / (1 - 0.25));
    QCOMPARE(trailingMean({1, 2, 3, 4}, 2), (std::vector<double>{1, 1.5, 2.5, 3.5}));
  }
};

int runRunsTest(int argc, char** argv) {
  RunsTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "runs_test.moc"

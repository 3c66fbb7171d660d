// Every item model under QAbstractItemModelTester, through resets, range changes and an empty
// state.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "tests/views/synthetic.h"
#include "views/models/device_summary_model.h"
#include "views/models/node_table_model.h"
#include "views/models/schedule_model.h"

using namespace doppler;
using namespace doppler::views;
using Tester = QAbstractItemModelTester;

class ModelsTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void nodeTable() {
    NodeTableModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    auto s = testing::workloadSnapshot("chainmm");
    model.setSnapshot(s);
    QCOMPARE(model.rowCount(), s->graph->nodeCount());
    QCOMPARE(model.columnCount(), int(NodeTableModel::ColumnCount));
    const int v = 5;
    QCOMPARE(model.data(model.index(v, NodeTableModel::Id)).toString(),
             QString::fromStdString(s->graph->node(v).id));
    QCOMPARE(model.data(model.index(v, 0), NodeRole).toInt(), v);
    QCOMPARE(model.data(model.index(v, NodeTableModel::Start), SortRole).toDouble(),
             s->sim.schedule.nodes[v].start_us);
    QVERIFY(!model.data(model.index(v, 0), Qt::ToolTipRole).toString().isEmpty());
    model.setSnapshot(testing::workloadSnapshot("ffnn"));
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void schedule() {
    ScheduleModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    auto s = testing::workloadSnapshot("llama-block");
    model.setSnapshot(s);
    QCOMPARE(model.rowCount(), int(s->graph->nodeCount() + s->sim.schedule.transfers.size()));
    double last = -1;
    for (int r = 0; r < model.rowCount(); ++r) {  // start order
      const double start = model.data(model.index(r, ScheduleModel::Start), SortRole).toDouble();
      QVERIFY(start >= last);
      last = start;
    }
    model.setSnapshot(testing::workloadSnapshot("chainmm", 2));
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void deviceSummary() {
    DeviceSummaryModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    auto s = testing::workloadSnapshot("llama-block", 4);
    model.setSnapshot(s);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(DeviceSummaryModel::Idle) + 1);
    const double half = s->makespan() / 2;
    model.setRange(std::make_pair(0.0, half));
    QCOMPARE(model.columnCount(), int(DeviceSummaryModel::RangeIdle) + 1);
    const auto stats = deviceRangeStats(s->sim.schedule, 4, 0, half);
    for (int d = 0; d < 4; ++d) {
      QCOMPARE(
          model.data(model.index(d, DeviceSummaryModel::RangeUtilization), SortRole).toDouble(),
          stats[d].utilization);
      QVERIFY(std::abs(stats[d].busy_us + stats[d].idle_us - half) < 1e-6 * half);
    }
    model.setRange(std::make_pair(half, s->makespan()));  // same shape: dataChanged only
    model.setRange(std::nullopt);
    QCOMPARE(model.columnCount(), int(DeviceSummaryModel::Idle) + 1);
    model.setSnapshot(testing::workloadSnapshot("ffnn", 8));
    QCOMPARE(model.rowCount(), 8);
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void rangeStatsMatchSchedule() {
    auto s = testing::workloadSnapshot("ffnn", 3);
    const auto whole = deviceRangeStats(s->sim.schedule, 3, 0, s->makespan());
    for (int d = 0; d < 3; ++d)
      QVERIFY(std::abs(whole[d].busy_us - s->sim.busy_us[d]) < 1e-6 * s->makespan());
  }
};

#include "models_test.moc"
int runModelsTest(int argc, char** argv) {
  ModelsTest t;
  return QTest::qExec(&t, argc, argv);
}

// The Runs dock in the studio (offscreen), against real `doppler` processes on the same session
// file: a run the CLI records appears without user action; comparing two runs names the moved
// nodes `doppler runs compare` names (identical devices matched) and ends when the comparison
// closes; tag, rename and delete reach the file as the CLI sees it;
// Save Session As and Open keep every run; a damaged file is refused and the session stays.
#include <QDockWidget>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/studio/document/studio_document.h"
#include "app/studio/panels/runs_controller.h"
#include "app/studio/window/main_window.h"
#include "core/graph/graph_io.h"
#include "tests/studio/studio_test_support.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/runs_panel.h"
#include "views/runs/runs_table_model.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;

class RunsStudioTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  std::unique_ptr<QTemporaryDir> dir_;

  QString db() const { return dir_->filePath(QStringLiteral("runs.sqlite")); }
  RunsTableModel* model() const { return w_->runsPage()->panel()->model(); }

  // Runs the CLI; returns its standard output (empty, with a warning, on failure).
  QByteArray cli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(DOPPLER_CLI), args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
      qWarning() << "doppler failed:" << args << p.readAllStandardError();
      return {};
    }
    return p.readAllStandardOutput();
  }

  // `doppler place` on the open graph and devices, recorded into `file`; returns the run id.
  int64_t place(const QString& method, const QString& file) {
    const QString graph = dir_->filePath(QStringLiteral("graph.json"));
    QFile f(graph);
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(writeGraphJson(*w_->document()->graph())));
    f.close();
    cli({QStringLiteral("place"), QStringLiteral("--graph"), graph, QStringLiteral("--devices"),
         w_->document()->devicesSpec(), QStringLiteral("--method"), method, QStringLiteral("--db"),
         file, QStringLiteral("--json")});
    const auto list =
        nlohmann::json::parse(cli({QStringLiteral("runs"), QStringLiteral("list"),
                                   QStringLiteral("--db"), file, QStringLiteral("--json")})
                                  .toStdString());
    return list["runs"].empty() ? -1 : list["runs"].back()["id"].get<int64_t>();
  }

  std::vector<int64_t> shownIds() const {
    std::vector<int64_t> ids;
    for (const auto& run : model()->runs()) ids.push_back(run.id);
    return ids;
  }

 private Q_SLOTS:
  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    qputenv("DOPPLER_STUDIO_DB", db().toLocal8Bit());
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
    w_->runsPage()->show();
    QCOMPARE(w_->sessionPath(), QFileInfo(db()).absoluteFilePath());
    QVERIFY(w_->windowTitle().contains(QStringLiteral("runs.sqlite")));
    QCOMPARE(model()->rowCount(), 0);
  }
  void cleanup() {
    delete w_;
    w_ = nullptr;
    dir_.reset();
  }

  void aRunRecordedByAnotherProcessAppearsWithoutUserAction() {
    const int64_t id = place(QStringLiteral("critical-path"), db());
    QVERIFY(id > 0);
    // Nothing is called on the window: the dock's poll notices the other process's commit.
    QTRY_COMPARE_WITH_TIMEOUT(shownIds(), std::vector<int64_t>{id}, 15000);
    const int row = model()->rowOfRun(id);
    QCOMPARE(model()->index(row, RunsTableModel::Method).data().toString(),
             QStringLiteral("critical-path"));
    QVERIFY(model()->index(row, RunsTableModel::Makespan).data(SortRole).toDouble() > 0);
    QVERIFY(model()->index(row, RunsTableModel::Ratio).data(SortRole).toDouble() >= 1.0);
  }

  void comparingTwoRunsShowsTheMovedNodesTheCliNames() {
    const int64_t a = place(QStringLiteral("critical-path"), db());
    const int64_t b = place(QStringLiteral("round-robin"), db());
    QTRY_COMPARE_WITH_TIMEOUT(shownIds(), (std::vector<int64_t>{a, b}), 15000);
    const auto compared = nlohmann::json::parse(
        cli({QStringLiteral("runs"), QStringLiteral("compare"), QString::number(a),
             QString::number(b), QStringLiteral("--db"), db(), QStringLiteral("--json")})
            .toStdString());
    QStringList expected;
    for (const auto& moved : compared["placement_diffs"][0]["moved"])
      expected << QString::fromStdString(moved["node"].get<std::string>());
    QVERIFY2(!expected.isEmpty(), "the two methods should place some node differently");

    QSignalSpy marked(w_->runsPage()->compareView(), &RunCompareView::movedNodesChanged);
    w_->runsPage()->panel()->selectRuns({a, b});
    w_->runsPage()->panel()->compareSelected();
    QVERIFY(w_->runsPage()->compareView()->isVisible());
    QCOMPARE(marked.count(), 1);
    QCOMPARE(w_->runsPage()->compareView()->movedNodes(), expected);
    QCOMPARE(w_->runsPage()->compareView()->comparison().runs.size(), size_t(2));
    QVERIFY(w_->runsPage()->compareView()->comparison().timelines[1].has_value());
    // The graph keeps the shown placement's fill (run a's: the window placed the same method on
    // the same devices) and rings each node the CLI names in the device it has in run b, on the
    // shown devices after matching identical ones.
    GraphScene* scene = w_->graphView()->graphScene();
    const DataflowGraph& g = *w_->document()->graph();
    const auto& diff = compared["placement_diffs"][0];
    const auto map = diff["device_map"].get<std::vector<int>>();
    QVERIFY(scene->comparing());
    QCOMPARE(scene->comparedMoveCount(), static_cast<int>(expected.size()));
    for (const auto& moved : diff["moved"]) {
      int v = 0;
      while (g.node(v).id != moved["node"].get<std::string>()) ++v;
      const int to = moved["to"].get<int>();
      QCOMPARE(scene->nodeDevice(v), moved["from"].get<int>());
      QCOMPARE(scene->comparedDevice(v), map.empty() ? to : map[to]);
    }
    // Closing the comparison ends it on the graph too.
    w_->runsPage()->compareView()->close();
    QVERIFY(!scene->comparing());
    QCOMPARE(scene->comparedMoveCount(), 0);
  }

  void tagRenameAndDeleteReachTheFileAsTheCliSeesIt() {
    const int64_t a = place(QStringLiteral("critical-path"), db());
    const int64_t b = place(QStringLiteral("heft"), db());
    QTRY_COMPARE_WITH_TIMEOUT(shownIds(), (std::vector<int64_t>{a, b}), 15000);
    RunsPanel* panel = w_->runsPage()->panel();
    panel->selectRuns({a});
    panel->tagSelected(QStringLiteral("baseline"));
    panel->renameSelected(QStringLiteral("first try"));
    panel->renameSelected(QStringLiteral("reference"));  // replaces the name, not a second one
    auto show = [&](int64_t id) {
      return nlohmann::json::parse(
          cli({QStringLiteral("runs"), QStringLiteral("show"), QString::number(id),
               QStringLiteral("--db"), db(), QStringLiteral("--json")})
              .toStdString());
    };
    const auto tags = show(a)["tags"];
    QCOMPARE(tags.size(), size_t(2));
    QVERIFY(std::find(tags.begin(), tags.end(), "baseline") != tags.end());
    QVERIFY(std::find(tags.begin(), tags.end(), "name:reference") != tags.end());
    const int row = model()->rowOfRun(a);
    QCOMPARE(model()->index(row, RunsTableModel::Name).data().toString(),
             QStringLiteral("reference"));
    QCOMPARE(model()->index(row, RunsTableModel::Tags).data().toString(),
             QStringLiteral("baseline"));

    panel->selectRuns({b});
    panel->deleteSelected(false);
    QCOMPARE(shownIds(), std::vector<int64_t>{a});
    const auto list =
        nlohmann::json::parse(cli({QStringLiteral("runs"), QStringLiteral("list"),
                                   QStringLiteral("--db"), db(), QStringLiteral("--json")})
                                  .toStdString());
    QCOMPARE(list["runs"].size(), size_t(1));
    QCOMPARE(list["runs"][0]["id"].get<int64_t>(), a);
  }

  void saveAsAndOpenKeepEveryRun() {
    const int64_t a = place(QStringLiteral("critical-path"), db());
    const int64_t b = place(QStringLiteral("etf"), db());
    QTRY_COMPARE_WITH_TIMEOUT(shownIds(), (std::vector<int64_t>{a, b}), 15000);
    const std::vector<sessions::RunInfo> before = model()->runs();
    const QString copy = dir_->filePath(QStringLiteral("copy.sqlite"));
    QVERIFY(w_->runsPage()->saveSessionAs(copy));
    QCOMPARE(w_->sessionPath(), QFileInfo(copy).absoluteFilePath());
    QVERIFY(w_->windowTitle().contains(QStringLiteral("copy.sqlite")));
    // The copy is where the session continues: a new run in the original is not in it.
    place(QStringLiteral("heft"), db());
    QVERIFY(w_->runsPage()->openSession(db()));
    QCOMPARE(model()->rowCount(), 3);
    QVERIFY(w_->runsPage()->openSession(copy));
    QCOMPARE(shownIds(), (std::vector<int64_t>{a, b}));
    for (size_t i = 0; i < before.size(); ++i) {
      const sessions::RunInfo& after = model()->runs()[i];
      QCOMPARE(after.method, before[i].method);
      QCOMPARE(after.figures, before[i].figures);
      QCOMPARE(after.started_at, before[i].started_at);
    }
    QString error;
    const RunComparison c = w_->runsPage()->controller()->comparison({a, b}, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(c.timelines[0] && !c.timelines[0]->nodes.empty());
  }

  void aDamagedFileIsRefusedAndTheSessionStaysOpen() {
    const int64_t a = place(QStringLiteral("critical-path"), db());
    QTRY_COMPARE_WITH_TIMEOUT(shownIds(), std::vector<int64_t>{a}, 15000);
    const QString bad = dir_->filePath(QStringLiteral("garbage.sqlite"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
    f.close();
    QVERIFY(!w_->runsPage()->openSession(bad));
    QVERIFY(w_->lastError().contains(QStringLiteral("garbage.sqlite")));
    QCOMPARE(w_->sessionPath(), QFileInfo(db()).absoluteFilePath());
    QCOMPARE(shownIds(), std::vector<int64_t>{a});
    // Still live on the session that stayed open.
    const int64_t b = place(QStringLiteral("heft"), db());
    QTRY_COMPARE_WITH_TIMEOUT(shownIds(), (std::vector<int64_t>{a, b}), 15000);
    QFile check(bad);
    QVERIFY(check.open(QIODevice::ReadOnly));
    QCOMPARE(check.readAll(), QByteArray(4096, 'x'));  // refused and left as it was
  }
};

DOPPLER_STUDIO_TEST_MAIN(RunsStudioTest)
#include "runs_test.moc"

// The studio's main window end to end (offscreen): the demo, selection and hover kept in sync
// between the graph and the timeline, the tuner reproducing `doppler place` for the same
// settings, search methods on the worker with progress and cancel, bad files, device files,
// drag and drop, help overlay, presentation mode and the dark theme.
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProcess>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/studio/dialogs/generate_dialog.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/window/help_overlay.h"
#include "app/studio/window/main_window.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "tests/studio/studio_test_support.h"
#include "tests/support/mouse.h"
#include "views/common/selection_state.h"
#include "views/common/theme.h"
#include "views/graph/graph_view.h"
#include "views/timeline/timeline_view.h"
#include "views/tuner/tuner_widget.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;
using doppler::qtest::sendMouse;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}

}  // namespace

class StudioTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  QTemporaryDir dir_;

  // `doppler place ... --json` for the document's current graph: the contract the tuner matches.
  nlohmann::json cliPlace(const QStringList& extra) {
    QStringList args = {"place", "--graph", qtest::writeDocumentGraph(w_, dir_), "--json"};
    args << extra << "--no-record";
    return qtest::runCliJson(args);
  }

  template <typename T>
  T* find(const char* name) {
    T* w = w_->findChild<T*>(QString::fromLatin1(name));
    if (!w) qWarning() << "no widget" << name;
    return w;
  }

 private Q_SLOTS:
  void init() {
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
  }
  void cleanup() {
    delete w_;
    w_ = nullptr;
  }

  void demoOpensPlaced() {
    const auto g = w_->document()->graph();
    QVERIFY(g);
    QCOMPARE(QString::fromStdString(g->name), QStringLiteral("llama-block"));
    QCOMPARE(w_->document()->devices()->size(), 4);
    QVERIFY(w_->graphView()->hasLayout());
    const SnapshotPtr s = w_->document()->snapshot();
    QVERIFY(s);
    QCOMPARE(w_->makespanReadout(), formatDuration(s->makespan()));
    QVERIFY(w_->timelineView()->data());
  }

  void hoverAndSelectionStayInSync() {
    const SnapshotPtr s = w_->document()->snapshot();
    int v = 0;  // a long bar
    for (const NodeSpan& n : s->sim.schedule.nodes)
      if (n.finish_us - n.start_us >
          s->sim.schedule.nodes[v].finish_us - s->sim.schedule.nodes[v].start_us)
        v = n.node;
    TimelineView* tl = w_->timelineView();
    const QPoint p = tl->pointOfNode(v);
    QVERIFY(p.x() >= 0);
    sendMouse(tl->viewport(), QEvent::MouseMove, p, Qt::NoButton, Qt::NoButton);
    QCOMPARE(w_->graphView()->graphScene()->hovered(), v);  // timeline hover lights the graph node
    QTest::mouseClick(tl->viewport(), Qt::LeftButton, Qt::NoModifier, p);
    QCOMPARE(w_->graphView()->graphScene()->selected(), v);
    auto* details = find<QTextBrowser>("details");
    QVERIFY(details->toPlainText().contains(QString::fromStdString(s->graph->node(v).id)));
    // And the reverse: hovering a node in the graph lights its bar.
    GraphView* gv = w_->graphView();
    const int u = s->graph->nodeCount() / 2;
    gv->centerOn(gv->graphScene()->nodeRect(u).center());
    const QPoint q = gv->viewportPosOfNode(u);
    QCOMPARE(gv->nodeAtViewport(q), u);
    sendMouse(gv->viewport(), QEvent::MouseMove, q, Qt::NoButton, Qt::NoButton);
    QCOMPARE(tl->hoveredNode(), u);
    QTest::mouseClick(gv->viewport(), Qt::LeftButton, Qt::NoModifier, q);
    QCOMPARE(tl->selectedNode(), u);
  }

  void tunerMatchesDopplerPlace() {
    TunerWidget* tuner = w_->docks()->tuner();
    // 1. A device rule.
    auto* rule = find<QComboBox>("param_device_rule");
    QVERIFY(rule);
    const double before = w_->document()->snapshot()->makespan();
    QElapsedTimer t;
    t.start();
    rule->setCurrentText("least-loaded");
    const double ms = t.nsecsElapsed() / 1e6;
    qInfo("tuner change to a new makespan: %.1f ms (136 nodes)", ms);
    SnapshotPtr s = w_->document()->snapshot();
    nlohmann::json cli = cliPlace({"--devices", "4xP100-PCIe", "--method", "critical-path", "-p",
                                   "device_rule=least-loaded"});
    QVERIFY(!cli.empty());
    QCOMPARE(s->makespan(), cli["makespan_us"].get<double>());
    QCOMPARE(tuner->makespanText(), formatDuration(cli["makespan_us"].get<double>()));
    QCOMPARE(w_->makespanReadout(), formatDuration(cli["makespan_us"].get<double>()));
    QVERIFY(s->previous_makespan_us && *s->previous_makespan_us == before);
    QCOMPARE(s->lower_bound_us, cli["lower_bound_us"].get<double>());
    // Nodes that moved device, as the CLI's assignments say.
    int moved = 0;
    for (int v = 0; v < s->graph->nodeCount(); ++v)
      moved += s->assignment[v] != cli["assignment"][s->graph->node(v).id].get<int>();
    QCOMPARE(moved, 0);  // the assignment is the CLI's
    QVERIFY(!s->moved.empty());
    QCOMPARE(w_->graphView()->graphScene()->movedCount(), int(s->moved.size()));

    // 2. Weights, cost model, noise and seed together.
    find<QDoubleSpinBox>("param_w_comm")->setValue(0.5);
    find<QComboBox>("costModel")->setCurrentIndex(1);  // links
    find<QDoubleSpinBox>("noise")->setValue(0.1);
    find<QSpinBox>("seed")->setValue(7);
    s = w_->document()->snapshot();
    cli = cliPlace({"--devices", "4xP100-PCIe", "--method", "critical-path", "-p",
                    "device_rule=least-loaded", "-p", "w_comm=0.5", "--cost-model", "links",
                    "--noise", "0.1", "--seed", "7"});
    QCOMPARE(s->makespan(), cli["makespan_us"].get<double>());

    // The discipline: sequence runs the plan's order, as `place --discipline sequence` does.
    find<QComboBox>("discipline")->setCurrentIndex(2);
    s = w_->document()->snapshot();
    QCOMPARE(s->settings.discipline, Discipline::Sequence);
    cli = cliPlace({"--devices", "4xP100-PCIe", "--method", "critical-path", "-p",
                    "device_rule=least-loaded", "-p", "w_comm=0.5", "--cost-model", "links",
                    "--noise", "0.1", "--seed", "7", "--discipline", "sequence"});
    QCOMPARE(s->makespan(), cli["makespan_us"].get<double>());
    find<QComboBox>("discipline")->setCurrentIndex(0);

    // 3. Another method and another device set, from the toolbar.
    find<QComboBox>("toolbarMethod")->setCurrentText("heft");
    auto* devices = find<QComboBox>("toolbarDevices");
    devices->setCurrentIndex(devices->findData("8xV100-NVLink"));
    s = w_->document()->snapshot();
    QCOMPARE(s->devices->size(), 8);
    QCOMPARE(QString::fromStdString(s->settings.method), QStringLiteral("heft"));
    QCOMPARE(find<QComboBox>("devices")->currentData().toString(),
             QStringLiteral("8xV100-NVLink"));  // tuner follows
    cli = cliPlace({"--devices", "8xV100-NVLink", "--method", "heft", "--cost-model", "links",
                    "--noise", "0.1", "--seed", "7"});
    QCOMPARE(s->makespan(), cli["makespan_us"].get<double>());
  }

  void tunerUpdatesAtOnceAt500Nodes() {
    auto g = generateGraph("ffnn", {{"layers", 8}, {"shards", 5}});
    QVERIFY2(g.nodeCount() >= 400 && g.nodeCount() <= 700,
             qPrintable(QString::number(g.nodeCount())));
    QString error;
    QVERIFY(w_->document()->setGraph(std::move(g), "generated: ffnn", &error));
    QVERIFY(w_->waitSettled(60000));
    auto* rule = find<QComboBox>("param_device_rule");
    QElapsedTimer t;
    t.start();
    rule->setCurrentText("earliest-finish");
    w_->graphView()->viewport()->repaint();
    w_->timelineView()->viewport()->repaint();
    const double ms = t.nsecsElapsed() / 1e6;
    qInfo("tuner change on %d nodes: %.1f ms to a new placement, repainted graph and timeline",
          w_->document()->graph()->nodeCount(), ms);
    // Speed is a benchmark's business (bench/views_bench); here: the change took effect at once.
    QCOMPARE(QString::fromStdString(w_->document()->snapshot()->settings.params.at("device_rule")),
             QStringLiteral("earliest-finish"));
  }

  void localSearchRunsOnTheWorker() {
    find<QComboBox>("toolbarMethod")->setCurrentText("local-search");
    find<QSpinBox>("budget")->setValue(1500);
    QVERIFY(w_->waitSettled(120000));
    SnapshotPtr s = w_->document()->snapshot();
    QCOMPARE(QString::fromStdString(s->settings.method), QStringLiteral("local-search"));
    QCOMPARE(s->evaluations, 1500L);
    const nlohmann::json cli = cliPlace({"--devices", "4xP100-PCIe", "--method", "local-search",
                                         "--budget", "1500", "--seed", "1"});
    QCOMPARE(s->makespan(), cli["makespan_us"].get<double>());

    // A long search reports progress and stops on cancel with its best so far.
    QSignalSpy progress(w_->document(), &StudioDocument::progress);
    find<QSpinBox>("budget")->setValue(5000000);
    QVERIFY(w_->document()->busy());
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 20000);
    w_->document()->cancel();
    QVERIFY(w_->jobs()->waitIdle(20000));
    s = w_->document()->snapshot();
    QVERIFY(s->cancelled);
    QVERIFY(s->evaluations < 5000000);
  }

  void badFilesLeaveThePreviousGraphOpen() {
    const auto graph = w_->document()->graph();
    const SnapshotPtr snapshot = w_->document()->snapshot();
    struct Case {
      QString name;
      QByteArray text;
      QString expect;
    } cases[] = {
        {"not-json.json", "{\"format\": \"dataflow-graph/1\", \"nodes\": [", "broken"},
        {"negative.json",
         R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":-1}],"edges":[]})", "nodes[0]"},
        {"cycle.json",
         R"({"format":"dataflow-graph/1","nodes":[{"id":"a"},{"id":"b"}],"edges":[{"src":"a","dst":"b"},{"src":"b","dst":"a"}]})",
         "cycle"},
        {"unknown-edge.json",
         R"({"format":"dataflow-graph/1","nodes":[{"id":"a"}],"edges":[{"src":"a","dst":"zz"}]})",
         "zz"},
        {"empty.txt", "", "empty"},
        // Every value finite, their sum not: the studio crashed drawing it (SIGSEGV).
        {"huge.json",
         R"({"format":"dataflow-graph/1","nodes":[{"id":"a","compute_us":1e308},{"id":"b","compute_us":1e308}],"edges":[{"src":"a","dst":"b"}]})",
         "31.7 years"},
        {"no-nodes.json", R"({"format":"dataflow-graph/1","nodes":[],"edges":[]})", "no nodes"},
        {"devices.json", R"({"format":"device-set/1","devices":[{"name":"g","tflops":-3}]})",
         "tflops"},
    };
    for (const Case& c : cases) {
      const QString path = writeFile(dir_, c.name, c.text);
      QVERIFY(!w_->openFile(path));
      QVERIFY2(w_->lastError().contains(c.name), qPrintable(w_->lastError()));
      QVERIFY2(w_->lastError().contains(c.expect, Qt::CaseInsensitive) || c.expect == "broken",
               qPrintable(w_->lastError()));
      QCOMPARE(w_->document()->graph(), graph);
      QCOMPARE(w_->document()->snapshot(), snapshot);
      QVERIFY(find<QFrame>("errorBanner")->isVisible());
      QVERIFY(w_->graphView()->hasLayout());
    }
    QVERIFY(!w_->openFile(dir_.filePath("does-not-exist.json")));
    QVERIFY(w_->lastError().contains("does-not-exist.json"));
    QCOMPARE(w_->document()->graph(), graph);
  }

  void openGraphAndDeviceFilesAndDrop() {
    const QString graph = writeFile(
        dir_, "chain.json", QByteArray::fromStdString(writeGraphJson(generateGraph("chainmm"))));
    QVERIFY(w_->openFile(graph));
    QCOMPARE(w_->document()->graph()->nodeCount(), 99);
    QVERIFY(w_->waitSettled(60000));
    QCOMPARE(w_->graphView()->graphScene()->layout()->centers.size(), size_t(99));
    const QString devices = writeFile(
        dir_, "two.json",
        R"({"format":"device-set/1","name":"2xtest","devices":[{"name":"a","tflops":10},{"name":"b","tflops":20}],"links":{"bandwidth_gbps":25,"latency_us":2}})");
    QVERIFY(w_->openFile(devices));
    QCOMPARE(w_->document()->devices()->size(), 2);
    QCOMPARE(w_->document()->snapshot()->devices->size(), 2);
    // The Doppler reference text format, detected by content; without op kinds its timeline
    // is coloured by device.
    const QString text = QStringLiteral(DOPPLER_TEST_DATA "/ffnn_60nodes.txt");
    QVERIFY2(w_->openFile(text), qPrintable(w_->lastError()));
    QCOMPARE(QString::fromStdString(w_->document()->graph()->name), QStringLiteral("ffnn_60nodes"));
    QVERIFY(w_->waitSettled(60000));
    QCOMPARE(w_->timelineView()->colorMode(), TimelineColorMode::Device);
    // Drag and drop a graph onto the window.
    const QString dropped = writeFile(
        dir_, "ffnn.json", QByteArray::fromStdString(writeGraphJson(generateGraph("ffnn"))));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(dropped)});
    const QPoint at = w_->rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w_, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w_, &drop);
    QCOMPARE(w_->document()->graph()->nodeCount(), generateGraph("ffnn").nodeCount());
    QVERIFY(w_->waitSettled(60000));
  }

  void generateDialogBuildsWorkloads() {
    GenerateDialog dialog;
    dialog.setKind("ffnn");
    dialog.setParam("layers", 2);
    dialog.accept();
    QVERIFY(dialog.graph());
    QCOMPARE(dialog.graph()->nodeCount(), generateGraph("ffnn", {{"layers", 2}}).nodeCount());
    GenerateDialog bad;
    bad.setKind("chainmm");
    bad.setParam("blocks", 32);
    bad.setParam("n", 4);  // n must be >= blocks
    bad.accept();
    QVERIFY(!bad.graph());
    QVERIFY(!bad.findChild<QLabel*>("error")->text().isEmpty());
  }

  // `doppler-studio --demo --devices 8xV100-NVLink` places the demo on those devices.
  void theDemoTakesTheDevicesAsked() {
    StudioOptions options;
    options.demo = true;
    options.fresh = true;
    options.devices = "8xV100-NVLink";
    MainWindow w(options);
    w.show();
    QVERIFY(w.waitSettled(60000));
    QCOMPARE(w.document()->devicesSpec(), QStringLiteral("8xV100-NVLink"));
    QVERIFY(w.document()->snapshot());
    QCOMPARE(w.document()->snapshot()->devices->size(), 8);
    QCOMPARE(w.timelineView()->data()->computeLanes, 8);
  }

  void settingsKeepDocksRecentFilesAndTheGraph() {
    // Real settings (not `fresh`), in a private XDG_CONFIG_HOME (set in main before any QSettings).
    const QString graph = writeFile(
        dir_, "kept.json", QByteArray::fromStdString(writeGraphJson(generateGraph("chainmm"))));
    {
      StudioOptions options;
      options.file = graph;
      options.devices = "8xH100-NVSwitch";
      MainWindow a(options);
      a.show();
      QVERIFY(a.waitSettled(60000));
      a.addDockWidget(Qt::LeftDockWidgetArea, a.docks()->tunerDock());
      a.close();
    }
    MainWindow b{StudioOptions{}};
    b.show();
    QVERIFY(b.waitSettled(60000));
    QCOMPARE(b.dockWidgetArea(b.docks()->tunerDock()), Qt::LeftDockWidgetArea);
    QCOMPARE(b.document()->graphSource(), QFileInfo(graph).absoluteFilePath());
    QCOMPARE(b.document()->devicesSpec(), QStringLiteral("8xH100-NVSwitch"));
    const QList<QAction*> recent = b.findChild<QMenu*>("recentMenu")->actions();
    QVERIFY(std::any_of(recent.begin(), recent.end(),
                        [&](QAction* a) { return a->text() == "kept.json"; }));
  }

  void helpPresentationTheme() {
    QTest::keyClick(w_, Qt::Key_Question);
    QVERIFY(w_->helpOverlay()->isVisible());
    QTest::keyClick(w_->helpOverlay(), Qt::Key_Escape);
    QVERIFY(!w_->helpOverlay()->isVisible());

    w_->graphView()->setFocus();
    w_->setPresentationMode(true);
    QVERIFY(!w_->menuBar()->isVisible());
    QVERIFY(!w_->docks()->tunerDock()->isVisible());
    QVERIFY(w_->graphView()->isVisible());
    QVERIFY(!w_->timelineView()->isVisible());
    w_->setPresentationMode(false);
    QVERIFY(w_->menuBar()->isVisible());
    QVERIFY(w_->docks()->tunerDock()->isVisible());
    QVERIFY(w_->timelineView()->isVisible());

    w_->setDarkTheme(true);
    QVERIFY(Theme::isDark());
    w_->setDarkTheme(false);
    QVERIFY(!Theme::isDark());
  }
};

int main(int argc, char** argv) {
  QTemporaryDir config;
  qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Doppler-tests"));
  Theme::setDark(false, &app);
  StudioTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "studio_test.moc"

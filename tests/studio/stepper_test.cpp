// The decision stepper in the studio (offscreen), as a user drives it: open the dock on the demo,
// step with the keys, override a node and a device (from the dock and the graph), compare with
// `doppler place` and `doppler simulate`, switch branches, undo and redo, save a branch as a run
// whose parent is the original, and reopen that run's recorded decisions.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QProcess>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/stepper_session.h"
#include "app/studio/window/main_window.h"
#include "core/graph/graph_io.h"
#include "core/train/torch_module.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "tests/studio/studio_test_support.h"
#include "views/common/theme.h"
#include "views/graph/graph_view.h"
#include "views/stepper/stepper_widget.h"
#include "views/timeline/timeline_view.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;

class StepperTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  QTemporaryDir dir_;

  StepperSession* session() { return w_->stepperPage()->session(); }

  nlohmann::json cli(QStringList args) { return qtest::cliOnDocument(w_, dir_, std::move(args)); }

  // The first step with at least two ready nodes.
  int stepWithAChoice() {
    const DecisionTrace& t = *session()->branch().trace;
    for (size_t k = 1; k < t.steps.size(); ++k)
      if (t.steps[k].ready.size() >= 2) return static_cast<int>(k);
    return -1;
  }

 private Q_SLOTS:
  void init() {
    qputenv("DOPPLER_STUDIO_DB", dir_.filePath("runs.sqlite").toLocal8Bit());
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
    w_->stepperPage()->show();
    QVERIFY(w_->stepperPage()->dock()->isVisible());
    QVERIFY(session()->active());
  }
  void cleanup() {
    delete w_;
    w_ = nullptr;
    QFile::remove(dir_.filePath("runs.sqlite"));
  }

  void opensOnTheTunersHeuristicAndMatchesPlace() {
    const SnapshotPtr s = w_->document()->snapshot();
    QCOMPARE(session()->steps(), s->graph->nodeCount());
    QCOMPARE(session()->step(), 0);
    QCOMPARE(session()->branch().assignment, s->assignment);
    QCOMPARE(session()->branch().makespan_us, s->makespan());
    // The trace's final assignment is `doppler place`'s for the same method.
    const nlohmann::json place = cli({"place", "--method", "critical-path"});
    QVERIFY(!place.empty());
    for (int v = 0; v < s->graph->nodeCount(); ++v)
      QCOMPARE(session()->branch().assignment[v],
               place["assignment"][s->graph->node(v).id].get<int>());
    // The graph and the timeline show the step overlay while the dock is open, not after.
    QVERIFY(w_->graphView()->stepOverlay());
    w_->stepperPage()->dock()->hide();
    QVERIFY(!w_->graphView()->stepOverlay());
  }

  void keysStepAndSteppingBackRestoresTheState() {
    QWidget* dock = w_->stepperPage()->widget();
    dock->setFocus();
    QTest::keyClick(dock, Qt::Key_Right);
    QTest::keyClick(dock, Qt::Key_Right);
    QCOMPARE(session()->step(), 2);
    QTest::keyClick(dock, Qt::Key_Left);
    QCOMPARE(session()->step(), 1);
    QTest::keyClick(dock, Qt::Key_End);
    QCOMPARE(session()->step(), session()->steps());
    QTest::keyClick(dock, Qt::Key_Home);
    QCOMPARE(session()->step(), 0);

    const int k = session()->steps() / 3;
    session()->setStep(k);
    const StepOverlayPtr before = session()->overlay();
    for (int i = k; i <= session()->steps(); ++i) session()->setStep(i);
    for (int i = session()->steps(); i >= k; --i) session()->setStep(i);
    const StepOverlayPtr after = session()->overlay();
    QCOMPARE(after->step, before->step);
    QCOMPARE(after->chosen, before->chosen);
    QCOMPARE(after->placed, before->placed);
    QCOMPARE(after->partial_makespan_us, before->partial_makespan_us);
    QCOMPARE(after->ready.size(), before->ready.size());
    for (size_t j = 0; j < after->ready.size(); ++j) {
      QCOMPARE(after->ready[j].node, before->ready[j].node);
      QCOMPARE(after->ready[j].score, before->ready[j].score);
    }
  }

  void overridesBranchUndoAndSimulateAsTheCliDoes() {
    const int k = stepWithAChoice();
    QVERIFY(k > 0);
    session()->setStep(k);
    const DecisionStep s = session()->branch().trace->steps[k];
    const Assignment original = session()->branch().assignment;
    // The choice already made changes nothing.
    QString error;
    QVERIFY(session()->overrideNode(s.node, &error));
    QCOMPARE(session()->branches().size(), size_t(1));
    // Another ready node, from the dock.
    const int other = s.ready[0].node == s.node ? s.ready[1].node : s.ready[0].node;
    Q_EMIT w_->stepperPage()->widget()->nodeOverrideRequested(other);
    QCOMPARE(session()->branches().size(), size_t(2));
    QCOMPARE(session()->currentBranch(), 1);
    QCOMPARE(session()->step(), k);
    QCOMPARE(session()->branch().trace->steps[k].node, other);
    for (int j = 0; j < k; ++j)
      QCOMPARE(session()->branch().trace->steps[j].node,
               session()->branches()[0].trace->steps[j].node);
    // The dock shows the new final makespan next to the original.
    const StepperContent c = session()->content();
    QVERIFY(c.original_makespan_us.has_value());
    QCOMPARE(*c.original_makespan_us, session()->branches()[0].makespan_us);
    // Its makespan is `doppler simulate`'s verdict on its assignment.
    const DataflowGraph& g = *w_->document()->graph();
    nlohmann::json a = nlohmann::json::object();
    for (int v = 0; v < g.nodeCount(); ++v) a[g.node(v).id] = session()->branch().assignment[v];
    const QString file = dir_.filePath("branch.json");
    QFile f(file);
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(a.dump()));
    f.close();
    const nlohmann::json sim = cli({"simulate", "--assignment", file});
    QVERIFY(!sim.empty());
    QCOMPARE(sim["makespan_us"].get<double>(), session()->branch().makespan_us);
    // And `doppler place --override` replays to the same assignment.
    const nlohmann::json replay =
        cli({"place", "--method", "critical-path", "--override",
             QStringLiteral("%1:node=%2").arg(k).arg(QString::fromStdString(g.node(other).id))});
    QVERIFY(!replay.empty());
    QCOMPARE(replay["makespan_us"].get<double>(), session()->branch().makespan_us);

    // A device override on top, then undo twice and redo.
    const int dev = (session()->branch().trace->steps[k].device + 1) % 4;
    Q_EMIT w_->stepperPage()->widget()->deviceOverrideRequested(dev);
    QCOMPARE(session()->branches().size(), size_t(3));
    QCOMPARE(session()->branch().assignment[other], dev);
    QUndoStack* undo = session()->undoStack();
    undo->undo();
    QCOMPARE(session()->currentBranch(), 1);
    undo->undo();
    QCOMPARE(session()->currentBranch(), 0);
    QCOMPARE(session()->branch().assignment, original);
    QCOMPARE(session()->step(), k);
    undo->redo();
    QCOMPARE(session()->currentBranch(), 1);
    QCOMPARE(session()->branch().trace->steps[k].node, other);
    // Switching branches from the dock's list is undoable too.
    Q_EMIT w_->stepperPage()->widget()->branchRequested(0);
    QCOMPARE(session()->currentBranch(), 0);
    undo->undo();
    QCOMPARE(session()->currentBranch(), 1);
  }

  void clickingAReadyNodeInTheGraphOverrides() {
    const int k = stepWithAChoice();
    session()->setStep(k);
    const DecisionStep s = session()->branch().trace->steps[k];
    const int other = s.ready[0].node == s.node ? s.ready[1].node : s.ready[0].node;
    Q_EMIT w_->graphView()->stepNodeClicked(other);
    QCOMPARE(session()->branch().trace->steps[k].node, other);
  }

  void aBranchSavesAsARunWithTheOriginalAsParent() {
    const int k = stepWithAChoice();
    session()->setStep(k);
    const int dev = (session()->branch().trace->steps[k].device + 1) % 4;
    QString error;
    QVERIFY(session()->overrideDevice(dev, &error));
    Q_EMIT w_->stepperPage()->widget()->saveBranchRequested();
    const std::optional<int64_t> branchRun = session()->branch().run_id;
    const std::optional<int64_t> originalRun = session()->branches()[0].run_id;
    QVERIFY(branchRun && originalRun);
    sessions::RunStore store(dir_.filePath("runs.sqlite").toStdString());
    const sessions::RunInfo info = sessions::getRun(store, *branchRun);
    QCOMPARE(info.parent_id, originalRun);
    QCOMPARE(info.kind, std::string("place"));
    QCOMPARE(info.figures.at("makespan_us"), session()->branch().makespan_us);
    QVERIFY(info.params.contains("overrides"));
    // The stored run's recorded decisions reopen as a source with the branch's assignment.
    const Assignment saved = session()->branch().assignment;
    QVERIFY(w_->stepperPage()->startFromRun(*branchRun));
    QCOMPARE(session()->source().kind, StepperSource::Kind::Recorded);
    QCOMPARE(session()->branch().assignment, saved);
    QCOMPARE(session()->branches().size(), size_t(1));
    // Replayed, every makespan on screen says whose and which it is: the graph (filled with the
    // replay's devices) names the replay, not the tuner's method; the stepper's final figure is
    // the stored run's simulated makespan, labelled so; the plan's is labelled planned.
    session()->setStep(session()->steps());
    QCoreApplication::processEvents();
    const QString graphHeader = w_->graphView()->header().subtitle;
    QVERIFY2(graphHeader.contains(QStringLiteral("stepping run %1").arg(*branchRun)),
             qPrintable(graphHeader));
    auto* stepper = w_->stepperPage()->widget();
    QCOMPARE(stepper->findChild<QLabel*>(QStringLiteral("finalMakespan"))->text(),
             formatDuration(info.figures.at("makespan_us")));
    bool simulatedCaption = false, plannedCaption = false;
    for (QLabel* l : stepper->findChildren<QLabel*>()) {
      simulatedCaption |= l->text() == QStringLiteral("simulated, final");
      plannedCaption |= l->text() == QStringLiteral("planned so far");
    }
    QVERIFY(simulatedCaption && plannedCaption);
    QVERIFY(w_->timelineView()->header().subtitle.contains(QStringLiteral("planned so far")));
  }

  // The shipped general policy steps through the demo graph without any training, and its greedy
  // episode places every node.
  void theShippedGeneralPolicyStepsWithoutTraining() {
    const QString general = shippedGeneralPolicyPath();
    QVERIFY(general.endsWith(QStringLiteral("policies/general.weights")));
    w_->stepperPage()->startFromPolicy(general);
    QVERIFY(w_->jobs()->waitIdle(120000));
    QCOMPARE(session()->source().kind, StepperSource::Kind::Policy);
    QCOMPARE(session()->steps(), w_->document()->graph()->nodeCount());
  }

  // The tuner's general policy while the stepper follows the tuner: with decode=greedy the
  // stepper steps through the tuner's own placement; with the default search, which has no one
  // sequence of decisions, through the greedy episode, and its label says so.
  void followsTheTunersGeneralPolicy() {
    auto* method = w_->findChild<QComboBox*>(QStringLiteral("method"));
    QVERIFY(method);
    const int i = method->findData(QStringLiteral("doppler"));
    QVERIFY(i >= 0);
    method->setCurrentIndex(i);
    QVERIFY(w_->jobs()->waitIdle(120000));
    QCOMPARE(w_->document()->snapshot()->settings.method, std::string("doppler"));
    QCOMPARE(session()->source().kind, StepperSource::Kind::Heuristic);
    QCOMPARE(session()->source().label, QStringLiteral("doppler greedy (search has no steps)"));
    QCOMPARE(session()->steps(), w_->document()->graph()->nodeCount());
    auto* decode = w_->findChild<QComboBox*>(QStringLiteral("param_decode"));
    QVERIFY(decode);
    decode->setCurrentIndex(decode->findText(QStringLiteral("greedy")));
    QVERIFY(w_->jobs()->waitIdle(120000));
    QVERIFY(w_->jobs()->waitIdle(120000));
    QCOMPARE(w_->document()->snapshot()->resolved_params.at("decode"), std::string("greedy"));
    QCOMPARE(session()->steps(), w_->document()->graph()->nodeCount());
    QCOMPARE(session()->branch().assignment, w_->document()->snapshot()->assignment);
  }

  // A policy trained by the CLI (imitation, a few episodes, recorded in the test's store), opened
  // from its stored training run: the checkpoint loads on the job runner, and the stepper's
  // greedy episode is `doppler eval`'s placement.
  void aStoredTrainingRunStepsThroughItsPolicy() {
    if (!train::torchModuleBuiltIn()) QSKIP("built without LibTorch (DOPPLER_TORCH=OFF)");
    const QString graph = dir_.filePath("current.json");
    QFile f(graph);
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(writeGraphJson(*w_->document()->graph())));
    f.close();
    const QString ckpt = dir_.filePath("il.pt");
    QProcess p;
    p.start(QStringLiteral(DOPPLER_CLI), {"train",
                                          "--graph",
                                          graph,
                                          "--devices",
                                          w_->document()->devicesSpec(),
                                          "--stage",
                                          "imitation",
                                          "--episodes",
                                          "8",
                                          "--out",
                                          ckpt,
                                          "--hidden",
                                          "16",
                                          "--mp-steps",
                                          "2",
                                          "--edge-hidden",
                                          "8",
                                          "--head-hidden",
                                          "16",
                                          "--device-hidden",
                                          "8",
                                          "--json",
                                          "--db",
                                          dir_.filePath("runs.sqlite")});
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const int64_t run = nlohmann::json::parse(p.readAllStandardOutput().toStdString())["run_id"];
    QVERIFY(w_->stepperPage()->startFromRun(run));
    QVERIFY(w_->jobs()->waitIdle(120000));
    QCOMPARE(session()->source().kind, StepperSource::Kind::Policy);
    QCOMPARE(session()->steps(), w_->document()->graph()->nodeCount());
    QCOMPARE(QString::fromStdString(session()->branch().trace->node_score),
             QStringLiteral("SEL probability"));
    const nlohmann::json eval = cli({"eval", "--policy", ckpt});
    QVERIFY(!eval.empty());
    const DataflowGraph& g = *w_->document()->graph();
    for (int v = 0; v < g.nodeCount(); ++v)
      QCOMPARE(session()->branch().assignment[v], eval["assignment"][g.node(v).id].get<int>());
    QCOMPARE(session()->branch().makespan_us, eval["makespan_us"].get<double>());
  }

  void presentationKeepsTheStepperBesideTheGraph() {
    w_->setPresentationMode(true);
    QVERIFY(w_->stepperPage()->dock()->isVisible());
    QVERIFY(w_->graphView()->isVisible());
    w_->setPresentationMode(false);
    QVERIFY(w_->stepperPage()->dock()->isVisible());
  }
};

DOPPLER_STUDIO_TEST_MAIN(StepperTest)

#include "stepper_test.moc"

// Run > Execute on CPU in the studio (offscreen): the current placement runs for real (LibTorch
// kernels when the build has them, else synthetic ones), the timeline shows the measured run with
// the simulated one as ghosts, the node details give both durations, and a new placement returns to
// the simulated view. No timing thresholds: the machine running the tests may be busy.
#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QMenu>
#include <QTextBrowser>
#include <QtTest>
#include <algorithm>

#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/execute_job.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/window/main_window.h"
#include "core/exec/cuda_backend.h"
#include "core/exec/torch_kernels.h"
#include "core/train/torch_module.h"
#include "tests/studio/studio_test_support.h"
#include "views/common/selection_state.h"
#include "views/common/shortcuts.h"
#include "views/timeline/timeline_view.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;

class ExecuteTest : public QObject {
  Q_OBJECT
  MainWindow* w_ = nullptr;

  template <typename T>
  T* find(const char* name) {
    T* found = w_->findChild<T*>(QString::fromLatin1(name));
    if (!found) qWarning() << "no object" << name;
    return found;
  }

  // Triggers Run > Execute on CPU and waits for the Execution slot's job.
  bool execute() {
    auto* action = find<QAction>("actionExecuteOnCpu");
    if (!action) return false;
    action->trigger();
    if (!w_->jobs()->waitIdle(120000)) return false;
    return w_->waitSettled(60000);
  }

  // Every node is in the measured timeline and starts after each of its producers finishes (a
  // node after the ones before it on its device, too).
  static void checkMeasured(const MeasuredRun& run) {
    const PlacementSnapshot& s = *run.snapshot;
    const Schedule& m = run.schedule;
    QCOMPARE(static_cast<int>(m.nodes.size()), s.graph->nodeCount());
    for (int node = 0; node < s.graph->nodeCount(); ++node) {
      QCOMPARE(m.nodes[node].node, node);
      QCOMPARE(m.nodes[node].device, s.assignment[node]);
      QVERIFY(m.nodes[node].finish_us >= m.nodes[node].start_us);
      QVERIFY(m.nodes[node].finish_us <= m.makespan_us);
    }
    for (const Edge& e : s.graph->edges())
      QVERIFY2(m.nodes[e.dst].start_us >= m.nodes[e.src].finish_us,
               qPrintable(QString::fromStdString(s.graph->node(e.dst).id)));
    for (int device = 0; device < s.devices->size(); ++device) {
      std::vector<NodeSpan> spans;
      for (const NodeSpan& span : m.nodes)
        if (span.device == device) spans.push_back(span);
      std::sort(spans.begin(), spans.end(),
                [](const NodeSpan& a, const NodeSpan& b) { return a.start_us < b.start_us; });
      for (size_t i = 1; i < spans.size(); ++i)
        QVERIFY(spans[i].start_us >= spans[i - 1].finish_us);
    }
  }

 private Q_SLOTS:
  void initTestCase() { QVERIFY((w_ = qtest::openSettledWindow())); }
  void cleanupTestCase() { delete w_; }

  // Run > Execute on GPU exists in builds with the CUDA backend; opening the menu asks the CUDA
  // runtime, and without a GPU the action is disabled with the reason in its text.
  void gpuExecutionIsOfferedWhereCudaIsBuilt() {
    auto* action = w_->findChild<QAction*>(QStringLiteral("actionExecuteOnGpu"));
    QCOMPARE(action != nullptr, exec::cudaBackendBuiltIn());
    if (!action) return;
    QMenu* menu = nullptr;
    for (QObject* o : action->associatedObjects())
      if (auto* m = qobject_cast<QMenu*>(o)) menu = m;
    QVERIFY(menu);
    Q_EMIT menu->aboutToShow();
    std::string why;
    const int gpus = exec::cudaDeviceCount(&why);
    QCOMPARE(action->isEnabled(), gpus > 0);
    if (gpus == 0) {
      QVERIFY2(action->text().contains(QString::fromStdString(why)), qPrintable(action->text()));
      return;
    }
    action->trigger();
    QVERIFY(w_->jobs()->waitIdle(120000));
    QVERIFY(w_->waitSettled(60000));
    const MeasuredRunPtr run = w_->executionPage()->measured();
    QVERIFY(run);
    QCOMPARE(QString::fromStdString(run->backend), QStringLiteral("cuda"));
    QVERIFY(run->outputs_match);
    checkMeasured(*run);
  }

  void onlyACalibratedDeviceSetRunsLibTorchKernels() {
    QVERIFY(!calibratedHere(DeviceSet::uniform(4)));
    DeviceSet fitted = DeviceSet::uniform(2);
    fitted.devices[1].ops["matmul"].tflops = 0.07;
    QVERIFY(calibratedHere(fitted));
  }

  void theShortcutTableHasCtrlE() {
    QCOMPARE(keysOf(Command::ExecuteOnCpu).value(0), QKeySequence(QStringLiteral("Ctrl+E")));
    QCOMPARE(find<QAction>("actionExecuteOnCpu")->shortcut(),
             QKeySequence(QStringLiteral("Ctrl+E")));
  }

  void executingTheDemoShowsTheMeasuredTimeline() {
    TimelineView* timeline = w_->timelineView();
    QVERIFY(!timeline->showsMeasured());
    const SnapshotPtr snapshot = w_->document()->snapshot();
    QVERIFY(execute());
    QVERIFY(timeline->showsMeasured());
    const MeasuredRunPtr run = w_->executionPage()->measured();
    QVERIFY(run);
    QCOMPARE(run->snapshot, snapshot);
    QCOMPARE(run->repeat(), kExecuteRepeat);
    QCOMPARE(run->devices, snapshot->devices->size());
    QVERIFY(run->outputs_match);
    QVERIFY(run->scale > 0);
    // LibTorch kernels where the build has them, the graph has op kinds and the device set was
    // fitted to this machine; synthetic kernels otherwise (the demo's preset GPUs).
    const bool torch = train::torchModuleBuiltIn() && exec::hasTorchOps(*snapshot->graph) &&
                       calibratedHere(*snapshot->devices);
    QCOMPARE(QString::fromStdString(run->backend),
             torch ? QStringLiteral("cpu-torch") : QStringLiteral("cpu-synthetic"));
    checkMeasured(*run);
    // The timeline draws the measured schedule, every node in it, the simulation as ghosts.
    const TimelineData* data = timeline->data();
    QVERIFY(data);
    for (int node = 0; node < snapshot->graph->nodeCount(); ++node) {
      QVERIFY(data->nodeLane[node] >= 0);
      const TimelineEvent& e = data->lanes[data->nodeLane[node]].events[data->nodeIndex[node]];
      QCOMPARE(e.start, run->schedule.nodes[node].start_us);
    }
    QCOMPARE(data->makespan, run->schedule.makespan_us);
    const ViewHeader header = timeline->header();
    QVERIFY(header.title.contains(QStringLiteral("measured")));
    // Where it ran, honestly: devices share cores when there are more devices than cores.
    QVERIFY(header.subtitle.contains(measuredWhere(*run)));
    QVERIFY(measuredWhere(*run).contains(QString::number(snapshot->devices->size())));
    QCOMPARE(measuredWhere(*run).contains(QStringLiteral("shared")),
             snapshot->devices->size() > run->cores);
    QVERIFY(header.subtitle.contains(QStringLiteral("median of 3")));
    QVERIFY(header.subtitle.contains(QStringLiteral("vs simulated")));
  }

  void theNodeDetailsGiveBothDurations() {
    QVERIFY(w_->executionPage()->measured());
    w_->selection()->setSelected(0);
    const QString text = find<QTextBrowser>("details")->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("Measured: ")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("simulated")));
    QVERIFY(text.contains(QStringLiteral("error")));
    w_->selection()->setSelected(-1);
  }

  void aTunerChangeReturnsToTheSimulatedView() {
    QVERIFY(w_->timelineView()->showsMeasured());
    auto* wComm = find<QDoubleSpinBox>("param_w_comm");
    QVERIFY(wComm);
    wComm->setValue(wComm->value() == 0.5 ? 0.25 : 0.5);
    QVERIFY(w_->waitSettled(60000));
    QVERIFY(!w_->timelineView()->showsMeasured());
    QVERIFY(!w_->executionPage()->measured());
    QVERIFY(!w_->timelineView()->header().title.contains(QStringLiteral("measured")));
    QCOMPARE(w_->timelineView()->data()->makespan, w_->document()->snapshot()->makespan());
  }

  void theSequenceDisciplineRunsThePlacementsOrder() {
    PlacementSettings settings = w_->document()->settings();
    settings.discipline = Discipline::Sequence;
    w_->document()->setSettings(settings);
    QVERIFY(w_->waitSettled(60000));
    QVERIFY(!w_->document()->snapshot()->execution_order.empty());
    QVERIFY(execute());
    const MeasuredRunPtr run = w_->executionPage()->measured();
    QVERIFY(run);
    checkMeasured(*run);
    // Under sequence each device runs its nodes in the placement's order.
    const PlacementSnapshot& s = *run->snapshot;
    std::vector<double> lastStart(s.devices->size(), -1);
    for (int node : s.execution_order) {
      const NodeSpan& span = run->schedule.nodes[node];
      QVERIFY(span.start_us >= lastStart[span.device]);
      lastStart[span.device] = span.start_us;
    }
  }
};

DOPPLER_STUDIO_TEST_MAIN(ExecuteTest)
#include "execute_test.moc"

// MainWindow::grabAll: the screenshots scripts/grab_views.sh saves (every view and the whole
// window on the demo, then with a selection, a range, a tuner change, the help overlay, the dark
// theme, presentation mode and a bad file; first start and presentation also at 1366x768 and
// 1920x1080).
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QUndoStack>
#include <algorithm>

#include "app/studio/first_start.h"
#include "app/studio/help_overlay.h"
#include "app/studio/job_runner.h"
#include "app/studio/main_window.h"
#include "app/studio/placement_compute.h"
#include "app/studio/presentation_mode.h"
#include "app/studio/stepper_session.h"
#include "app/studio/studio_document.h"
#include "app/studio/studio_toolbar.h"
#include "app/studio/training_controller.h"
#include "core/sim/critical_path.h"
#include "core/train/torch_module.h"
#include "views/common/image_export.h"
#include "views/common/selection_state.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/runs_panel.h"
#include "views/stepper/device_choice_model.h"
#include "views/timeline/timeline_view.h"
#include "views/training/training_dashboard.h"
#include "views/tuner/settings_history_chart.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

QStringList MainWindow::grabAll(const QString& dir) {
  QStringList files;
  QDir().mkpath(dir);
  // The temporary sessions and files below live until every grab is done: when the user's own
  // session could not be opened there is none to go back to, and the window stays on one of
  // them (later grabs record into it); removed earlier, its runs and checkpoints went to a
  // deleted file and a stray folder in /tmp.
  QTemporaryDir scratch;
  // Every grab waits for the job runner, then lets posted resizes and repaints through.
  auto settle = [this] {
    waitSettled(60000);
    QCoreApplication::processEvents();
  };
  auto save = [&](QWidget* w, const QString& name) {
    settle();
    const QString path = QDir(dir).filePath(name);
    // Opaque RGB at the highest compression: the smallest files for docs/screenshots.
    if (w->grab().toImage().convertToFormat(QImage::Format_RGB888).save(path, "PNG", 0))
      files << path;
  };
  // The window at a laptop's and a projector's size, then back: "NAME-1366x768.png", ...
  auto saveAtScreenSizes = [&](const QString& name) {
    const QSize before = size();
    for (const QSize s : {QSize(1366, 768), QSize(1920, 1080)}) {
      resize(s);
      settle();
      graphView_->fitAll();
      timelineView_->fit();
      save(this, QStringLiteral("%1-%2x%3.png").arg(name).arg(s.width()).arg(s.height()));
    }
    resize(before);
    settle();
  };
  waitSettled(120000);
  graphView_->fitAll();
  timelineView_->fit();
  save(this, QStringLiteral("window.png"));
  save(graphView_, QStringLiteral("graph.png"));
  save(timelineView_, QStringLiteral("timeline.png"));
  save(tunerDock_, QStringLiteral("tuner.png"));
  historyDock_->raise();

  // What a new user sees first (first_start.h), on a copy of the shipped demo session (the
  // user's session stays untouched); then the window as it was, for the grabs below.
  if (const QString demo = shippedDemoSession(); !demo.isEmpty()) {
    const QString copy = scratch.filePath(QStringLiteral("demo-session.sqlite"));
    const QString previous = sessionPath();
    const QByteArray state = saveState();
    if (QFile::copy(demo, copy) && openSession(copy) && showFirstStart()) {
      save(this, QStringLiteral("first-start.png"));
      saveAtScreenSizes(QStringLiteral("first-start"));
      restoreState(state);
      if (!previous.isEmpty()) openSession(previous);
      settle();
    }
  }

  // A selection in the middle of the critical path, a hovered neighbour and a dragged range.
  if (const views::SnapshotPtr s = document_->snapshot()) {
    const doppler::CriticalPath cp = doppler::criticalPath(*s->graph, s->sim.schedule);
    int v = cp.nodes.empty() ? 0 : cp.nodes[cp.nodes.size() / 2];
    // Prefer a node with a cross-device input so the flow arrows show.
    for (size_t i = cp.nodes.size() / 3; i < cp.nodes.size(); ++i) {
      bool cross = false;
      for (int e : s->graph->inEdges(cp.nodes[i]))
        cross = cross || s->assignment[s->graph->edge(e).src] != s->assignment[cp.nodes[i]];
      if (cross) {
        v = cp.nodes[i];
        break;
      }
    }
    selection_->setSelected(v);
    const auto& node = s->sim.schedule.nodes[v];
    timelineView_->setRange(std::make_pair(std::max(0.0, node.start_us - s->makespan() * 0.12),
                                           node.finish_us + s->makespan() * 0.12));
    save(this, QStringLiteral("window-selection.png"));
    save(graphView_, QStringLiteral("graph-selection.png"));
    save(timelineView_, QStringLiteral("timeline-selection.png"));
    // The same node at 100 %: labels, the selection ring and its highlighted edges.
    graphView_->zoomBy(1.0 / graphView_->zoom());
    graphView_->centerOn(graphView_->graphScene()->nodeRect(graphView_->shownNodeOf(v)).center());
    save(graphView_, QStringLiteral("graph-zoomed.png"));
    graphView_->fitAll();
    devicesDock_->raise();
    save(devicesDock_, QStringLiteral("devices-range.png"));
    detailsDock_->raise();
    save(detailsDock_, QStringLiteral("details.png"));
    // Large graphs: the group holding the selected node expanded in place, framed.
    if (const views::DisplayGraphPtr d = graphView_->display();
        d && d->coarse() && d->isGroup(graphView_->shownNodeOf(v))) {
      graphView_->expandGroup(graphView_->shownNodeOf(v));
      save(graphView_, QStringLiteral("graph-expanded.png"));
      save(this, QStringLiteral("window-expanded.png"));
      graphView_->collapseAll();
      settle();
      graphView_->fitAll();
    }
    timelineView_->setRange(std::nullopt);
    selection_->setSelected(-1);
  }

  // The placement executed for real (Run > Execute on CPU): the measured timeline with the
  // simulated one as ghosts, and the longest node's simulated and measured durations in the
  // details. The tuner change below returns the timeline to the simulation.
  executeOnCpu();
  settle();
  if (const views::MeasuredRunPtr run = measured()) {
    const auto& nodes = run->snapshot->sim.schedule.nodes;
    const auto longest = std::max_element(nodes.begin(), nodes.end(), [](auto& a, auto& b) {
      return a.finish_us - a.start_us < b.finish_us - b.start_us;
    });
    selection_->setSelected(static_cast<int>(longest - nodes.begin()));
    detailsDock_->raise();
    QCoreApplication::processEvents();
    details_->verticalScrollBar()->setValue(details_->verticalScrollBar()->maximum());
    save(this, QStringLiteral("execute.png"));
    save(timelineView_, QStringLiteral("timeline-execute.png"));
    selection_->setSelected(-1);
  }

  // A tuner change, as a user would make it: communication left out of the priorities.
  if (auto* wComm = tuner_->findChild<QDoubleSpinBox*>(QStringLiteral("param_w_comm"))) {
    wComm->setValue(0);
    waitSettled(60000);
    save(this, QStringLiteral("window-tuned.png"));
    save(tunerDock_, QStringLiteral("tuner-change.png"));
    save(graphView_, QStringLiteral("graph-moved.png"));
    historyDock_->raise();
    save(historyDock_, QStringLiteral("history.png"));
    detailsDock_->raise();
  }

  // The shipped general policy chosen in the tuner (builds with LibTorch), its placement against
  // the tuned heuristic's; then the tuned heuristic again for the grabs below.
  if (auto* method = tuner_->findChild<QComboBox*>(QStringLiteral("method"));
      method && tuner_->hasMethod(QString::fromLatin1(kGeneralPolicyMethod))) {
    const views::PlacementSettings tuned = tuner_->settings();
    method->setCurrentIndex(method->findData(QString::fromLatin1(kGeneralPolicyMethod)));
    waitSettled(120000);
    save(tunerDock_, QStringLiteral("tuner-general.png"));
    tuner_->setSettings(tuned);
    toolbar_->showMethod(QString::fromStdString(tuned.method));
    document_->setSettings(tuned);
    settle();
  }

  // The other layout direction (Ctrl+L), then back to the one the pane's shape picks.
  graphView_->flipLayoutDirection();
  save(graphView_, QStringLiteral("graph-flipped.png"));
  graphView_->setLayoutDirectionChoice(std::nullopt);
  settle();  // the relayout: an export refuses while the graph has no layout

  // Clean exports (what Copy Image and File > Export produce).
  for (views::ImageSource* source : {static_cast<views::ImageSource*>(graphView_),
                                     static_cast<views::ImageSource*>(timelineView_)}) {
    const QString path = QDir(dir).filePath(source->imageName() + QStringLiteral("-export.png"));
    if (const QString error = views::savePng(*source, path); error.isEmpty())
      files << path;
    else
      qWarning("%s: %s", qPrintable(path), qPrintable(error));
  }

  help_->toggle();
  save(this, QStringLiteral("help.png"));
  help_->toggle();

  setDarkTheme(true);
  save(this, QStringLiteral("window-dark.png"));
  setDarkTheme(false);

  setPresentationMode(true);
  settle();
  save(this, QStringLiteral("presentation.png"));
  saveAtScreenSizes(QStringLiteral("presentation"));
  presentation_->presentOtherView();  // Tab: the timeline
  saveAtScreenSizes(QStringLiteral("presentation-timeline"));
  setPresentationMode(false);
  settle();

  // The decision stepper: at the first step with a real choice a third of the way in, then with
  // another ready node chosen there; and in presentation mode beside the graph.
  showStepper();
  settle();
  if (stepper_->active()) {
    const DecisionTrace& trace = *stepper_->branch().trace;
    int k = stepper_->steps() / 3;
    while (k + 1 < stepper_->steps() && trace.steps[k].ready.size() < 2) ++k;
    stepper_->setStep(k);
    save(this, QStringLiteral("window-stepper.png"));
    save(stepperDock_, QStringLiteral("stepper.png"));
    // The join look-ahead at work: the first step from there on where a device other than the
    // chosen one would make a successor wait for a transfer (its Join highlighted).
    for (int j = k; j < stepper_->steps(); ++j) {
      const DecisionStep& d = trace.steps[j];
      const bool waits = std::any_of(d.devices.begin(), d.devices.end(), [&](const auto& x) {
        return x.device != d.device &&
               views::DeviceChoiceModel::joinWaits(x, views::DeviceChoiceModel::kVisibleWait);
      });
      if (!waits) continue;
      stepper_->setStep(j);
      save(stepperDock_, QStringLiteral("stepper-join.png"));
      stepper_->setStep(k);
      break;
    }
    // The override shown: the first other ready node (best score first) that changes the final
    // makespan, so the picture has a difference to show; else another device.
    const DecisionStep s = trace.steps[k];
    std::vector<CandidateScore> ranked = s.ready;
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
      return trace.node_higher_better ? a.score > b.score : a.score < b.score;
    });
    const double before = stepper_->branch().makespan_us;
    QString error;
    bool changed = false;
    // At most a few tries: each replays the rest of the episode (seconds on 20,000 nodes).
    if (ranked.size() > 6) ranked.resize(6);
    for (const CandidateScore& c : ranked) {
      if (c.node == s.node || !stepper_->overrideNode(c.node, &error)) continue;
      if (stepper_->branch().makespan_us != before) {
        changed = true;
        break;
      }
      stepper_->undoStack()->undo();
    }
    if (!changed)
      stepper_->overrideDevice((s.device + 1) % stepper_->inputs().devices->size(), &error);
    save(stepperDock_, QStringLiteral("stepper-override.png"));
    save(this, QStringLiteral("window-stepper-override.png"));
    setPresentationMode(true);
    settle();
    save(this, QStringLiteral("presentation-stepper.png"));
    setPresentationMode(false);
    settle();
  }
  stepperDock_->hide();

  // Training from the dashboard: a short imitation run (where LibTorch is built in), its charts
  // live and then finished; its best placement in the stepper.
  if (train::torchModuleBuiltIn()) {
    showTraining();
    dashboard_->setStage(train::Stage::Imitation);
    dashboard_->setValues({{"episodes", "60"}, {"eval-every", "5"}});
    startTraining();
    jobs_->waitIdle(600000);
    settle();
    save(trainingDock_, QStringLiteral("training.png"));
    save(this, QStringLiteral("window-training.png"));
    // Stage III from that run's policy: its expectation, then a short run on real executions.
    const QString policy = training_->checkpoint();
    dashboard_->setStage(train::Stage::Real);
    dashboard_->setCheckpointFile(policy);
    updateTrainingExpectation();
    jobs_->waitIdle(600000);
    settle();
    dashboard_->setValues(
        {{"episodes", "24"}, {"eval-every", "4"}, {"repeat", "1"}, {"target-ms", "5"}});
    startTraining();
    jobs_->waitIdle(600000);
    settle();
    save(trainingDock_, QStringLiteral("training-real.png"));
    trainingDock_->hide();
  }

  // The runs dock and a comparison, on a temporary session (the user's stays untouched): the
  // graph placed by a heuristic and two seeded searches, the searches compared with it.
  {
    const QString previous = sessionPath();
    if (openSession(scratch.filePath(QStringLiteral("grab-session.sqlite")))) {
      const std::vector<int64_t> ids = recordSampleRuns();
      showRuns();
      resizeDocks({runsDock_}, {260}, Qt::Vertical);
      runsPanel_->selectRuns({ids.begin(), ids.end()});
      save(runsDock_, QStringLiteral("runs.png"));
      compareRuns({ids.begin(), ids.end()});
      save(runCompare_, QStringLiteral("runs-compare.png"));
      runCompare_->hide();
      graphView_->graphScene()->setMarked({});
      runsDock_->hide();
      if (!previous.isEmpty()) openSession(previous);
    }
  }

  // The fleet workbench after a small comparison (fleet-map.png, fleet-compare.png).
  files << grabFleet(dir);

  // A bad file: the message names the file and the problem; the graph stays open.
  const QString bad = scratch.filePath(QStringLiteral("broken-graph.json"));
  QFile f(bad);
  if (f.open(QIODevice::WriteOnly)) {
    f.write(R"({"format": "dataflow-graph/1", "nodes": [{"id": "a", "flops": -5}], "edges": []})");
    f.close();
  }
  openFile(bad);
  save(this, QStringLiteral("window-bad-file.png"));
  return files;
}

}  // namespace doppler::studio

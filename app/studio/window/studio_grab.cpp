// The studio's grabs (studio_grab.h): the screenshots scripts/grab_views.sh saves (every view and
// the whole window on the demo, then with a selection, a range, a tuner change, the help overlay,
// the dark theme, presentation mode and a bad file; first start and presentation also at 1366x768
// and 1920x1080).
#include "app/studio/window/studio_grab.h"

#include <QApplication>
#include <QCheckBox>
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

#include "app/studio/document/placement_compute.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/execution_page.h"
#include "app/studio/panels/first_start.h"
#include "app/studio/panels/first_start_page.h"
#include "app/studio/panels/fleet_page.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/panels/stepper_page.h"
#include "app/studio/panels/stepper_session.h"
#include "app/studio/panels/training_controller.h"
#include "app/studio/panels/training_page.h"
#include "app/studio/window/help_overlay.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/presentation_mode.h"
#include "app/studio/window/studio_toolbar.h"
#include "core/sim/critical_path.h"
#include "core/train/doppler_method.h"
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

QStringList grabViews(MainWindow& w, const QString& dir) {
  views::GraphView* graphView = w.graphView();
  views::TimelineView* timelineView = w.timelineView();
  views::SelectionState* selection = w.selection();
  StudioDocument* document = w.document();
  PlacementDocks* docks = w.docks();
  views::TunerWidget* tuner = docks->tuner();
  StepperSession* stepper = w.stepperPage()->session();
  views::TrainingDashboard* dashboard = w.trainingPage()->dashboard();
  RunsPage* runs = w.runsPage();
  QStringList files;
  QDir().mkpath(dir);
  // The temporary sessions and files below live until every grab is done: when the user's own
  // session could not be opened there is none to go back to, and the window stays on one of
  // them (later grabs record into it); removed earlier, its runs and checkpoints went to a
  // deleted file and a stray folder in /tmp.
  QTemporaryDir scratch;
  // Every grab waits for the job runner, then lets posted resizes and repaints through.
  auto settle = [&w] {
    w.waitSettled(60000);
    QCoreApplication::processEvents();
    // Outside an event loop, processEvents() leaves deleteLater()s pending: a chart's removed
    // axes would still be drawn under the new ones.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
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
    const QSize before = w.size();
    for (const QSize s : {QSize(1366, 768), QSize(1920, 1080)}) {
      w.resize(s);
      settle();
      graphView->fitAll();
      timelineView->fit();
      save(&w, QStringLiteral("%1-%2x%3.png").arg(name).arg(s.width()).arg(s.height()));
    }
    w.resize(before);
    settle();
  };
  w.waitSettled(120000);
  graphView->fitAll();
  timelineView->fit();
  save(&w, QStringLiteral("window.png"));
  save(graphView, QStringLiteral("graph.png"));
  save(timelineView, QStringLiteral("timeline.png"));
  save(docks->tunerDock(), QStringLiteral("tuner.png"));
  docks->historyDock()->raise();

  // What a new user sees first (first_start.h), on a copy of the shipped demo session (the
  // user's session stays untouched); then the window as it was, for the grabs below.
  if (const QString demo = shippedDemoSession(); !demo.isEmpty()) {
    const QString copy = scratch.filePath(QStringLiteral("demo-session.sqlite"));
    const QString previous = w.sessionPath();
    const QByteArray state = w.saveState();
    if (QFile::copy(demo, copy) && runs->openSession(copy) && showFirstStart(w)) {
      save(&w, QStringLiteral("first-start.png"));
      saveAtScreenSizes(QStringLiteral("first-start"));
      w.restoreState(state);
      if (!previous.isEmpty()) runs->openSession(previous);
      settle();
    }
  }

  // A selection in the middle of the critical path, a hovered neighbour and a dragged range.
  if (const views::SnapshotPtr s = document->snapshot()) {
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
    selection->setSelected(v);
    const auto& node = s->sim.schedule.nodes[v];
    timelineView->setRange(std::make_pair(std::max(0.0, node.start_us - s->makespan() * 0.12),
                                          node.finish_us + s->makespan() * 0.12));
    save(&w, QStringLiteral("window-selection.png"));
    save(graphView, QStringLiteral("graph-selection.png"));
    save(timelineView, QStringLiteral("timeline-selection.png"));
    // The same node at 100 %: labels, the selection ring and its highlighted edges.
    graphView->zoomBy(1.0 / graphView->zoom());
    graphView->centerOn(graphView->graphScene()->nodeRect(graphView->shownNodeOf(v)).center());
    save(graphView, QStringLiteral("graph-zoomed.png"));
    graphView->fitAll();
    docks->devicesDock()->raise();
    save(docks->devicesDock(), QStringLiteral("devices-range.png"));
    docks->detailsDock()->raise();
    save(docks->detailsDock(), QStringLiteral("details.png"));
    // Large graphs: the group holding the selected node expanded in place, framed.
    if (const views::DisplayGraphPtr d = graphView->display();
        d && d->coarse() && d->isGroup(graphView->shownNodeOf(v))) {
      graphView->expandGroup(graphView->shownNodeOf(v));
      save(graphView, QStringLiteral("graph-expanded.png"));
      save(&w, QStringLiteral("window-expanded.png"));
      graphView->collapseAll();
      settle();
      graphView->fitAll();
    }
    timelineView->setRange(std::nullopt);
    selection->setSelected(-1);
  }

  // The placement executed for real (Run > Execute on CPU): the measured timeline with the
  // simulated one as ghosts, and the longest node's simulated and measured durations in the
  // details. The tuner change below returns the timeline to the simulation.
  w.executionPage()->executeOnCpu();
  settle();
  if (const views::MeasuredRunPtr run = w.executionPage()->measured()) {
    const auto& nodes = run->snapshot->sim.schedule.nodes;
    const auto longest = std::max_element(nodes.begin(), nodes.end(), [](auto& a, auto& b) {
      return a.finish_us - a.start_us < b.finish_us - b.start_us;
    });
    selection->setSelected(static_cast<int>(longest - nodes.begin()));
    docks->detailsDock()->raise();
    QCoreApplication::processEvents();
    docks->details()->verticalScrollBar()->setValue(
        docks->details()->verticalScrollBar()->maximum());
    save(&w, QStringLiteral("execute.png"));
    save(timelineView, QStringLiteral("timeline-execute.png"));
    selection->setSelected(-1);
  }

  // A tuner change, as a user would make it: communication left out of the priorities.
  if (auto* wComm = tuner->findChild<QDoubleSpinBox*>(QStringLiteral("param_w_comm"))) {
    wComm->setValue(0);
    w.waitSettled(60000);
    save(&w, QStringLiteral("window-tuned.png"));
    save(docks->tunerDock(), QStringLiteral("tuner-change.png"));
    save(graphView, QStringLiteral("graph-moved.png"));
    docks->historyDock()->raise();
    save(docks->historyDock(), QStringLiteral("history.png"));
    docks->detailsDock()->raise();
  }

  // The shipped general policy chosen in the tuner (builds with LibTorch), its placement against
  // the tuned heuristic's; then the tuned heuristic again for the grabs below.
  if (auto* method = tuner->findChild<QComboBox*>(QStringLiteral("method"));
      method && tuner->hasMethod(QString::fromLatin1(train::kDopplerMethod))) {
    const views::PlacementSettings tuned = tuner->settings();
    method->setCurrentIndex(method->findData(QString::fromLatin1(train::kDopplerMethod)));
    w.waitSettled(120000);
    save(docks->tunerDock(), QStringLiteral("tuner-general.png"));
    tuner->setSettings(tuned);
    w.toolbar()->showMethod(QString::fromStdString(tuned.method));
    document->setSettings(tuned);
    settle();
  }

  // The other layout direction (Ctrl+L), then back to the one the pane's shape picks.
  graphView->flipLayoutDirection();
  save(graphView, QStringLiteral("graph-flipped.png"));
  graphView->setLayoutDirectionChoice(std::nullopt);
  settle();  // the relayout: an export refuses while the graph has no layout

  // Clean exports (what Copy Image and File > Export produce).
  for (views::ImageSource* source : {static_cast<views::ImageSource*>(graphView),
                                     static_cast<views::ImageSource*>(timelineView)}) {
    const QString path = QDir(dir).filePath(source->imageName() + QStringLiteral("-export.png"));
    if (const QString error = views::savePng(*source, path); error.isEmpty())
      files << path;
    else
      qWarning("%s: %s", qPrintable(path), qPrintable(error));
  }

  w.helpOverlay()->toggle();
  save(&w, QStringLiteral("help.png"));
  w.helpOverlay()->toggle();

  w.setDarkTheme(true);
  save(&w, QStringLiteral("window-dark.png"));
  w.setDarkTheme(false);

  w.setPresentationMode(true);
  settle();
  save(&w, QStringLiteral("presentation.png"));
  saveAtScreenSizes(QStringLiteral("presentation"));
  w.presentation()->presentOtherView();  // Tab: the timeline
  saveAtScreenSizes(QStringLiteral("presentation-timeline"));
  w.setPresentationMode(false);
  settle();

  // The decision stepper: at the first step with a real choice a third of the way in, then with
  // another ready node chosen there; and in presentation mode beside the graph.
  w.stepperPage()->show();
  settle();
  if (stepper->active()) {
    const DecisionTrace& trace = *stepper->branch().trace;
    int k = stepper->steps() / 3;
    while (k + 1 < stepper->steps() && trace.steps[k].ready.size() < 2) ++k;
    stepper->setStep(k);
    save(&w, QStringLiteral("window-stepper.png"));
    save(w.stepperPage()->dock(), QStringLiteral("stepper.png"));
    // The join look-ahead at work: the first step from there on where a device other than the
    // chosen one would make a successor wait for a transfer (its Join highlighted).
    for (int j = k; j < stepper->steps(); ++j) {
      const DecisionStep& d = trace.steps[j];
      const bool waits = std::any_of(d.devices.begin(), d.devices.end(), [&](const auto& x) {
        return x.device != d.device &&
               views::DeviceChoiceModel::joinWaits(x, views::DeviceChoiceModel::kVisibleWait);
      });
      if (!waits) continue;
      stepper->setStep(j);
      save(w.stepperPage()->dock(), QStringLiteral("stepper-join.png"));
      stepper->setStep(k);
      break;
    }
    // The override shown: the first other ready node (best score first) that changes the final
    // makespan, so the picture has a difference to show; else another device.
    const DecisionStep s = trace.steps[k];
    std::vector<CandidateScore> ranked = s.ready;
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
      return trace.node_higher_better ? a.score > b.score : a.score < b.score;
    });
    const double before = stepper->branch().makespan_us;
    QString error;
    bool changed = false;
    // At most a few tries: each replays the rest of the episode (seconds on 20,000 nodes).
    if (ranked.size() > 6) ranked.resize(6);
    for (const CandidateScore& c : ranked) {
      if (c.node == s.node || !stepper->overrideNode(c.node, &error)) continue;
      if (stepper->branch().makespan_us != before) {
        changed = true;
        break;
      }
      stepper->undoStack()->undo();
    }
    if (!changed)
      stepper->overrideDevice((s.device + 1) % stepper->inputs().devices->size(), &error);
    save(w.stepperPage()->dock(), QStringLiteral("stepper-override.png"));
    save(&w, QStringLiteral("window-stepper-override.png"));
    w.setPresentationMode(true);
    settle();
    save(&w, QStringLiteral("presentation-stepper.png"));
    w.setPresentationMode(false);
    settle();
  }
  w.stepperPage()->dock()->hide();

  // Training from the dashboard: a short imitation run (where LibTorch is built in), its charts
  // live and then finished; its best placement in the stepper.
  if (train::torchModuleBuiltIn()) {
    w.trainingPage()->show();
    dashboard->setStage(train::Stage::Imitation);
    dashboard->setValues({{"episodes", "60"}, {"eval-every", "5"}});
    w.trainingPage()->startTraining();
    w.jobs()->waitIdle(600000);
    settle();
    save(w.trainingPage()->dock(), QStringLiteral("training.png"));
    save(&w, QStringLiteral("window-training.png"));
    // Its best episode replayed in the stepper (a recorded order: no scores), mid-way and at
    // the end, where every makespan on screen must be the same placement's or say whose it is.
    if (dashboard->bestPlacementAvailable()) {
      Q_EMIT dashboard->openBestInStepperRequested();
      settle();
      stepper->setStep(stepper->steps() / 2);
      save(&w, QStringLiteral("window-stepper-replay.png"));
      stepper->setStep(stepper->steps());
      save(&w, QStringLiteral("window-stepper-replay-end.png"));
      w.stepperPage()->dock()->hide();
    }
    // Stage III from that run's policy: its expectation, then a short run on real executions.
    const QString policy = w.trainingPage()->controller()->checkpoint();
    dashboard->setStage(train::Stage::Real);
    dashboard->setCheckpointFile(policy);
    Q_EMIT dashboard->settingsChanged();
    w.jobs()->waitIdle(600000);
    settle();
    dashboard->setValues(
        {{"episodes", "24"}, {"eval-every", "4"}, {"repeat", "1"}, {"target-ms", "5"}});
    w.trainingPage()->startTraining();
    w.jobs()->waitIdle(600000);
    settle();
    save(w.trainingPage()->dock(), QStringLiteral("training-real.png"));
    w.trainingPage()->dock()->hide();
  }

  // The runs dock and a comparison, on a temporary session (the user's stays untouched): the
  // graph placed by a heuristic and two seeded searches, the searches compared with it.
  {
    const QString previous = w.sessionPath();
    if (runs->openSession(scratch.filePath(QStringLiteral("grab-session.sqlite")))) {
      const std::vector<int64_t> ids = runs->recordSampleRuns();
      runs->show();
      w.resizeDocks({runs->dock()}, {260}, Qt::Vertical);
      runs->panel()->selectRuns({ids.begin(), ids.end()});
      save(runs->dock(), QStringLiteral("runs.png"));
      runs->compareRuns({ids.begin(), ids.end()});
      save(runs->compareView(), QStringLiteral("runs-compare.png"));
      // As a reader of a noisy series sets it: smoothed, the raw curves faint beneath.
      runs->compareView()->setSmoothing(0.6);
      save(runs->compareView(), QStringLiteral("runs-compare-smoothed.png"));
      runs->compareView()->setSmoothing(0);
      runs->compareView()->hide();
      graphView->graphScene()->setMarked({});
      runs->dock()->hide();
      if (!previous.isEmpty()) runs->openSession(previous);
    }
  }

  // The fleet workbench after a small comparison (fleet-map.png, fleet-compare.png).
  files << w.fleetPage()->grab(dir);

  // A bad file: the message names the file and the problem; the graph stays open.
  const QString bad = scratch.filePath(QStringLiteral("broken-graph.json"));
  QFile f(bad);
  if (f.open(QIODevice::WriteOnly)) {
    f.write(R"({"format": "dataflow-graph/1", "nodes": [{"id": "a", "flops": -5}], "edges": []})");
    f.close();
  }
  w.openFile(bad);
  save(&w, QStringLiteral("window-bad-file.png"));
  return files;
}

}  // namespace doppler::studio

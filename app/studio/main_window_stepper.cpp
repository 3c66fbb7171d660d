// MainWindow, the decision stepper part: its dock, where its decisions come from (the tuner's
// heuristic, a policy checkpoint, a stored run), overrides from the dock and the graph, undo and
// redo, and saving a branch as a run. The model is StepperSession; the dock is
// views::StepperWidget; the graph view and the timeline draw the session's step overlay while the
// dock is open.
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QScrollArea>
#include <QStatusBar>
#include <QUndoStack>

#include "app/studio/job_runner.h"
#include "app/studio/main_window.h"
#include "app/studio/placement_compute.h"
#include "app/studio/stepper_session.h"
#include "app/studio/studio_document.h"
#include "core/fleet/world/topology.h"
#include "core/train/loaded_policy.h"
#include "core/train/torch_module.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "views/common/shortcuts.h"
#include "views/graph/graph_view.h"
#include "views/stepper/stepper_widget.h"
#include "views/timeline/timeline_view.h"

namespace doppler::studio {

using namespace doppler::views;

void MainWindow::buildStepper() {
  stepper_ = new StepperSession(this);
  stepperWidget_ = new StepperWidget;
  stepperWidget_->setObjectName(QStringLiteral("stepper"));
  stepperDock_ = new QDockWidget(tr("Decision stepper"), this);
  stepperDock_->setObjectName(QStringLiteral("stepperDock"));
  // In a scroll area: the dock may be shorter than the stepper's tables want (a laptop).
  auto* stepperScroll = new QScrollArea;
  stepperScroll->setWidget(stepperWidget_);
  stepperScroll->setWidgetResizable(true);
  stepperScroll->setFrameShape(QFrame::NoFrame);
  stepperDock_->setWidget(stepperScroll);
  // A tab beside the tuner (resetLayout): stepping and tuning are two ways of asking why a
  // placement came out as it did, and the stepper needs the column's height.
  stepperDock_->hide();
  stepperWidget_->clear(
      tr("Open the stepper from View ▸ Decision Stepper to step through how "
         "the placement was decided."));

  connect(stepper_, &StepperSession::changed, this, &MainWindow::applyStepper);
  // Overrides and branch switches undo and redo from the Edit menu (Ctrl+Z, Ctrl+Shift+Z).
  editMenu_->addSeparator();
  QAction* undo = stepper_->undoStack()->createUndoAction(this, tr("&Undo Stepper Change"));
  undo->setShortcuts(keysOf(Command::StepUndo));
  QAction* redo = stepper_->undoStack()->createRedoAction(this, tr("&Redo Stepper Change"));
  redo->setShortcuts(keysOf(Command::StepRedo));
  editMenu_->addAction(undo);
  editMenu_->addAction(redo);
  connect(stepperDock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible && !stepper_->active()) startStepperFromTuner();
    // The critical path's outlines are the original placement's: while stepping they would mark
    // nodes the branch may not share, so they rest until the stepper closes.
    if (visible && graphView_->criticalPathVisible()) {
      criticalPathBeforeStepper_ = true;
      graphView_->setCriticalPathVisible(false);
    } else if (!visible && criticalPathBeforeStepper_) {
      criticalPathBeforeStepper_ = false;
      graphView_->setCriticalPathVisible(true);
    }
    applyStepper();
  });
  connect(stepperWidget_, &StepperWidget::stepRequested, stepper_, &StepperSession::setStep);
  connect(stepperWidget_, &StepperWidget::nodeOverrideRequested, this, [this](int node) {
    QString error;
    if (!stepper_->overrideNode(node, &error)) showError(error);
  });
  connect(stepperWidget_, &StepperWidget::deviceOverrideRequested, this, [this](int device) {
    QString error;
    if (!stepper_->overrideDevice(device, &error)) showError(error);
  });
  connect(graphView_, &GraphView::stepNodeClicked, this, [this](int node) {
    if (!stepperDock_->isVisible() || !stepper_->active()) return;
    QString error;
    if (!stepper_->overrideNode(node, &error)) showError(error);
  });
  connect(stepperWidget_, &StepperWidget::branchRequested, stepper_, &StepperSession::switchBranch);
  connect(stepperWidget_, &StepperWidget::saveBranchRequested, this,
          &MainWindow::saveStepperBranch);
  connect(stepperWidget_, &StepperWidget::sourceRequested, this, &MainWindow::chooseStepperSource);
  // A new graph or device set makes the decisions meaningless; the tuner's settings only restart
  // a stepper that follows them and has no branches of the user's to lose.
  connect(document_, &StudioDocument::snapshotChanged, this, [this] {
    if (!stepperDock_->isVisible()) {
      if (stepper_->active() && stepper_->inputs().graph != document_->graph()) stepper_->clear();
      return;
    }
    const bool newInputs = !stepper_->active() || stepper_->inputs().graph != document_->graph() ||
                           stepper_->inputs().devices != document_->devices();
    const bool followsTuner =
        stepper_->active() && stepper_->source().kind == StepperSession::SourceKind::Heuristic &&
        stepper_->branches().size() == 1 && !(stepper_->source().settings == document_->settings());
    if (newInputs || followsTuner) startStepperFromTuner();
  });
}

void MainWindow::showStepper() {
  stepperDock_->show();
  stepperDock_->raise();
  if (!stepper_->active()) startStepperFromTuner();
}

bool MainWindow::startStepper(StepperSession::Source source) {
  const SnapshotPtr s = document_->snapshot();
  if (!s) return false;
  PlacementInputs in{s->graph, s->devices, s->costs, s->devices_spec};
  QString error;
  if (!stepper_->start(std::move(in), std::move(source), &error)) {
    stepperWidget_->clear(error);
    showError(error);
    return false;
  }
  return true;
}

void MainWindow::startStepperFromTuner() {
  StepperSession::Source source;
  source.settings = document_->settings();
  // A search or a one-shot baseline has no decisions to step through: the critical-path teacher
  // with the same cost settings stands in, and the dock says so.
  const std::string asked = source.settings.method;
  // The tuner's general policy (not a registry method): the stepper follows its greedy episode.
  if (asked == kGeneralPolicyMethod) {
    if (!document_->generalPolicy().isEmpty()) startStepperFromPolicy(document_->generalPolicy());
    return;
  }
  if (!findMethod(asked).sequential()) {
    source.settings.method = "critical-path";
    source.settings.params.clear();
    source.label =
        tr("critical-path (%1 does not place node by node)").arg(QString::fromStdString(asked));
  } else {
    source.label = tr("%1 (tuner settings)").arg(QString::fromStdString(asked));
  }
  startStepper(std::move(source));
}

void MainWindow::applyStepper() {
  const bool on = stepperDock_->isVisible() && stepper_->active();
  if (stepper_->active()) stepperWidget_->setContent(stepper_->content());
  graphView_->setStepOverlay(on ? stepper_->overlay() : nullptr);
  timelineView_->setStepOverlay(on ? stepper_->overlay() : nullptr);
}

void MainWindow::chooseStepperSource() {
  QMenu menu(this);
  const std::string method = document_->settings().method;
  menu.addAction(tr("Tuner's heuristic (%1)").arg(QString::fromStdString(method)), this,
                 &MainWindow::startStepperFromTuner);
  for (const char* m : {"critical-path", "heft", "cpop", "etf"}) {
    if (m == method) continue;
    menu.addAction(tr("%1 with the tuner's cost settings").arg(QString::fromLatin1(m)), this,
                   [this, m] {
                     StepperSession::Source source;
                     source.settings = document_->settings();
                     source.settings.method = m;
                     source.settings.params.clear();
                     source.label = QString::fromLatin1(m);
                     startStepper(std::move(source));
                   });
  }
  menu.addSeparator();
  // The shipped general policy places any graph without training (builds with LibTorch).
  const QString general = shippedGeneralPolicyPath();
  if (!general.isEmpty())
    menu.addAction(tr("Shipped General Policy"), this,
                   [this, general] { startStepperFromPolicy(general); });
  menu.addAction(tr("Policy Checkpoint…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a policy checkpoint"), {}, tr("Policy checkpoints (*.pt);;All files (*)"));
    if (!path.isEmpty()) startStepperFromPolicy(path);
  });
  QMenu* runs = menu.addMenu(tr("Stored Run"));
  fillStoredRunsMenu(runs);
  menu.exec(QCursor::pos());
}

void MainWindow::fillStoredRunsMenu(QMenu* menu) {
  const SnapshotPtr s = document_->snapshot();
  try {
    if (!s) throw std::runtime_error("no graph is open");
    sessions::RunStore store(sessionPath().toStdString());
    sessions::RunFilter filter;
    filter.graph_id = store.putGraph(*s->graph);
    filter.limit = 20;
    int shown = 0;
    const auto runs = sessions::listRuns(store, filter);
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      if (it->device_count != s->devices->size()) continue;
      const auto ms = it->figures.find("makespan_us");
      const QString text =
          tr("Run %1: %2 %3%4")
              .arg(it->id)
              .arg(QString::fromStdString(it->kind), QString::fromStdString(it->method))
              .arg(ms == it->figures.end() ? QString() : tr(", %1 µs").arg(ms->second, 0, 'f', 0));
      menu->addAction(text, this, [this, id = it->id] { startStepperFromRun(id); });
      ++shown;
    }
    if (shown == 0) menu->addAction(tr("No stored run of this graph"))->setEnabled(false);
  } catch (const std::exception& e) {
    menu->addAction(tr("Run store unavailable: %1").arg(QString::fromUtf8(e.what())))
        ->setEnabled(false);
  }
}

bool MainWindow::startStepperFromRun(int64_t run) {
  // A training run steps through its policy: the newest checkpoint that is still a file (or a
  // blob in the store, written out for LibTorch to read).
  try {
    sessions::RunStore store(sessionPath().toStdString());
    const sessions::RunInfo info = sessions::getRun(store, run);
    if (info.kind == "train") {
      const auto checkpoints = sessions::listCheckpoints(store, run);
      for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
        if (!it->path.empty() && QFileInfo::exists(QString::fromStdString(it->path))) {
          startStepperFromPolicy(QString::fromStdString(it->path));
          return true;
        }
        if (it->has_blob) {
          const QString file =
              QDir(QDir::tempPath())
                  .filePath(QStringLiteral("doppler-run%1-checkpoint%2.pt").arg(run).arg(it->id));
          QFile out(file);
          const std::string bytes = store.checkpointBlob(it->id);
          if (!out.open(QIODevice::WriteOnly) ||
              out.write(bytes.data(), static_cast<qint64>(bytes.size())) !=
                  static_cast<qint64>(bytes.size()))
            throw std::runtime_error("cannot write " + file.toStdString());
          out.close();
          startStepperFromPolicy(file);
          return true;
        }
      }
      throw std::runtime_error("its checkpoints are gone (no file, no stored copy)");
    }
  } catch (const std::exception& e) {
    showError(tr("Run %1: %2").arg(run).arg(QString::fromUtf8(e.what())));
    return false;
  }
  StepperSession::Source source;
  source.kind = StepperSession::SourceKind::Recorded;
  source.settings = document_->settings();
  source.run_id = run;
  try {
    sessions::RunStore store(sessionPath().toStdString());
    const sessions::PlacementRecord p = sessions::loadPlacement(store, run);
    const sessions::RunInfo info = sessions::getRun(store, run);
    for (const sessions::Decision& d : p.decisions) source.order.push_back(d.node);
    source.assignment.assign(p.nodes.size(), -1);
    for (const sessions::NodePlacement& n : p.nodes)
      if (n.node >= 0 && n.node < static_cast<int>(p.nodes.size()))
        source.assignment[n.node] = n.device;
    source.label =
        tr("run %1 (%2, recorded decisions)").arg(run).arg(QString::fromStdString(info.method));
  } catch (const std::exception& e) {
    showError(tr("Run %1: %2").arg(run).arg(QString::fromUtf8(e.what())));
    return false;
  }
  return startStepper(std::move(source));
}

QString MainWindow::shippedGeneralPolicyPath() {
  // The weights exported from general.pt: placing with them needs no LibTorch.
  const QString path = QString::fromStdString(fleet::resourcesDir() + "/policies/general.weights");
  return QFileInfo::exists(path) ? path : QString();
}

void MainWindow::startStepperFromPolicy(const QString& path) {
  const SnapshotPtr s = document_->snapshot();
  if (!s) return;
  stepperWidget_->clear(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  // LibTorch loads and the network runs once on the stepper's worker; the episode and every
  // replay then run on the scores here.
  jobs_->start<std::shared_ptr<const policy::PolicyScores>>(
      JobSlot::Stepper,
      [path, costs = s->costs](const JobContext&) {
        const auto policy = train::openPolicy(path.toStdString());
        return std::make_shared<const policy::PolicyScores>(
            policy->scores(policy::graphFeatures(*costs)));
      },
      [this, path](std::shared_ptr<const policy::PolicyScores> scores) {
        StepperSession::Source source;
        source.kind = StepperSession::SourceKind::Policy;
        source.settings = document_->settings();
        source.scores = std::move(scores);
        source.policy_path = path;
        source.label = tr("policy %1").arg(QFileInfo(path).fileName());
        startStepper(std::move(source));
      },
      [this](const QString& error) {
        stepperWidget_->clear(error);
        showError(error);
      });
}

void MainWindow::saveStepperBranch() {
  try {
    sessions::RunStore store(sessionPath().toStdString());
    const int64_t run = stepper_->saveBranch(store);
    statusBar()->showMessage(
        tr("Branch saved as run %1 in %2").arg(run).arg(QString::fromStdString(store.path())),
        8000);
  } catch (const std::exception& e) {
    showError(tr("The branch was not saved: %1").arg(QString::fromUtf8(e.what())));
  }
}

}  // namespace doppler::studio

// The decision stepper's page (stepper_page.h).
#include "app/studio/panels/stepper_page.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QScrollArea>
#include <QStatusBar>
#include <QUndoStack>

#include "app/studio/document/placement_compute.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/panels/stepper_session.h"
#include "app/studio/window/main_window.h"
#include "core/train/doppler_method.h"
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

StepperPage::StepperPage(MainWindow* window)
    : QObject(window),
      window_(window),
      session_(new StepperSession(this)),
      widget_(new StepperWidget),
      dock_(new QDockWidget(tr("Decision stepper"), window)) {
  widget_->setObjectName(QStringLiteral("stepper"));
  GraphView* graphView = window->graphView();
  dock_->setObjectName(QStringLiteral("stepperDock"));
  // In a scroll area: the dock may be shorter than the stepper's tables want (a laptop).
  auto* stepperScroll = new QScrollArea;
  stepperScroll->setWidget(widget_);
  stepperScroll->setWidgetResizable(true);
  stepperScroll->setFrameShape(QFrame::NoFrame);
  dock_->setWidget(stepperScroll);
  // A tab beside the tuner (resetLayout): stepping and tuning are two ways of asking why a
  // placement came out as it did, and the stepper needs the column's height.
  dock_->hide();
  widget_->clear(
      tr("Open the stepper from View ▸ Decision Stepper to step through how "
         "the placement was decided."));

  connect(session_, &StepperSession::changed, this, &StepperPage::apply);
  // Overrides and branch switches undo and redo from the Edit menu (Ctrl+Z, Ctrl+Shift+Z).
  QMenu* edit = window->menu(WindowMenu::Edit);
  edit->addSeparator();
  QAction* undo = session_->undoStack()->createUndoAction(window, tr("&Undo Stepper Change"));
  undo->setShortcuts(keysOf(Command::StepUndo));
  QAction* redo = session_->undoStack()->createRedoAction(window, tr("&Redo Stepper Change"));
  redo->setShortcuts(keysOf(Command::StepRedo));
  edit->addAction(undo);
  edit->addAction(redo);
  connect(dock_, &QDockWidget::visibilityChanged, this, [this, graphView](bool visible) {
    if (visible && !session_->active()) startFromTuner();
    // The critical path's outlines are the original placement's: while stepping they would mark
    // nodes the branch may not share, so they rest until the stepper closes.
    if (visible && graphView->criticalPathVisible()) {
      criticalPathBeforeStepper_ = true;
      graphView->setCriticalPathVisible(false);
    } else if (!visible && criticalPathBeforeStepper_) {
      criticalPathBeforeStepper_ = false;
      graphView->setCriticalPathVisible(true);
    }
    apply();
  });
  connect(widget_, &StepperWidget::stepRequested, session_, &StepperSession::setStep);
  connect(widget_, &StepperWidget::nodeOverrideRequested, this, [this](int node) {
    QString error;
    if (!session_->overrideNode(node, &error)) window_->showError(error);
  });
  connect(widget_, &StepperWidget::deviceOverrideRequested, this, [this](int device) {
    QString error;
    if (!session_->overrideDevice(device, &error)) window_->showError(error);
  });
  connect(graphView, &GraphView::stepNodeClicked, this, [this](int node) {
    if (!dock_->isVisible() || !session_->active()) return;
    QString error;
    if (!session_->overrideNode(node, &error)) window_->showError(error);
  });
  connect(widget_, &StepperWidget::branchRequested, session_, &StepperSession::switchBranch);
  connect(widget_, &StepperWidget::saveBranchRequested, this, &StepperPage::saveBranch);
  connect(widget_, &StepperWidget::sourceRequested, this, &StepperPage::chooseSource);
  // A new graph or device set makes the decisions meaningless; the tuner's settings only restart
  // a stepper that follows them and has no branches of the user's to lose.
  connect(window_->document(), &StudioDocument::snapshotChanged, this, [this] {
    if (!dock_->isVisible()) {
      if (session_->active() && session_->inputs().graph != window_->document()->graph())
        session_->clear();
      return;
    }
    const bool newInputs = !session_->active() ||
                           session_->inputs().graph != window_->document()->graph() ||
                           session_->inputs().devices != window_->document()->devices();
    const bool followsTuner = session_->active() &&
                              session_->source().kind == StepperSession::SourceKind::Heuristic &&
                              session_->branches().size() == 1 &&
                              !(session_->source().settings == window_->document()->settings());
    if (newInputs || followsTuner) startFromTuner();
  });
}

void StepperPage::show() {
  dock_->show();
  dock_->raise();
  if (!session_->active()) startFromTuner();
}

bool StepperPage::start(StepperSource source) {
  const SnapshotPtr s = window_->document()->snapshot();
  if (!s) return false;
  PlacementInputs in{s->graph, s->devices, s->costs, s->devices_spec};
  QString error;
  if (!session_->start(std::move(in), std::move(source), &error)) {
    widget_->clear(error);
    window_->showError(error);
    return false;
  }
  return true;
}

void StepperPage::startFromTuner() {
  StepperSession::Source source;
  source.settings = window_->document()->settings();
  // A search or a one-shot baseline has no decisions to step through: the critical-path teacher
  // with the same cost settings stands in, and the dock says so.
  const std::string asked = source.settings.method;
  // The general policy's search and sampled decodes have no one sequence of decisions: the
  // stepper follows its greedy episode (one of the search's starts), and says so.
  const auto decode = source.settings.params.find("decode");
  if (asked == train::kDopplerMethod &&
      (decode == source.settings.params.end() || decode->second == "search" ||
       decode->second == "sample")) {
    const QString was = QString::fromStdString(
        decode == source.settings.params.end() ? std::string("search") : decode->second);
    source.settings.params = {{"decode", "greedy"}};
    // Short: the dock's narrow label elides the rest.
    source.label = tr("doppler greedy (%1 has no steps)").arg(was);
  } else if (!findMethod(asked).sequential()) {
    source.settings.method = "critical-path";
    source.settings.params.clear();
    source.label =
        tr("critical-path (%1 does not place node by node)").arg(QString::fromStdString(asked));
  } else {
    source.label = tr("%1 (tuner settings)").arg(QString::fromStdString(asked));
  }
  start(std::move(source));
}

void StepperPage::apply() {
  const bool on = dock_->isVisible() && session_->active();
  if (session_->active()) widget_->setContent(session_->content());
  window_->graphView()->setStepOverlay(on ? session_->overlay() : nullptr);
  window_->timelineView()->setStepOverlay(on ? session_->overlay() : nullptr);
}

void StepperPage::chooseSource() {
  QMenu menu(window_);
  const std::string method = window_->document()->settings().method;
  menu.addAction(tr("Tuner's heuristic (%1)").arg(QString::fromStdString(method)), this,
                 &StepperPage::startFromTuner);
  for (const char* m : {"critical-path", "heft", "cpop", "etf"}) {
    if (m == method) continue;
    menu.addAction(tr("%1 with the tuner's cost settings").arg(QString::fromLatin1(m)), this,
                   [this, m] {
                     StepperSession::Source source;
                     source.settings = window_->document()->settings();
                     source.settings.method = m;
                     source.settings.params.clear();
                     source.label = QString::fromLatin1(m);
                     start(std::move(source));
                   });
  }
  menu.addSeparator();
  // The shipped general policy places any graph without training (builds with LibTorch).
  const QString general = shippedGeneralPolicyPath();
  if (!general.isEmpty())
    menu.addAction(tr("Shipped General Policy"), this,
                   [this, general] { startFromPolicy(general); });
  menu.addAction(tr("Policy Checkpoint…"), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(window_, tr("Open a policy checkpoint"), {},
                                     tr("Policy checkpoints (*.pt);;All files (*)"));
    if (!path.isEmpty()) startFromPolicy(path);
  });
  QMenu* runs = menu.addMenu(tr("Stored Run"));
  fillStoredRunsMenu(runs);
  menu.exec(QCursor::pos());
}

void StepperPage::fillStoredRunsMenu(QMenu* menu) {
  const SnapshotPtr s = window_->document()->snapshot();
  try {
    if (!s) throw std::runtime_error("no graph is open");
    sessions::RunStore store(window_->sessionPath().toStdString());
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
      menu->addAction(text, this, [this, id = it->id] { startFromRun(id); });
      ++shown;
    }
    if (shown == 0) menu->addAction(tr("No stored run of this graph"))->setEnabled(false);
  } catch (const std::exception& e) {
    menu->addAction(tr("Run store unavailable: %1").arg(QString::fromUtf8(e.what())))
        ->setEnabled(false);
  }
}

bool StepperPage::startFromRun(int64_t run) {
  // A training run steps through its policy: the newest checkpoint that is still a file (or a
  // blob in the store, written out for LibTorch to read).
  try {
    sessions::RunStore store(window_->sessionPath().toStdString());
    const sessions::RunInfo info = sessions::getRun(store, run);
    if (info.kind == "train") {
      const auto checkpoints = sessions::listCheckpoints(store, run);
      for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
        if (!it->path.empty() && QFileInfo::exists(QString::fromStdString(it->path))) {
          startFromPolicy(QString::fromStdString(it->path));
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
          startFromPolicy(file);
          return true;
        }
      }
      throw std::runtime_error("its checkpoints are gone (no file, no stored copy)");
    }
  } catch (const std::exception& e) {
    window_->showError(tr("Run %1: %2").arg(run).arg(QString::fromUtf8(e.what())));
    return false;
  }
  StepperSession::Source source;
  source.kind = StepperSession::SourceKind::Recorded;
  source.settings = window_->document()->settings();
  source.run_id = run;
  try {
    sessions::RunStore store(window_->sessionPath().toStdString());
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
    window_->showError(tr("Run %1: %2").arg(run).arg(QString::fromUtf8(e.what())));
    return false;
  }
  return start(std::move(source));
}

void StepperPage::startFromPolicy(const QString& path) {
  const SnapshotPtr s = window_->document()->snapshot();
  if (!s) return;
  widget_->clear(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  // LibTorch loads and the network runs once on the stepper's worker; the episode and every
  // replay then run on the scores here.
  window_->jobs()->start<std::shared_ptr<const policy::PolicyScores>>(
      JobSlot::Stepper,
      [path, costs = s->costs](const JobContext&) {
        const auto policy = train::openPolicy(path.toStdString());
        return std::make_shared<const policy::PolicyScores>(
            policy->scores(policy::graphFeatures(*costs)));
      },
      [this, path](std::shared_ptr<const policy::PolicyScores> scores) {
        StepperSession::Source source;
        source.kind = StepperSession::SourceKind::Policy;
        source.settings = window_->document()->settings();
        source.scores = std::move(scores);
        source.policy_path = path;
        source.label = tr("policy %1").arg(QFileInfo(path).fileName());
        start(std::move(source));
      },
      [this](const QString& error) {
        widget_->clear(error);
        window_->showError(error);
      });
}

void StepperPage::saveBranch() {
  try {
    sessions::RunStore store(window_->sessionPath().toStdString());
    const int64_t run = session_->saveBranch(store);
    window_->statusBar()->showMessage(
        tr("Branch saved as run %1 in %2").arg(run).arg(QString::fromStdString(store.path())),
        8000);
  } catch (const std::exception& e) {
    window_->showError(tr("The branch was not saved: %1").arg(QString::fromUtf8(e.what())));
  }
}

}  // namespace doppler::studio

// MainWindow, the training part: the training dashboard's dock and what its buttons do. Runs go
// through TrainingController (job runner, LibTorch module, run store); the best placement so far
// opens in the decision stepper.
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QScrollArea>
#include <cmath>

#include "app/studio/job_runner.h"
#include "app/studio/main_window.h"
#include "app/studio/stepper_session.h"
#include "app/studio/studio_document.h"
#include "app/studio/training_controller.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/policy/features.h"
#include "core/train/expected_improvement.h"
#include "core/train/loaded_policy.h"
#include "core/train/torch_module.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "views/common/theme.h"
#include "views/training/training_dashboard.h"

namespace doppler::studio {

using namespace doppler::views;

void MainWindow::buildTraining() {
  training_ = new TrainingController(jobs_, this);
  dashboard_ = new TrainingDashboard;
  dashboard_->setObjectName(QStringLiteral("training"));
  trainingDock_ = new QDockWidget(tr("Training"), this);
  trainingDock_->setObjectName(QStringLiteral("trainingDock"));
  // In a scroll area: the dashboard's charts must not set the window's least size.
  auto* trainingScroll = new QScrollArea;
  trainingScroll->setWidget(dashboard_);
  trainingScroll->setWidgetResizable(true);
  trainingScroll->setFrameShape(QFrame::NoFrame);
  trainingDock_->setWidget(trainingScroll);
  // Below the views, across the window, a tab beside the runs (resetLayout): the charts want
  // width.
  trainingDock_->hide();

  connect(trainingDock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible && !training_->running()) refreshTrainingSources();
  });
  connect(dashboard_, &TrainingDashboard::startRequested, this, &MainWindow::startTraining);
  connect(dashboard_, &TrainingDashboard::settingsChanged, this,
          &MainWindow::updateTrainingExpectation);
  connect(dashboard_, &TrainingDashboard::pauseRequested, this, [this](bool paused) {
    training_->setPaused(paused);
    dashboard_->setState(paused ? TrainingState::Paused : TrainingState::Running);
  });
  connect(dashboard_, &TrainingDashboard::cancelRequested, training_, &TrainingController::cancel);
  connect(dashboard_, &TrainingDashboard::chooseCheckpointRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Start from a policy checkpoint"),
                                                      {}, tr("Policy checkpoints (*.pt);;All (*)"));
    if (path.isEmpty()) return;
    dashboard_->setCheckpointFile(path);
    updateTrainingExpectation();  // another file with "checkpoint" already chosen emits nothing
  });
  connect(dashboard_, &TrainingDashboard::showBestRequested, this,
          [this] { showBestTrainingPlacement(true); });
  connect(dashboard_, &TrainingDashboard::openBestInStepperRequested, this,
          [this] { showBestTrainingPlacement(false); });

  // The charts were reset when the run was asked for (startTraining): the references are
  // computed once, and no report has arrived yet.
  connect(training_, &TrainingController::started, this, [this](long) {
    dashboard_->setState(TrainingState::Running,
                         tr("run %1 · checkpoint %2")
                             .arg(training_->runId().value_or(0))
                             .arg(QFileInfo(training_->checkpoint()).fileName()));
  });
  connect(training_, &TrainingController::progressed, dashboard_, &TrainingDashboard::addProgress);
  connect(training_, &TrainingController::finished, this,
          [this](bool cancelled, double greedy, double lowerBound) {
            // Stage III's makespans are measured (kernels sized for this machine): beside the
            // simulated lower bound they would mislead.
            const QString what =
                dashboard_->stage() == train::Stage::Real
                    ? tr("run %1: greedy policy measured %2, best placement measured %3 "
                         "(served)")
                          .arg(training_->runId().value_or(0))
                          .arg(formatDuration(greedy))
                          .arg(formatDuration(training_->bestMakespan()))
                    : tr("run %1: greedy %2 (%3× the lower bound)")
                          .arg(training_->runId().value_or(0))
                          .arg(formatDuration(greedy))
                          .arg(lowerBound > 0 ? greedy / lowerBound : NAN, 0, 'f', 3);
            dashboard_->setState(cancelled ? TrainingState::Cancelled : TrainingState::Finished,
                                 cancelled ? tr("cancelled, kept as %1").arg(what) : what);
            refreshTrainingSources();
          });
  connect(training_, &TrainingController::failed, this, [this](const QString& message) {
    dashboard_->setState(TrainingState::Failed, message);
    showError(message);
  });
}

void MainWindow::showTraining() {
  trainingDock_->show();
  trainingDock_->raise();
}

TrainingReferences MainWindow::trainingReferences() const {
  TrainingReferences refs;
  const SnapshotPtr s = document_->snapshot();
  if (!s) return refs;
  refs.lower_bound_us = s->lower_bound_us;
  // The heuristics the policy is measured against, with the tuner's cost settings: list
  // scheduling takes milliseconds; the search only on graphs small enough to stay quick.
  PlaceRequest r;
  r.graph = s->graph.get();
  r.devices = s->devices.get();
  r.costs = s->costs.get();
  r.settings = document_->settings();
  r.settings.params.clear();
  try {
    r.settings.method = "critical-path";
    refs.critical_path_us = placeAndSimulate(r).makespan();
    if (s->graph->nodeCount() <= 500) {
      r.settings.method = "local-search";
      r.settings.budget = 5000;
      refs.local_search_us = placeAndSimulate(r).makespan();
    }
  } catch (const std::exception&) {
    // A reference line is a courtesy: without it the chart still shows the run.
  }
  return refs;
}

void MainWindow::startTraining() {
  const SnapshotPtr s = document_->snapshot();
  if (!s) return;
  TrainingLaunch launch;
  launch.inputs = PlacementInputs{s->graph, s->devices, s->costs, s->devices_spec};
  launch.graphSource = document_->graphSource();
  launch.stage = dashboard_->stage();
  const train::Stage stage = launch.stage;
  launch.values = dashboard_->values();
  launch.fromCheckpoint = dashboard_->startFromCheckpoint();
  launch.sessionPath = sessionPath();
  launch.checkpointFolder =
      QFileInfo(sessionPath()).absoluteDir().filePath(QStringLiteral("checkpoints"));
  if (const std::optional<int64_t> run = dashboard_->startFromRun()) {
    launch.fromCheckpoint = runCheckpoint(*run);
    if (launch.fromCheckpoint.isEmpty()) {
      dashboard_->setState(TrainingState::Failed,
                           tr("Run %1 has no checkpoint file left to start from").arg(*run));
      return;
    }
  }
  QString error;
  if (!training_->start(std::move(launch), &error)) {
    dashboard_->setState(TrainingState::Failed, error);
    return;
  }
  // Stage III's makespans are measured on this machine's kernels, in other units than the
  // simulated references, so its charts go without them.
  // The expectation (the Preview slot's, from the same settings) stays shown during the run.
  dashboard_->reset(stage == train::Stage::Real ? TrainingReferences{} : trainingReferences(),
                    training_->plannedEpisodes());
  dashboard_->setState(TrainingState::Running, tr("starting…"));
}

void MainWindow::updateTrainingExpectation() {
  if (training_->running()) return;  // the running run's own expectation stays
  const SnapshotPtr s = document_->snapshot();
  QString from = dashboard_->startFromCheckpoint();
  if (const std::optional<int64_t> run = dashboard_->startFromRun()) from = runCheckpoint(*run);
  if (dashboard_->stage() != train::Stage::Real || !s || !train::torchModuleBuiltIn()) {
    dashboard_->setExpectation({});
    return;
  }
  if (from.isEmpty()) {
    dashboard_->setExpectation(tr("choose a trained policy to start from (stage II's)"));
    return;
  }
  jobs_->start<QString>(
      JobSlot::Preview,
      [graph = s->graph, costs = s->costs, sim = document_->settings().simOptions(),
       path = from.toStdString()](const JobContext&) {
        const policy::GraphFeatures features = policy::graphFeatures(*costs);
        const train::ExpectedImprovement e = train::expectedImprovement(
            train::openPolicy(path)->scores(features), *costs, features, sim);
        return QString::fromStdString(e.describe());
      },
      [this](QString text) { dashboard_->setExpectation(text); },
      [this](const QString& message) {
        dashboard_->setExpectation(tr("not available: %1").arg(message));
      });
}

QString MainWindow::runCheckpoint(int64_t run) const {
  try {
    sessions::RunStore store(sessionPath().toStdString());
    const auto checkpoints = sessions::listCheckpoints(store, run);
    for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it)
      if (!it->path.empty() && QFileInfo::exists(QString::fromStdString(it->path)))
        return QString::fromStdString(it->path);
  } catch (const std::exception&) {
  }
  return {};
}

void MainWindow::refreshTrainingSources() {
  std::vector<std::pair<int64_t, QString>> runs;
  const SnapshotPtr s = document_->snapshot();
  try {
    if (!s) throw std::runtime_error("no graph");
    sessions::RunStore store(sessionPath().toStdString());
    sessions::RunFilter filter;
    filter.kind = "train";
    filter.graph_id = store.putGraph(*s->graph);
    for (const sessions::RunInfo& r : sessions::listRuns(store, filter)) {
      if (r.device_count != s->devices->size()) continue;
      const auto ms = r.figures.find("makespan_us");
      runs.emplace_back(
          r.id, tr("run %1 · %2 · %3")
                    .arg(r.id)
                    .arg(QString::fromStdString(r.params.value("stage", "")))
                    .arg(ms == r.figures.end() ? QStringLiteral("–") : formatDuration(ms->second)));
    }
  } catch (const std::exception&) {
    // No store yet, or none readable: nothing to start from.
  }
  dashboard_->setStoredRuns(runs);
}

void MainWindow::showBestTrainingPlacement(bool atTheEnd) {
  if (training_->bestAssignment().empty() || training_->inputs().graph != document_->graph()) {
    showError(tr("No best placement of this graph yet: it arrives with the first episodes."));
    return;
  }
  StepperSource source;
  source.kind = StepperSource::Kind::Recorded;
  source.settings = document_->settings();
  source.order = training_->bestOrder();
  source.assignment = training_->bestAssignment();
  source.run_id = training_->runId();
  source.label = tr("best episode of training run %1 (%2)")
                     .arg(training_->runId().value_or(0))
                     .arg(formatDuration(training_->bestMakespan()));
  showStepper();
  if (startStepper(std::move(source)) && atTheEnd) stepper_->setStep(stepper_->steps());
}

}  // namespace doppler::studio

// Training's page (training_page.h).
#include "app/studio/panels/training_page.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QScrollArea>
#include <cmath>

#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/stepper_page.h"
#include "app/studio/panels/stepper_session.h"
#include "app/studio/panels/training_controller.h"
#include "app/studio/window/main_window.h"
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

TrainingPage::TrainingPage(MainWindow* window)
    : QObject(window),
      window_(window),
      controller_(new TrainingController(window->jobs(), this)),
      dashboard_(new TrainingDashboard),
      dock_(new QDockWidget(tr("Training"), window)) {
  dashboard_->setObjectName(QStringLiteral("training"));
  dock_->setObjectName(QStringLiteral("trainingDock"));
  // In a scroll area: the dashboard's charts must not set the window's least size.
  auto* trainingScroll = new QScrollArea;
  trainingScroll->setWidget(dashboard_);
  trainingScroll->setWidgetResizable(true);
  trainingScroll->setFrameShape(QFrame::NoFrame);
  dock_->setWidget(trainingScroll);
  // Below the views, across the window, a tab beside the runs (resetLayout): the charts want
  // width.
  dock_->hide();

  connect(dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible && !controller_->running()) refreshSources();
  });
  connect(dashboard_, &TrainingDashboard::startRequested, this, &TrainingPage::startTraining);
  connect(dashboard_, &TrainingDashboard::settingsChanged, this, &TrainingPage::updateExpectation);
  connect(dashboard_, &TrainingDashboard::pauseRequested, this, [this](bool paused) {
    controller_->setPaused(paused);
    dashboard_->setState(paused ? TrainingState::Paused : TrainingState::Running);
  });
  connect(dashboard_, &TrainingDashboard::cancelRequested, controller_,
          &TrainingController::cancel);
  connect(dashboard_, &TrainingDashboard::chooseCheckpointRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Start from a policy checkpoint"),
                                                      {}, tr("Policy checkpoints (*.pt);;All (*)"));
    if (path.isEmpty()) return;
    dashboard_->setCheckpointFile(path);
    updateExpectation();  // another file with "checkpoint" already chosen emits nothing
  });
  connect(dashboard_, &TrainingDashboard::showBestRequested, this, [this] { showBest(true); });
  connect(dashboard_, &TrainingDashboard::openBestInStepperRequested, this,
          [this] { showBest(false); });

  // The charts were reset when the run was asked for (startTraining): the references are
  // computed once, and no report has arrived yet.
  connect(controller_, &TrainingController::started, this, [this](long) {
    dashboard_->setState(TrainingState::Running,
                         tr("run %1 · checkpoint %2")
                             .arg(controller_->runId().value_or(0))
                             .arg(QFileInfo(controller_->checkpoint()).fileName()));
  });
  connect(controller_, &TrainingController::progressed, dashboard_,
          &TrainingDashboard::addProgress);
  connect(controller_, &TrainingController::finished, this,
          [this](bool cancelled, double greedy, double lowerBound) {
            // Stage III's makespans are measured (kernels sized for this machine): beside the
            // simulated lower bound they would mislead.
            const QString what =
                dashboard_->stage() == train::Stage::Real
                    ? tr("run %1: greedy policy measured %2, best placement measured %3 "
                         "(served)")
                          .arg(controller_->runId().value_or(0))
                          .arg(formatDuration(greedy))
                          .arg(formatDuration(controller_->bestMakespan()))
                    : tr("run %1: greedy %2 (%3× the lower bound)")
                          .arg(controller_->runId().value_or(0))
                          .arg(formatDuration(greedy))
                          .arg(lowerBound > 0 ? greedy / lowerBound : NAN, 0, 'f', 3);
            dashboard_->setState(cancelled ? TrainingState::Cancelled : TrainingState::Finished,
                                 cancelled ? tr("cancelled, kept as %1").arg(what) : what);
            refreshSources();
          });
  connect(controller_, &TrainingController::failed, this, [this](const QString& message) {
    dashboard_->setState(TrainingState::Failed, message);
    window_->showError(message);
  });
}

void TrainingPage::show() {
  dock_->show();
  dock_->raise();
}

void TrainingPage::computeReferences() {
  const SnapshotPtr s = window_->document()->snapshot();
  if (!s) return;
  PlaceRequest r;
  r.graph = s->graph.get();
  r.devices = s->devices.get();
  r.costs = s->costs.get();
  r.settings = window_->document()->settings();
  r.settings.params.clear();
  const double lowerBound = s->lower_bound_us;
  // The heuristics the policy is measured against, with the tuner's cost settings: list
  // scheduling takes milliseconds; the search only on graphs small enough to stay quick. The job
  // holds the snapshot the request points into.
  window_->jobs()->start<TrainingReferences>(
      JobSlot::References,
      [s, r, lowerBound](const JobContext& ctx) mutable {
        TrainingReferences refs;
        refs.lower_bound_us = lowerBound;
        r.cancel = ctx.cancel();
        try {
          r.settings.method = "critical-path";
          refs.critical_path_us = placeAndSimulate(r).makespan();
          if (s->graph->nodeCount() <= 500 && !ctx.cancelled()) {
            r.settings.method = "local-search";
            r.settings.budget = 5000;
            refs.local_search_us = placeAndSimulate(r).makespan();
          }
        } catch (const std::exception&) {
          // A reference line is a courtesy: without it the chart still shows the run.
        }
        return refs;
      },
      [this](TrainingReferences refs) { dashboard_->setReferences(refs); }, [](const QString&) {});
}

void TrainingPage::startTraining() {
  const SnapshotPtr s = window_->document()->snapshot();
  if (!s) return;
  TrainingLaunch launch;
  launch.inputs = PlacementInputs{s->graph, s->devices, s->costs, s->devices_spec};
  launch.graphSource = window_->document()->graphSource();
  launch.stage = dashboard_->stage();
  const train::Stage stage = launch.stage;
  launch.values = dashboard_->values();
  launch.fromCheckpoint = dashboard_->startFromCheckpoint();
  launch.sessionPath = window_->sessionPath();
  launch.checkpointFolder =
      QFileInfo(window_->sessionPath()).absoluteDir().filePath(QStringLiteral("checkpoints"));
  if (const std::optional<int64_t> run = dashboard_->startFromRun()) {
    launch.fromCheckpoint = runCheckpoint(*run);
    if (launch.fromCheckpoint.isEmpty()) {
      dashboard_->setState(TrainingState::Failed,
                           tr("Run %1 has no checkpoint file left to start from").arg(*run));
      return;
    }
  }
  QString error;
  if (!controller_->start(std::move(launch), &error)) {
    dashboard_->setState(TrainingState::Failed, error);
    return;
  }
  // Stage III's makespans are measured on this machine's kernels, in other units than the
  // simulated references, so its charts go without them; the others get the lower bound now and
  // the heuristics when the References slot has them.
  // The expectation (the Preview slot's, from the same settings) stays shown during the run.
  TrainingReferences refs;
  if (stage != train::Stage::Real) refs.lower_bound_us = s->lower_bound_us;
  dashboard_->reset(refs, controller_->plannedEpisodes());
  if (stage != train::Stage::Real) computeReferences();
  dashboard_->setState(TrainingState::Running, tr("starting…"));
}

void TrainingPage::updateExpectation() {
  if (controller_->running()) return;  // the running run's own expectation stays
  const SnapshotPtr s = window_->document()->snapshot();
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
  window_->jobs()->start<QString>(
      JobSlot::Preview,
      [graph = s->graph, costs = s->costs, sim = window_->document()->settings().simOptions(),
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

QString TrainingPage::runCheckpoint(int64_t run) const {
  try {
    sessions::RunStore store(window_->sessionPath().toStdString());
    const auto checkpoints = sessions::listCheckpoints(store, run);
    for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it)
      if (!it->path.empty() && QFileInfo::exists(QString::fromStdString(it->path)))
        return QString::fromStdString(it->path);
  } catch (const std::exception&) {
  }
  return {};
}

void TrainingPage::refreshSources() {
  std::vector<std::pair<int64_t, QString>> runs;
  const SnapshotPtr s = window_->document()->snapshot();
  try {
    if (!s) throw std::runtime_error("no graph");
    sessions::RunStore store(window_->sessionPath().toStdString());
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

void TrainingPage::showBest(bool atTheEnd) {
  if (controller_->bestAssignment().empty() ||
      controller_->inputs().graph != window_->document()->graph()) {
    window_->showError(
        tr("No best placement of this graph yet: it arrives with the first episodes."));
    return;
  }
  StepperSource source;
  source.kind = StepperSource::Kind::Recorded;
  source.settings = window_->document()->settings();
  source.order = controller_->bestOrder();
  source.assignment = controller_->bestAssignment();
  source.run_id = controller_->runId();
  source.label = tr("best episode of training run %1 (%2)")
                     .arg(controller_->runId().value_or(0))
                     .arg(formatDuration(controller_->bestMakespan()));
  StepperPage* stepper = window_->stepperPage();
  stepper->show();
  if (stepper->start(std::move(source)) && atTheEnd)
    stepper->session()->setStep(stepper->session()->steps());
}

}  // namespace doppler::studio

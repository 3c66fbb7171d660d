// MainWindow, the first start: the demo session copied to the user's default session
// (first_start.h) is shown at once -- the demo graph placed with its timeline in the centre, the
// tuner beside them, the Runs dock listing the stored runs with the heuristics selected for a
// comparison the user starts, and the training dashboard filled with the stored training run's
// curves (one menu entry away). Nothing is compared unasked: the graph shows one placement.
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>
#include <cmath>

#include "app/studio/first_start.h"
#include "app/studio/main_window.h"
#include "app/studio/runs_controller.h"
#include "views/common/theme.h"
#include "views/runs/runs_panel.h"
#include "views/training/training_dashboard.h"

namespace doppler::studio {

using namespace doppler::views;

bool MainWindow::showFirstStart() {
  if (!runs_->isOpen()) return false;
  const std::vector<sessions::RunInfo> runs = runs_->runs();
  QList<qint64> placed;
  const sessions::RunInfo* trained = nullptr;
  TrainingReferences refs;
  for (const sessions::RunInfo& run : runs) {
    if (run.status != sessions::RunStatus::Finished) continue;
    if (run.kind == "place") {
      // The studio's own default heuristic first: the comparison measures the others against it.
      if (run.method == "critical-path") {
        placed.prepend(run.id);
        if (const auto it = run.figures.find("makespan_us"); it != run.figures.end())
          refs.critical_path_us = it->second;
      } else {
        placed.append(run.id);
      }
    }
    if (run.kind == "train") trained = &run;  // the latest
    if (const auto it = run.figures.find("lower_bound_us"); it != run.figures.end())
      refs.lower_bound_us = it->second;
  }

  // The graph, the timeline and one side panel (the tuner, with the details one tab away); the
  // stored runs listed below the centre, none compared until the user asks (Compare in the Runs
  // dock). The training run's curves wait in the Training dock, filled but not shown.
  for (QDockWidget* d : {devicesDock_, historyDock_, trainingDock_}) d->hide();
  tunerDock_->show();
  detailsDock_->show();
  tabifyDockWidget(tunerDock_, detailsDock_);
  tunerDock_->raise();
  showRuns();
  resizeDocks({runsDock_}, {170}, Qt::Vertical);
  if (!placed.isEmpty()) runsPanel_->selectRuns(placed);

  if (trained) {
    try {
      sessions::RunStore* store = runs_->store();
      const std::vector<train::TrainProgress> reports = storedTrainingReports(*store, *trained);
      const long planned = reports.empty() ? 0 : reports.back().episodes;
      dashboard_->reset(refs, planned);
      for (const train::TrainProgress& report : reports) dashboard_->addProgress(report);
      dashboard_->charts()->redrawNow();
      // The stored run kept its served placement, not its best episode: nothing to open as
      // "best" until a training runs here.
      dashboard_->setBestPlacementAvailable(
          false, tr("Stored run %1 kept its final placement, not its best episode: step through "
                    "it with the stepper's Source ▸ stored runs, or train here")
                     .arg(trained->id));
      const auto greedy = trained->figures.find("makespan_us");
      const double makespan = greedy == trained->figures.end() ? NAN : greedy->second;
      dashboard_->setState(TrainingState::Finished,
                           tr("stored run %1 (stage %2): greedy %3, %4× the lower bound")
                               .arg(trained->id)
                               .arg(QString::fromStdString(trained->params.value("stage", "")))
                               .arg(formatDuration(makespan))
                               .arg(makespan / refs.lower_bound_us, 0, 'f', 3));
    } catch (const std::exception& e) {
      showError(tr("The stored training run was not shown: %1").arg(QString::fromUtf8(e.what())));
    }
  }
  // The next step, said where the eye lands after the graph (kept until another message).
  statusBar()->showMessage(
      tr("Welcome: the demo session %1 holds the LLaMA block placed three ways%2. Next: Compare "
         "the selected runs below, change the method in the tuner, or step through its decisions "
         "(View ▸ Decision stepper).")
          .arg(QFileInfo(sessionPath()).fileName(),
               trained ? tr(" and a short training (View ▸ Training)") : QString()));
  return true;
}

}  // namespace doppler::studio

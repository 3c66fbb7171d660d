// The first start's arrangement (first_start_page.h).
#include "app/studio/panels/first_start_page.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>
#include <cmath>

#include "app/studio/panels/first_start.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/panels/runs_controller.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/panels/training_page.h"
#include "app/studio/window/main_window.h"
#include "views/common/theme.h"
#include "views/runs/runs_panel.h"
#include "views/training/training_dashboard.h"

namespace doppler::studio {

using namespace doppler::views;

bool showFirstStart(MainWindow& window) {
  RunsPage* runsPage = window.runsPage();
  RunsController* controller = runsPage->controller();
  PlacementDocks* docks = window.docks();
  TrainingDashboard* dashboard = window.trainingPage()->dashboard();
  if (!controller->isOpen()) return false;
  const std::vector<sessions::RunInfo> runs = controller->runs();
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
  for (QDockWidget* d : {docks->devicesDock(), docks->historyDock(), window.trainingPage()->dock()})
    d->hide();
  docks->tunerDock()->show();
  docks->detailsDock()->show();
  window.tabifyDockWidget(docks->tunerDock(), docks->detailsDock());
  docks->tunerDock()->raise();
  runsPage->show();
  window.resizeDocks({runsPage->dock()}, {170}, Qt::Vertical);
  if (!placed.isEmpty()) runsPage->panel()->selectRuns(placed);

  if (trained) {
    try {
      sessions::RunStore* store = controller->store();
      const std::vector<train::TrainProgress> reports = storedTrainingReports(*store, *trained);
      const long planned = reports.empty() ? 0 : reports.back().episodes;
      dashboard->reset(refs, planned);
      for (const train::TrainProgress& report : reports) dashboard->addProgress(report);
      dashboard->charts()->redrawNow();
      // The stored run kept its served placement, not its best episode: nothing to open as
      // "best" until a training runs here.
      dashboard->setBestPlacementAvailable(
          false,
          QObject::tr("Stored run %1 kept its final placement, not its best episode: step through "
                      "it with the stepper's Source ▸ stored runs, or train here")
              .arg(trained->id));
      const auto greedy = trained->figures.find("makespan_us");
      const double makespan = greedy == trained->figures.end() ? NAN : greedy->second;
      dashboard->setState(TrainingState::Finished,
                          QObject::tr("stored run %1 (stage %2): greedy %3, %4× the lower bound")
                              .arg(trained->id)
                              .arg(QString::fromStdString(trained->params.value("stage", "")))
                              .arg(formatDuration(makespan))
                              .arg(makespan / refs.lower_bound_us, 0, 'f', 3));
    } catch (const std::exception& e) {
      window.showError(QObject::tr("The stored training run was not shown: %1")
                           .arg(QString::fromUtf8(e.what())));
    }
  }
  // The next step, said where the eye lands after the graph (kept until another message).
  window.statusBar()->showMessage(
      QObject::tr(
          "Welcome: the demo session %1 holds the LLaMA block placed three ways%2. Next: Compare "
          "the selected runs below, change the method in the tuner, or step through its decisions "
          "(View ▸ Decision stepper).")
          .arg(QFileInfo(window.sessionPath()).fileName(),
               trained ? QObject::tr(" and a short training (View ▸ Training)") : QString()));
  return true;
}

}  // namespace doppler::studio

// MainWindow, the first start: the demo session copied to the user's default session
// (first_start.h) is shown at once -- the demo graph placed with its timeline in the centre, the
// Runs dock listing the stored runs, the training dashboard drawing the stored training run's
// curves, and the three heuristics compared in a docked comparison on the right.
#include <QChartView>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>
#include <cmath>

#include "app/studio/first_start.h"
#include "app/studio/main_window.h"
#include "app/studio/runs_controller.h"
#include "views/common/theme.h"
#include "views/runs/run_compare_view.h"
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

  if (!comparisonDock_) {
    dockedComparison_ = new RunCompareView;
    dockedComparison_->setObjectName(QStringLiteral("dockedComparison"));
    comparisonDock_ = new QDockWidget(tr("Comparison"), this);
    comparisonDock_->setObjectName(QStringLiteral("comparisonDock"));
    comparisonDock_->setWidget(dockedComparison_);
    addDockWidget(Qt::RightDockWidgetArea, comparisonDock_);
    viewMenu_->addAction(comparisonDock_->toggleViewAction());
    connect(dockedComparison_, &RunCompareView::movedNodesChanged, this,
            &MainWindow::markMovedNodes);
  }

  // The right column, top to bottom: the comparison (the tuner one tab away), then the training
  // dashboard; the runs table below the centre. The details group gives its room to them.
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  for (QDockWidget* d : {detailsDock_, devicesDock_, historyDock_}) d->hide();
  comparisonDock_->show();
  tabifyDockWidget(tunerDock_, comparisonDock_);
  comparisonDock_->raise();
  trainingDock_->setFloating(false);
  addDockWidget(Qt::RightDockWidgetArea, trainingDock_);
  trainingDock_->show();
  showRuns();
  resizeDocks({comparisonDock_}, {620}, Qt::Horizontal);
  resizeDocks({comparisonDock_, trainingDock_}, {500, 480}, Qt::Vertical);
  resizeDocks({runsDock_}, {200}, Qt::Vertical);

  QString error;
  if (placed.size() >= 2) {
    RunComparison comparison = runs_->comparison(placed, &error);
    if (!comparison.runs.empty()) {
      // Heuristics record no series: the chart would only say so; the timelines take its room.
      dockedComparison_->chartView()->setVisible(!comparison.series_name.empty());
      dockedComparison_->setComparison(std::move(comparison));
    }
    runsPanel_->selectRuns(placed);
  }

  if (trained) {
    try {
      sessions::RunStore* store = runs_->store();
      const std::vector<train::TrainProgress> reports = storedTrainingReports(*store, *trained);
      const long planned = reports.empty() ? 0 : reports.back().episodes;
      dashboard_->reset(refs, planned);
      for (const train::TrainProgress& report : reports) dashboard_->addProgress(report);
      dashboard_->charts()->redrawNow();
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
  statusBar()->showMessage(
      tr("Welcome: the demo session %1 — the LLaMA block placed three ways and a short training")
          .arg(QFileInfo(sessionPath()).fileName()),
      15000);
  return true;
}

}  // namespace doppler::studio

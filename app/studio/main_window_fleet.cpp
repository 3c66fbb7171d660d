// MainWindow, the fleet part: the Fleet perspective (the fleet workbench in the centre instead of
// the graph and the timeline, the placement docks put away and brought back as they were), its
// launch buttons wired to the FleetController, and its grabs.
#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>

#include "app/studio/fleet_controller.h"
#include "app/studio/job_runner.h"
#include "app/studio/main_window.h"
#include "app/studio/studio_toolbar.h"
#include "core/fleet/world/topology.h"
#include "views/fleet/fleet_map_view.h"
#include "views/fleet/fleet_run_model.h"
#include "views/fleet/fleet_workbench.h"

namespace doppler::studio {

using namespace doppler::views;

void MainWindow::buildFleet() {
  fleetModel_ = new FleetRunModel(this);
  fleetWorkbench_ = new FleetWorkbench(fleetModel_);
  fleetController_ = new FleetController(jobs_, fleetModel_, this);
  centralStack_->addWidget(fleetWorkbench_);
  showOnlyCurrentPage();
  fleetWorkbench_->setMethodNames(FleetController::methodNames());
  // The four topologies the fleet is evaluated on first, then the other shipped ones.
  std::vector<std::string> topologies = {"abilene", "polska", "gabriel", "cost266"};
  for (const std::string& t : fleet::shippedTopologies())
    if (std::find(topologies.begin(), topologies.end(), t) == topologies.end())
      topologies.push_back(t);
  fleetWorkbench_->setTopologies(topologies);
  QString why;
  const bool canTrain = FleetController::trainAvailable(&why);
  fleetWorkbench_->setTrainAvailable(canTrain, why);
  FleetLaunchSettings defaults = fleetWorkbench_->settings();
  defaults.methods = {"local", "skylb", "ot"};
  fleetWorkbench_->setSettings(defaults);

  auto launch = [this](FleetJobKind kind) {
    FleetJob job;
    job.kind = kind;
    job.settings = fleetWorkbench_->settings();
    job.sessionPath = sessionPath();
    QString error;
    if (!fleetController_->start(job, &error)) {
      fleetWorkbench_->setState(FleetJobState::Failed, error);
      showError(error);
    }
  };
  connect(fleetWorkbench_, &FleetWorkbench::simulateRequested, this,
          [launch] { launch(FleetJobKind::Simulate); });
  connect(fleetWorkbench_, &FleetWorkbench::compareRequested, this,
          [launch] { launch(FleetJobKind::Compare); });
  connect(fleetWorkbench_, &FleetWorkbench::trainRequested, this,
          [launch] { launch(FleetJobKind::Train); });
  connect(fleetWorkbench_, &FleetWorkbench::cancelRequested, fleetController_,
          &FleetController::cancel);
  connect(fleetWorkbench_, &FleetWorkbench::chooseCheckpointRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("A fleet policy checkpoint"), {},
                                                      tr("Fleet checkpoints (*.pt);;All (*)"));
    if (!path.isEmpty()) fleetWorkbench_->setCheckpoint(path);
  });
  connect(fleetController_, &FleetController::started, this, [this](const QString& what) {
    fleetWorkbench_->setState(FleetJobState::Running, what);
    fleetWorkbench_->setProgress(0, 0, what);
    clearError();
  });
  connect(fleetController_, &FleetController::progressed, fleetWorkbench_,
          &FleetWorkbench::setProgress);
  connect(fleetController_, &FleetController::finished, this,
          [this](bool cancelled, const QString& summary) {
            fleetWorkbench_->setState(
                cancelled ? FleetJobState::Cancelled : FleetJobState::Finished, summary);
            statusBar()->showMessage(tr("Fleet: %1").arg(summary), 10000);
          });
  connect(fleetController_, &FleetController::trainProgressed, this, [this] {
    std::vector<double> response, ot;
    for (const fleet::learn::FleetTrainProgress& p : fleetController_->trainHistory()) {
      response.push_back(p.response_s);
      ot.push_back(p.ot_response_s);
    }
    fleetWorkbench_->setTrainingCurve(response, ot);
  });
  // A trained policy is what the learned method runs from next.
  connect(fleetController_, &FleetController::checkpointWritten, fleetWorkbench_,
          &FleetWorkbench::setCheckpoint);
  connect(fleetController_, &FleetController::failed, this, [this](const QString& message) {
    fleetWorkbench_->setState(FleetJobState::Failed, message);
    showError(message);
  });
}

bool MainWindow::fleetPerspective() const {
  return centralStack_->currentWidget() == fleetWorkbench_;
}

void MainWindow::showOnlyCurrentPage() {
  // A stacked widget asks for the room of its largest page; a hidden page with an ignored size
  // asks for none, so the fleet workbench does not set the placement perspective's least size.
  for (int i = 0; i < centralStack_->count(); ++i) {
    QWidget* page = centralStack_->widget(i);
    const auto policy =
        page == centralStack_->currentWidget() ? QSizePolicy::Preferred : QSizePolicy::Ignored;
    page->setSizePolicy(policy, policy);
  }
  centralStack_->updateGeometry();
}

void MainWindow::setFleetPerspective(bool on) {
  if (on == fleetPerspective()) return;
  if (on) {
    // The placement perspective's docks and toolbar go away, and come back as they were.
    placementState_ = saveState();
    for (QDockWidget* d : findChildren<QDockWidget*>())
      if (d->parentWidget() == this) d->hide();
    toolbar_->hide();
    centralStack_->setCurrentWidget(fleetWorkbench_);
    showOnlyCurrentPage();
  } else {
    fleetWorkbench_->setPlaying(false);
    centralStack_->setCurrentIndex(0);
    showOnlyCurrentPage();
    toolbar_->show();
    if (!placementState_.isEmpty()) restoreState(placementState_);
  }
  if (fleetAction_ && fleetAction_->isChecked() != on) {
    QSignalBlocker block(fleetAction_);
    fleetAction_->setChecked(on);
  }
}

QStringList MainWindow::grabFleet(const QString& dir) {
  QStringList files;
  auto save = [&](QWidget* w, const QString& name) {
    jobs_->waitIdle(300000);
    QCoreApplication::processEvents();
    const QString path = QDir(dir).filePath(name);
    if (w->grab().toImage().convertToFormat(QImage::Format_RGB888).save(path, "PNG", 0))
      files << path;
  };
  // On a temporary session, as the runs grabs: the user's session stays untouched.
  QTemporaryDir sessionDir;
  const QString previous = sessionPath();
  openSession(sessionDir.filePath(QStringLiteral("fleet-grab.sqlite")));
  setFleetPerspective(true);
  // A small comparison: abilene, 96 slots of the slot model, three baselines over two seeds.
  FleetLaunchSettings s = fleetWorkbench_->settings();
  s.options.topology = "abilene";
  s.options.trace = "conv";
  s.options.slots = 96;
  s.options.fidelity = fleet::sim::Fidelity::Slot;
  s.options.seed = 1;
  s.methods = {"local", "skylb", "ot"};
  s.seeds = 2;
  fleetWorkbench_->setSettings(s);
  Q_EMIT fleetWorkbench_->compareRequested();
  jobs_->waitIdle(300000);
  QCoreApplication::processEvents();
  // The map of SkyLB (its decisions differ from the OT plan) at the slot with the most requests
  // sent away from home in the middle half of the horizon.
  auto busiestSlot = [this](const std::string& method) {
    int best = fleetModel_->slots() / 2;
    double most = -1;
    for (int t = fleetModel_->slots() / 4; t < 3 * fleetModel_->slots() / 4; ++t) {
      double away = 0;
      for (const FleetFlow& f : fleetModel_->flows(method, t)) away += f.requests;
      if (away > most) {
        most = away;
        best = t;
      }
    }
    return best;
  };
  fleetModel_->setMethod("skylb");
  fleetModel_->setSlot(busiestSlot("skylb"));
  fleetModel_->setRegion(0);
  save(fleetWorkbench_->map(), QStringLiteral("fleet-map.png"));
  save(fleetWorkbench_->comparePanel(), QStringLiteral("fleet-compare.png"));
  save(this, QStringLiteral("fleet-window.png"));
  setDarkTheme(true);
  save(this, QStringLiteral("fleet-window-dark.png"));
  setDarkTheme(false);
  // Where LibTorch is built in: a short training of the learned method from the form, then
  // torta beside the baselines; its decision trace at a fallback slot if it has one.
  if (FleetController::trainAvailable(nullptr)) {
    FleetLaunchSettings t = s;
    t.episodes = 8;
    fleetWorkbench_->setSettings(t);
    Q_EMIT fleetWorkbench_->trainRequested();
    jobs_->waitIdle(600000);
    QCoreApplication::processEvents();
    t = fleetWorkbench_->settings();  // with the checkpoint the training wrote
    t.methods = {"skylb", "ot", "torta"};
    t.seeds = 2;
    fleetWorkbench_->setSettings(t);
    Q_EMIT fleetWorkbench_->compareRequested();
    jobs_->waitIdle(600000);
    QCoreApplication::processEvents();
    if (fleetModel_->result("torta")) {
      fleetModel_->setMethod("torta");
      const std::vector<int> fallbacks = fleetModel_->fallbackSlots("torta");
      fleetModel_->setSlot(fallbacks.empty() ? busiestSlot("torta") : fallbacks.front());
      save(this, QStringLiteral("fleet-torta.png"));
    }
  }
  // The largest shipped topology the workbench is made for: cost266's 37 regions.
  s.options.topology = "cost266";
  s.method = "ot";
  fleetWorkbench_->setSettings(s);
  Q_EMIT fleetWorkbench_->simulateRequested();
  jobs_->waitIdle(300000);
  QCoreApplication::processEvents();
  fleetModel_->setMethod("ot");
  fleetModel_->setSlot(busiestSlot("ot"));
  save(fleetWorkbench_->map(), QStringLiteral("fleet-map-cost266.png"));
  save(this, QStringLiteral("fleet-window-cost266.png"));
  setFleetPerspective(false);
  if (!previous.isEmpty()) openSession(previous);
  return files;
}

}  // namespace doppler::studio

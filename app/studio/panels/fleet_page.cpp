// The Fleet perspective (fleet_page.h).
#include "app/studio/panels/fleet_page.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenu>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>

#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/fleet_controller.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/studio_toolbar.h"
#include "core/fleet/world/topology.h"
#include "views/common/shortcuts.h"
#include "views/fleet/fleet_map_view.h"
#include "views/fleet/fleet_run_model.h"
#include "views/fleet/fleet_workbench.h"

namespace doppler::studio {

using namespace doppler::views;

FleetPage::FleetPage(MainWindow* window)
    : QObject(window),
      window_(window),
      model_(new FleetRunModel(this)),
      workbench_(new FleetWorkbench(model_)),
      controller_(new FleetController(window->jobs(), model_, this)) {
  window->centralStack()->addWidget(workbench_);
  // View > Fleet Workbench: the workbench instead of the graph and the timeline.
  action_ = window->menu(WindowMenu::View)->addAction(tr("&Fleet Workbench"));
  action_->setShortcuts(views::keysOf(views::Command::FleetPerspective));
  action_->setObjectName(QStringLiteral("actionFleetPerspective"));
  action_->setCheckable(true);
  connect(action_, &QAction::toggled, this, &FleetPage::setActive);
  showOnlyCurrentPage();
  workbench_->setMethodNames(FleetController::methodNames());
  // The four topologies the fleet is evaluated on first, then the other shipped ones.
  std::vector<std::string> topologies = {"abilene", "polska", "gabriel", "cost266"};
  for (const std::string& t : fleet::shippedTopologies())
    if (std::find(topologies.begin(), topologies.end(), t) == topologies.end())
      topologies.push_back(t);
  workbench_->setTopologies(topologies);
  QString why;
  const bool canTrain = FleetController::trainAvailable(&why);
  workbench_->setTrainAvailable(canTrain, why);
  FleetLaunchSettings defaults = workbench_->settings();
  defaults.methods = {"local", "skylb", "ot"};
  workbench_->setSettings(defaults);

  auto launch = [this](FleetJobKind kind) {
    FleetJob job;
    job.kind = kind;
    job.settings = workbench_->settings();
    job.sessionPath = window_->sessionPath();
    QString error;
    if (!controller_->start(job, &error)) {
      workbench_->setState(FleetJobState::Failed, error);
      window_->showError(error);
    }
  };
  connect(workbench_, &FleetWorkbench::simulateRequested, this,
          [launch] { launch(FleetJobKind::Simulate); });
  connect(workbench_, &FleetWorkbench::compareRequested, this,
          [launch] { launch(FleetJobKind::Compare); });
  connect(workbench_, &FleetWorkbench::trainRequested, this,
          [launch] { launch(FleetJobKind::Train); });
  connect(workbench_, &FleetWorkbench::cancelRequested, controller_, &FleetController::cancel);
  connect(workbench_, &FleetWorkbench::chooseCheckpointRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("A fleet policy checkpoint"), {},
                                                      tr("Fleet checkpoints (*.pt);;All (*)"));
    if (!path.isEmpty()) workbench_->setCheckpoint(path);
  });
  connect(controller_, &FleetController::started, this, [this](const QString& what) {
    workbench_->setState(FleetJobState::Running, what);
    workbench_->setProgress(0, 0, what);
    window_->clearError();
  });
  connect(controller_, &FleetController::progressed, workbench_, &FleetWorkbench::setProgress);
  connect(controller_, &FleetController::finished, this,
          [this](bool cancelled, const QString& summary) {
            workbench_->setState(cancelled ? FleetJobState::Cancelled : FleetJobState::Finished,
                                 summary);
            window_->statusBar()->showMessage(tr("Fleet: %1").arg(summary), 10000);
          });
  connect(controller_, &FleetController::trainProgressed, this, [this] {
    std::vector<double> response, ot;
    for (const fleet::learn::FleetTrainProgress& p : controller_->trainHistory()) {
      response.push_back(p.response_s);
      ot.push_back(p.ot_response_s);
    }
    workbench_->setTrainingCurve(response, ot);
  });
  // A trained policy is what the learned method runs from next.
  connect(controller_, &FleetController::checkpointWritten, workbench_,
          &FleetWorkbench::setCheckpoint);
  connect(controller_, &FleetController::failed, this, [this](const QString& message) {
    workbench_->setState(FleetJobState::Failed, message);
    window_->showError(message);
  });
}

bool FleetPage::active() const {
  return window_->centralStack()->currentWidget() == workbench_;
}

void FleetPage::showOnlyCurrentPage() {
  QStackedWidget* stack = window_->centralStack();
  // A stacked widget asks for the room of its largest page; a hidden page with an ignored size
  // asks for none, so the fleet workbench does not set the placement perspective's least size.
  for (int i = 0; i < stack->count(); ++i) {
    QWidget* page = stack->widget(i);
    const auto policy =
        page == stack->currentWidget() ? QSizePolicy::Preferred : QSizePolicy::Ignored;
    page->setSizePolicy(policy, policy);
  }
  stack->updateGeometry();
}

void FleetPage::setActive(bool on) {
  if (on == active()) return;
  QStackedWidget* stack = window_->centralStack();
  if (on) {
    // The placement perspective's docks and toolbar go away, and come back as they were.
    placementState_ = window_->saveState();
    for (QDockWidget* d : window_->findChildren<QDockWidget*>())
      if (d->parentWidget() == window_) d->hide();
    window_->toolbar()->hide();
    stack->setCurrentWidget(workbench_);
    showOnlyCurrentPage();
  } else {
    workbench_->setPlaying(false);
    stack->setCurrentIndex(0);
    showOnlyCurrentPage();
    window_->toolbar()->show();
    if (!placementState_.isEmpty()) window_->restoreState(placementState_);
  }
  if (action_ && action_->isChecked() != on) {
    QSignalBlocker block(action_);
    action_->setChecked(on);
  }
}

QStringList FleetPage::grab(const QString& dir) {
  JobRunner* jobs = window_->jobs();
  QStringList files;
  auto save = [&](QWidget* w, const QString& name) {
    jobs->waitIdle(300000);
    QCoreApplication::processEvents();
    const QString path = QDir(dir).filePath(name);
    if (w->grab().toImage().convertToFormat(QImage::Format_RGB888).save(path, "PNG", 0))
      files << path;
  };
  // On a temporary session, as the runs grabs: the user's session stays untouched.
  QTemporaryDir sessionDir;
  const QString previous = window_->sessionPath();
  window_->runsPage()->openSession(sessionDir.filePath(QStringLiteral("fleet-grab.sqlite")));
  setActive(true);
  // A small comparison: abilene, 96 slots of the slot model, three baselines over two seeds.
  FleetLaunchSettings s = workbench_->settings();
  s.options.topology = "abilene";
  s.options.trace = "conv";
  s.options.slots = 96;
  s.options.fidelity = fleet::sim::Fidelity::Slot;
  s.options.seed = 1;
  s.methods = {"local", "skylb", "ot"};
  s.seeds = 2;
  workbench_->setSettings(s);
  Q_EMIT workbench_->compareRequested();
  jobs->waitIdle(300000);
  QCoreApplication::processEvents();
  // The map of SkyLB (its decisions differ from the OT plan) at the slot with the most requests
  // sent away from home in the middle half of the horizon.
  auto busiestSlot = [this](const std::string& method) {
    int best = model_->slots() / 2;
    double most = -1;
    for (int t = model_->slots() / 4; t < 3 * model_->slots() / 4; ++t) {
      double away = 0;
      for (const FleetFlow& f : model_->flows(method, t)) away += f.requests;
      if (away > most) {
        most = away;
        best = t;
      }
    }
    return best;
  };
  model_->setMethod("skylb");
  model_->setSlot(busiestSlot("skylb"));
  model_->setRegion(0);
  save(workbench_->map(), QStringLiteral("fleet-map.png"));
  save(workbench_->comparePanel(), QStringLiteral("fleet-compare.png"));
  save(window_, QStringLiteral("fleet-window.png"));
  window_->setDarkTheme(true);
  save(window_, QStringLiteral("fleet-window-dark.png"));
  window_->setDarkTheme(false);
  // Where LibTorch is built in: a short training of the learned method from the form, then
  // torta beside the baselines; its decision trace at a fallback slot if it has one.
  if (FleetController::trainAvailable(nullptr)) {
    FleetLaunchSettings t = s;
    t.episodes = 8;
    workbench_->setSettings(t);
    Q_EMIT workbench_->trainRequested();
    jobs->waitIdle(600000);
    QCoreApplication::processEvents();
    t = workbench_->settings();  // with the checkpoint the training wrote
    t.methods = {"skylb", "ot", "torta"};
    t.seeds = 2;
    workbench_->setSettings(t);
    Q_EMIT workbench_->compareRequested();
    jobs->waitIdle(600000);
    QCoreApplication::processEvents();
    if (model_->result("torta")) {
      model_->setMethod("torta");
      const std::vector<int> fallbacks = model_->fallbackSlots("torta");
      model_->setSlot(fallbacks.empty() ? busiestSlot("torta") : fallbacks.front());
      save(window_, QStringLiteral("fleet-torta.png"));
    }
  }
  // OT-only on another topology, shown at its busiest slot.
  const auto simulateOt = [&](const char* topology) {
    s.options.topology = topology;
    s.method = "ot";
    workbench_->setSettings(s);
    Q_EMIT workbench_->simulateRequested();
    jobs->waitIdle(300000);
    QCoreApplication::processEvents();
    model_->setMethod("ot");
    model_->setSlot(busiestSlot("ot"));
  };
  // The largest shipped topology the workbench is made for: cost266's 37 regions.
  simulateOt("cost266");
  save(workbench_->map(), QStringLiteral("fleet-map-cost266.png"));
  save(window_, QStringLiteral("fleet-window-cost266.png"));
  // The world across oceans: longitudes from -122 to 151, latitudes on both hemispheres.
  simulateOt("intercontinental");
  save(workbench_->map(), QStringLiteral("fleet-map-intercontinental.png"));
  setActive(false);
  if (!previous.isEmpty()) window_->runsPage()->openSession(previous);
  return files;
}

}  // namespace doppler::studio

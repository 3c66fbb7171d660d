// The runs page (runs_page.h).
#include "app/studio/panels/runs_page.h"

#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <map>

#include "app/studio/document/studio_document.h"
#include "app/studio/panels/runs_controller.h"
#include "app/studio/window/main_window.h"
#include "core/graph/device_matching.h"
#include "core/pipeline/place_and_simulate.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"
#include "sessions/queries.h"
#include "sessions/recent_sessions.h"
#include "sessions/user_paths.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/runs_panel.h"
#include "views/runs/runs_table_model.h"

namespace doppler::studio {

using namespace doppler::views;

namespace {

const QString kSessionFilter = QObject::tr("Doppler sessions (*.sqlite *.db);;All files (*)");

}  // namespace

RunsPage::RunsPage(MainWindow* window)
    : QObject(window),
      window_(window),
      controller_(new RunsController(this)),
      panel_(new RunsPanel),
      compare_(new RunCompareView(window)),
      dock_(new QDockWidget(tr("Runs"), window)) {
  panel_->setObjectName(QStringLiteral("runsPanel"));
  dock_->setObjectName(QStringLiteral("runsDock"));
  dock_->setWidget(panel_);
  // With the nodes and events (resetLayout): the bottom is where tables live, and the runs table
  // is wide.
  dock_->hide();

  compare_->setWindowFlag(Qt::Window);
  compare_->setWindowTitle(tr("Compare runs"));
  compare_->resize(1320, 860);

  connect(controller_, &RunsController::runsChanged, panel_,
          [this](const std::vector<sessions::RunInfo>& runs) { panel_->setRuns(runs); });
  connect(controller_, &RunsController::sessionChanged, this, [this](const QString& path) {
    dock_->setWindowTitle(tr("Runs — %1").arg(QFileInfo(path).fileName()));
    window_->updateTitle();
  });
  auto report = [this](bool ok, const QString& error) {
    if (!ok) window_->showError(tr("%1: %2").arg(sessionPath(), error));
  };
  connect(panel_, &RunsPanel::tagRequested, this,
          [this, report](const QList<qint64>& ids, const QString& tag, bool remove) {
            QString error;
            report(controller_->tag(ids, tag, remove, &error), error);
          });
  connect(panel_, &RunsPanel::noteRequested, this,
          [this, report](const QList<qint64>& ids, const QString& text) {
            QString error;
            report(controller_->note(ids, text, &error), error);
          });
  connect(panel_, &RunsPanel::renameRequested, this,
          [this, report](qint64 id, const QString& name) {
            QString error;
            report(controller_->rename(id, name, &error), error);
          });
  connect(panel_, &RunsPanel::deleteRequested, this, [this, report](const QList<qint64>& ids) {
    QString error;
    report(controller_->remove(ids, &error), error);
  });
  connect(panel_, &RunsPanel::compareRequested, this, &RunsPage::compareRuns);
  connect(compare_, &RunCompareView::movedNodesChanged, this, &RunsPage::markMovedNodes);
  // Closing the comparison leaves it on the graph too.
  connect(compare_, &RunCompareView::closed, window_->graphView()->graphScene(),
          &GraphScene::clearComparison);

  addSessionActions(window->menu(WindowMenu::File));
  QString error;
  if (!controller_->open(RunsController::startupPath(), &error))
    window_->showError(tr("The session was not opened: %1").arg(error));
}

QString RunsPage::sessionPath() const {
  return controller_->path();
}

bool RunsPage::openSession(const QString& path) {
  QString error;
  if (!controller_->open(path, &error)) {
    // The session that was open stays open: the controller only switches after every check.
    window_->showError(tr("Session not opened: %1").arg(error));
    return false;
  }
  window_->clearError();
  rememberSession();
  window_->statusBar()->showMessage(
      tr("Session %1: %n run(s)", nullptr, int(controller_->runs().size()))
          .arg(QDir::toNativeSeparators(path)),
      6000);
  return true;
}

bool RunsPage::newSession(const QString& path) {
  QString error;
  if (!controller_->create(path, &error)) {
    window_->showError(tr("Session not created: %1").arg(error));
    return false;
  }
  window_->clearError();
  rememberSession();
  return true;
}

bool RunsPage::saveSessionAs(const QString& path) {
  QString error;
  if (!controller_->saveAs(path, &error)) {
    window_->showError(tr("Session not saved: %1").arg(error));
    return false;
  }
  window_->clearError();
  rememberSession();
  window_->statusBar()->showMessage(tr("Session saved as %1").arg(QDir::toNativeSeparators(path)),
                                    6000);
  return true;
}

void RunsPage::rememberSession() {
  // Tests and grabs (fresh) never touch the user's recent list.
  if (window_->options().fresh || !controller_->isOpen()) return;
  try {
    sessions::rememberRecentSession(controller_->path().toStdString());
  } catch (const std::exception& e) {
    window_->statusBar()->showMessage(QString::fromUtf8(e.what()), 6000);
  }
}

void RunsPage::addSessionActions(QMenu* file) {
  QAction* create = file->addAction(tr("New &Session…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("New session"), QStringLiteral("session.sqlite"), kSessionFilter);
    if (path.isEmpty()) return;
    // The dialog has asked about overwriting; a new session never reuses an old file's content.
    if (QFileInfo::exists(path) && !QFile::remove(path)) {
      window_->showError(tr("%1: cannot replace the file").arg(path));
      return;
    }
    newSession(path);
  });
  create->setObjectName(QStringLiteral("actionNewSession"));
  file->addAction(tr("Open S&ession…"), this,
                  [this] {
                    const QString path = QFileDialog::getOpenFileName(
                        window_, tr("Open session"), QFileInfo(sessionPath()).absolutePath(),
                        kSessionFilter);
                    if (!path.isEmpty()) openSession(path);
                  })
      ->setObjectName(QStringLiteral("actionOpenSession"));
  file->addAction(tr("Save Session &As…"), this,
                  [this] {
                    const QString path = QFileDialog::getSaveFileName(
                        window_, tr("Save session as"), QFileInfo(sessionPath()).absolutePath(),
                        kSessionFilter);
                    if (!path.isEmpty()) saveSessionAs(path);
                  })
      ->setObjectName(QStringLiteral("actionSaveSessionAs"));
  recentSessionsMenu_ = file->addMenu(tr("Recent Sessions"));
  recentSessionsMenu_->setObjectName(QStringLiteral("recentSessionsMenu"));
  // Filled when opened: the list is a file other studio windows may have changed meanwhile.
  connect(recentSessionsMenu_, &QMenu::aboutToShow, this, [this] {
    recentSessionsMenu_->clear();
    std::vector<std::string> recent;
    try {
      recent = sessions::recentSessions();
    } catch (const std::exception&) {
    }
    for (const std::string& entry : recent) {
      const QString path = QString::fromStdString(entry);
      QAction* action = recentSessionsMenu_->addAction(QDir::toNativeSeparators(path), this,
                                                       [this, path] { openSession(path); });
      action->setEnabled(QFileInfo::exists(path));  // gone files stay listed, greyed
    }
    if (recent.empty()) recentSessionsMenu_->addAction(tr("No recent sessions"))->setEnabled(false);
    recentSessionsMenu_->addSeparator();
    recentSessionsMenu_->addAction(tr("Default Session"), this, [this] {
      try {
        sessions::ensureDataDirectory();
        openSession(QString::fromStdString(sessions::defaultSessionPath()));
      } catch (const std::exception& e) {
        window_->showError(QString::fromUtf8(e.what()));
      }
    });
  });
}

void RunsPage::show() {
  dock_->show();
  dock_->raise();
}

void RunsPage::compareRuns(const QList<qint64>& ids) {
  QString error;
  RunComparison comparison = controller_->comparison(ids, &error);
  if (comparison.runs.empty()) {
    window_->showError(tr("The runs were not compared: %1").arg(error));
    return;
  }
  compare_->setComparison(std::move(comparison));
  compare_->show();
  compare_->raise();
}

void RunsPage::markMovedNodes() {
  // The graph compares what it shows with the comparison's second run: its nodes that sit on
  // another device there are ringed in that device's colour, the fill stays the shown
  // placement's. Only nodes of the open graph (matched by id): the runs may be of another graph.
  GraphScene* scene = window_->graphView()->graphScene();
  const SnapshotPtr s = window_->document()->snapshot();
  const RunComparison& c = compare_->comparison();
  sessions::RunStore* store = controller_->store();
  if (!s || !store || c.runs.size() < 2) {
    scene->clearComparison();
    return;
  }
  const sessions::RunInfo& other = c.runs[1];
  const DataflowGraph& g = *s->graph;
  std::map<std::string, int> index;
  for (int v = 0; v < g.nodeCount(); ++v) index[g.node(v).id] = v;
  std::vector<int> there(g.nodeCount(), -1);
  int found = 0;
  try {
    for (const sessions::NodePlacement& n : sessions::loadPlacement(*store, other.id).nodes)
      if (const auto it = index.find(n.node_id); it != index.end()) {
        there[it->second] = n.device;
        ++found;
      }
    // Renamed identical GPUs are not moves (the same matching as `doppler runs compare`).
    std::vector<int> map(std::max(s->devices->size(), other.device_count));
    for (int d = 0; d < static_cast<int>(map.size()); ++d) map[d] = d;
    if (other.device_set_id && sameDevices(store->loadDeviceSet(*other.device_set_id), *s->devices))
      map = matchDevices(*s->devices, s->assignment, there);
    for (int& d : there)
      if (d >= 0 && d < static_cast<int>(map.size())) d = map[d];
  } catch (const std::exception& e) {
    window_->showError(tr("Run %1 was not compared on the graph: %2")
                           .arg(other.id)
                           .arg(QString::fromUtf8(e.what())));
    scene->clearComparison();
    return;
  }
  if (found == 0) {
    scene->clearComparison();
    window_->statusBar()->showMessage(
        tr("Run %1 is of another graph: the graph shows no comparison").arg(other.id), 8000);
    return;
  }
  GraphScene::Comparison comparison;
  comparison.shown = QString::fromStdString(s->settings.method);
  comparison.other = tr("run %1 (%2)").arg(other.id).arg(QString::fromStdString(other.method));
  comparison.against = s;
  for (int v = 0; v < g.nodeCount(); ++v)
    if (there[v] >= 0 && there[v] != s->assignment[v]) comparison.moves.push_back({v, there[v]});
  const int moves = static_cast<int>(comparison.moves.size());
  scene->setComparison(std::move(comparison));
  window_->graphView()->viewport()->update();
  window_->statusBar()->showMessage(
      tr("The graph compares the shown placement with run %1: %n node(s) "
         "elsewhere, ringed (Esc leaves)",
         nullptr, moves)
          .arg(other.id),
      8000);
}

std::vector<int64_t> RunsPage::recordSampleRuns() {
  // For the grabs: the open graph placed by a heuristic and by two seeded searches, recorded as
  // `doppler place` records them (figures, placement, timeline, best makespan by evaluation).
  std::vector<int64_t> ids;
  const SnapshotPtr s = window_->document()->snapshot();
  sessions::RunStore* store = controller_->store();
  if (!s || !store) return ids;
  struct Sample {
    const char* method;
    uint64_t seed;
    long budget;
  };
  for (const Sample& sample : {Sample{"critical-path", 1, 0}, Sample{"local-search", 1, 10000},
                               Sample{"local-search", 2, 30000}}) {
    PlaceRequest request;
    request.graph = s->graph.get();
    request.devices = s->devices.get();
    request.costs = s->costs.get();
    request.settings.method = sample.method;
    request.settings.seed = sample.seed;
    if (sample.budget > 0) request.settings.budget = sample.budget;
    std::vector<std::pair<long, double>> progress;
    request.progress = [&](const Progress& p) {
      progress.emplace_back(p.done, p.best_makespan_us);
    };
    const PlaceOutcome outcome = placeAndSimulate(request);
    sessions::RunSpec spec;
    spec.kind = "place";
    spec.method = sample.method;
    spec.seed = sample.seed;
    spec.params = {{"budget", sample.budget}, {"devices", s->devices_spec}};
    spec.graph_id = store->putGraph(*s->graph);
    spec.device_set_id = store->putDeviceSet(*s->devices);
    const int64_t run = store->beginRun(spec);
    if (!progress.empty()) {
      sessions::MetricWriter metrics(*store, run);
      for (const auto& [done, best] : progress) metrics.append("best_makespan_us", done, best);
      metrics.append("best_makespan_us", static_cast<int64_t>(outcome.placement.evaluations),
                     outcome.makespan());
    }
    store->savePlacement(run, sessions::placementRecord(*s->graph, outcome.placement.assignment,
                                                        outcome.placement.order));
    store->saveTimeline(run,
                        sessions::timelineRecord(*s->graph, outcome.sim.schedule, "simulated"));
    store->setFigures(
        run, {{"makespan_us", outcome.makespan()}, {"lower_bound_us", outcome.lower_bound_us}});
    store->finishRun(run, sessions::RunStatus::Finished);
    ids.push_back(run);
  }
  if (ids.size() == 3) {
    store->addTag(ids[0], "baseline");
    store->addTag(ids[2], "candidate");
    store->addTag(ids[2], views::runNameTag(QStringLiteral("longer search")).toStdString());
  }
  controller_->refresh();
  return ids;
}

}  // namespace doppler::studio

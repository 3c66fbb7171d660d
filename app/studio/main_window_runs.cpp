// MainWindow, the runs part: the "Runs" dock over the current session (kept live while other
// processes write it), the comparison window, and File > New Session, Open Session, Save Session
// As and Recent Sessions. The session logic is sessions::Session; the store's reads and writes go
// through RunsController; this file only wires them to the dock, the menus and the banner.
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <map>

#include "app/studio/main_window.h"
#include "app/studio/runs_controller.h"
#include "app/studio/studio_document.h"
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

QString MainWindow::sessionPath() const {
  return runs_ ? runs_->path() : QString();
}

void MainWindow::buildRuns() {
  runs_ = new RunsController(this);
  runsPanel_ = new RunsPanel;
  runsPanel_->setObjectName(QStringLiteral("runsPanel"));
  runsDock_ = new QDockWidget(tr("Runs"), this);
  runsDock_->setObjectName(QStringLiteral("runsDock"));
  runsDock_->setWidget(runsPanel_);
  // With the nodes and events (resetLayout): the bottom is where tables live, and the runs table
  // is wide.
  runsDock_->hide();
  viewMenu_->addAction(runsDock_->toggleViewAction());

  runCompare_ = new RunCompareView(this);
  runCompare_->setWindowFlag(Qt::Window);
  runCompare_->setWindowTitle(tr("Compare runs"));
  runCompare_->resize(1320, 860);

  connect(runs_, &RunsController::runsChanged, runsPanel_,
          [this](const std::vector<sessions::RunInfo>& runs) { runsPanel_->setRuns(runs); });
  connect(runs_, &RunsController::sessionChanged, this, [this](const QString& path) {
    runsDock_->setWindowTitle(tr("Runs — %1").arg(QFileInfo(path).fileName()));
    updateTitle();
  });
  auto report = [this](bool ok, const QString& error) {
    if (!ok) showError(tr("%1: %2").arg(sessionPath(), error));
  };
  connect(runsPanel_, &RunsPanel::tagRequested, this,
          [this, report](const QList<qint64>& ids, const QString& tag, bool remove) {
            QString error;
            report(runs_->tag(ids, tag, remove, &error), error);
          });
  connect(runsPanel_, &RunsPanel::noteRequested, this,
          [this, report](const QList<qint64>& ids, const QString& text) {
            QString error;
            report(runs_->note(ids, text, &error), error);
          });
  connect(runsPanel_, &RunsPanel::renameRequested, this,
          [this, report](qint64 id, const QString& name) {
            QString error;
            report(runs_->rename(id, name, &error), error);
          });
  connect(runsPanel_, &RunsPanel::deleteRequested, this, [this, report](const QList<qint64>& ids) {
    QString error;
    report(runs_->remove(ids, &error), error);
  });
  connect(runsPanel_, &RunsPanel::compareRequested, this, &MainWindow::compareRuns);
  connect(runCompare_, &RunCompareView::movedNodesChanged, this, &MainWindow::markMovedNodes);
  // Closing the comparison leaves it on the graph too.
  connect(runCompare_, &RunCompareView::closed, graphView_->graphScene(),
          &GraphScene::clearComparison);

  QString error;
  if (!runs_->open(RunsController::startupPath(), &error))
    showError(tr("The session was not opened: %1").arg(error));
}

bool MainWindow::openSession(const QString& path) {
  QString error;
  if (!runs_->open(path, &error)) {
    // The session that was open stays open: the controller only switches after every check.
    showError(tr("Session not opened: %1").arg(error));
    return false;
  }
  clearError();
  rememberSession();
  statusBar()->showMessage(tr("Session %1: %n run(s)", nullptr, int(runs_->runs().size()))
                               .arg(QDir::toNativeSeparators(path)),
                           6000);
  return true;
}

bool MainWindow::newSession(const QString& path) {
  QString error;
  if (!runs_->create(path, &error)) {
    showError(tr("Session not created: %1").arg(error));
    return false;
  }
  clearError();
  rememberSession();
  return true;
}

bool MainWindow::saveSessionAs(const QString& path) {
  QString error;
  if (!runs_->saveAs(path, &error)) {
    showError(tr("Session not saved: %1").arg(error));
    return false;
  }
  clearError();
  rememberSession();
  statusBar()->showMessage(tr("Session saved as %1").arg(QDir::toNativeSeparators(path)), 6000);
  return true;
}

void MainWindow::rememberSession() {
  // Tests and grabs (fresh) never touch the user's recent list.
  if (options_.fresh || !runs_->isOpen()) return;
  try {
    sessions::rememberRecentSession(runs_->path().toStdString());
  } catch (const std::exception& e) {
    statusBar()->showMessage(QString::fromUtf8(e.what()), 6000);
  }
}

void MainWindow::addSessionActions(QMenu* file) {
  QAction* create = file->addAction(tr("New &Session…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("New session"), QStringLiteral("session.sqlite"), kSessionFilter);
    if (path.isEmpty()) return;
    // The dialog has asked about overwriting; a new session never reuses an old file's content.
    if (QFileInfo::exists(path) && !QFile::remove(path)) {
      showError(tr("%1: cannot replace the file").arg(path));
      return;
    }
    newSession(path);
  });
  create->setObjectName(QStringLiteral("actionNewSession"));
  file->addAction(tr("Open S&ession…"), this,
                  [this] {
                    const QString path = QFileDialog::getOpenFileName(
                        this, tr("Open session"), QFileInfo(sessionPath()).absolutePath(),
                        kSessionFilter);
                    if (!path.isEmpty()) openSession(path);
                  })
      ->setObjectName(QStringLiteral("actionOpenSession"));
  file->addAction(tr("Save Session &As…"), this,
                  [this] {
                    const QString path = QFileDialog::getSaveFileName(
                        this, tr("Save session as"), QFileInfo(sessionPath()).absolutePath(),
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
        showError(QString::fromUtf8(e.what()));
      }
    });
  });
}

void MainWindow::showRuns() {
  runsDock_->show();
  runsDock_->raise();
}

void MainWindow::compareRuns(const QList<qint64>& ids) {
  QString error;
  RunComparison comparison = runs_->comparison(ids, &error);
  if (comparison.runs.empty()) {
    showError(tr("The runs were not compared: %1").arg(error));
    return;
  }
  runCompare_->setComparison(std::move(comparison));
  runCompare_->show();
  runCompare_->raise();
}

void MainWindow::markMovedNodes(const QStringList&) {
  // The graph compares what it shows with the comparison's second run: its nodes that sit on
  // another device there are ringed in that device's colour, the fill stays the shown
  // placement's. Only nodes of the open graph (matched by id): the runs may be of another graph.
  GraphScene* scene = graphView_->graphScene();
  const SnapshotPtr s = document_->snapshot();
  const RunComparison& c = runCompare_->comparison();
  sessions::RunStore* store = runs_->store();
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
    showError(tr("Run %1 was not compared on the graph: %2")
                  .arg(other.id)
                  .arg(QString::fromUtf8(e.what())));
    scene->clearComparison();
    return;
  }
  if (found == 0) {
    scene->clearComparison();
    statusBar()->showMessage(
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
  graphView_->viewport()->update();
  statusBar()->showMessage(tr("The graph compares the shown placement with run %1: %n node(s) "
                              "elsewhere, ringed (Esc leaves)",
                              nullptr, moves)
                               .arg(other.id),
                           8000);
}

std::vector<int64_t> MainWindow::recordSampleRuns() {
  // For the grabs: the open graph placed by a heuristic and by two seeded searches, recorded as
  // `doppler place` records them (figures, placement, timeline, best makespan by evaluation).
  std::vector<int64_t> ids;
  const SnapshotPtr s = document_->snapshot();
  sessions::RunStore* store = runs_->store();
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
  runs_->refresh();
  return ids;
}

}  // namespace doppler::studio

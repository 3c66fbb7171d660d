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
#include "core/pipeline/place_and_simulate.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"
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
  // With the nodes and events: the bottom is where tables live, and the runs table is wide.
  addDockWidget(Qt::BottomDockWidgetArea, runsDock_);
  tabifyDockWidget(nodesDock_, runsDock_);
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

void MainWindow::markMovedNodes(const QStringList& ids) {
  // Only nodes of the graph that is open: the runs may be of another graph. The first run's
  // placement against the second's colours them (from -> to); the rest are marked.
  const auto graph = document_->graph();
  std::vector<int> nodes;
  std::vector<GraphScene::ComparedMove> moves;
  std::map<std::string, int> index;
  if (graph)
    for (int v = 0; v < graph->nodeCount(); ++v) index[graph->node(v).id] = v;
  // From whichever comparison asked: the compare window, or the first start's docked one.
  const auto* view = qobject_cast<const RunCompareView*>(sender());
  const RunComparison& c = (view ? view : runCompare_)->comparison();
  if (!c.diffs.empty())
    for (const sessions::MovedNode& m : c.diffs.front().moved)
      if (const auto it = index.find(m.node_id); it != index.end())
        moves.push_back({it->second, m.from, m.to});
  for (const QString& id : ids)
    if (const auto it = index.find(id.toStdString()); it != index.end())
      nodes.push_back(it->second);
  graphView_->graphScene()->setComparedMoves(std::move(moves));
  graphView_->graphScene()->setMarked(nodes);
  graphView_->viewport()->update();
  if (!nodes.empty())
    statusBar()->showMessage(
        tr("%n moved node(s) marked in the graph", nullptr, static_cast<int>(nodes.size())), 6000);
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

#include "app/studio/window/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QScreen>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>
#include <utility>

#include "app/studio/dialogs/onnx_prompt.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/jobs/layout_requests.h"
#include "app/studio/panels/execution_page.h"
#include "app/studio/panels/first_start.h"
#include "app/studio/panels/first_start_page.h"
#include "app/studio/panels/fleet_page.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/panels/stepper_page.h"
#include "app/studio/panels/training_page.h"
#include "app/studio/window/error_banner.h"
#include "app/studio/window/help_overlay.h"
#include "app/studio/window/presentation_mode.h"
#include "app/studio/window/studio_toolbar.h"
#include "views/common/selection_state.h"
#include "views/common/theme.h"
#include "views/fleet/fleet_workbench.h"
#include "views/graph/graph_view.h"
#include "views/runs/runs_panel.h"
#include "views/timeline/timeline_view.h"
#include "views/training/training_dashboard.h"
#include "views/tuner/settings_history_chart.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

using namespace doppler::views;

namespace {

// Gives a panel below the views `share` of the window's height when it is shown much smaller,
// or `enough` pixels where its content needs no more; one much taller than that is brought down
// to it (the views above keep the room).
void giveRoom(QMainWindow& window, QDockWidget* dock, double share, int enough = 0) {
  if (!dock->isVisible() || dock->isFloating() ||
      window.dockWidgetArea(dock) != Qt::BottomDockWidgetArea)
    return;
  int wanted = static_cast<int>(window.height() * share);
  if (enough > 0) wanted = std::min(wanted, enough);
  if (dock->height() < wanted * 0.8 || (enough > 0 && dock->height() > wanted * 1.25))
    window.resizeDocks({dock}, {wanted}, Qt::Vertical);
}

}  // namespace

MainWindow::MainWindow(const StudioOptions& options, QWidget* parent)
    : QMainWindow(parent),
      options_(options),
      settings_(options.fresh),
      jobs_(new JobRunner(this)) {  // first child: destroyed first, joining its threads
  setObjectName(QStringLiteral("mainWindow"));
  document_ = new StudioDocument(jobs_, this);
  selection_ = new SelectionState(this);
  graphView_ = new GraphView(selection_);
  timelineView_ = new TimelineView(selection_);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName(QStringLiteral("centreSplitter"));
  splitter->addWidget(graphView_);
  splitter->addWidget(timelineView_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setChildrenCollapsible(false);
  splitter->setSizes({520, 380});
  banner_ = new ErrorBanner;
  auto* centre = new QWidget;
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->setSpacing(2);
  centreLayout->addWidget(banner_);
  centralStack_ = new QStackedWidget;
  centralStack_->setObjectName(QStringLiteral("centralStack"));
  centralStack_->addWidget(splitter);
  centreLayout->addWidget(centralStack_, 1);
  setCentralWidget(centre);
  presentation_ = new PresentationMode(this, graphView_, timelineView_);
  layouts_ = new LayoutRequests(this);

  // Before the Runs page opens the default session: on first start it opens the demo's copy.
  QString firstStartError;
  // Grabs and tests (fresh) leave the user's data alone.
  firstStart_ = !options_.fresh && installDemoSession(&firstStartError);
  if (firstStart_ && options_.file.isEmpty()) options_.demo = true;  // the graph the runs are of

  // The shipped general policy is a method (and a start of local search) where its weights are
  // installed: registered before the toolbar and the tuner list the methods.
  document_->setGeneralPolicy(registerShippedGeneralPolicy());
  // The menus first, each feature then adding its entries and docks to them.
  menus_ = new WindowMenus(this);
  toolbar_ = new StudioToolbar(menus_->recentMenu(), this);
  addToolBar(toolbar_);
  setDockNestingEnabled(true);
  docks_ = new PlacementDocks(this);
  runs_ = new RunsPage(this);
  stepper_ = new StepperPage(this);
  training_ = new TrainingPage(this);
  fleet_ = new FleetPage(this);
  execution_ = new ExecutionPage(this);
  onnx_ = new OnnxPrompt(this);
  presentation_->setCompanion(stepper_->dock());
  menus_->finish();
  resetLayout();
  connectParts();
  setAcceptDrops(true);
  // 1500 x 950, or the screen's available area where that is smaller (a laptop at 1366 x 768).
  QSize size(1500, 950);
  if (const QScreen* screen = this->screen()) size = size.boundedTo(screen->availableSize());
  resize(size);
  restoreSession();
  if (!firstStartError.isEmpty()) showError(firstStartError);
  if (firstStart_) showFirstStart(*this);
}

MainWindow::~MainWindow() {
  for (QObject* child : findChildren<QObject*>()) child->blockSignals(true);
}

QString MainWindow::sessionPath() const {
  return runs_ ? runs_->sessionPath() : QString();
}

void MainWindow::connectParts() {
  // The document's failures (a file, an ONNX import, a placement) go to the banner.
  connect(document_, &StudioDocument::openFailed, this, &MainWindow::showError);
  // A large text graph is read off the GUI thread: say so until it opens or fails.
  connect(document_, &StudioDocument::loadStarted, this, [this](const QString& path) {
    const QFileInfo info(path);
    statusBar()->showMessage(tr("Reading %1 (%2 MB)…")
                                 .arg(info.fileName())
                                 .arg(static_cast<double>(info.size()) / 1e6, 0, 'f', 1));
  });
  connect(document_, &StudioDocument::loaded, this, [this](const QString& path) {
    const auto graph = document_->graph();
    statusBar()->showMessage(tr("Opened %1: %2 nodes")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(graph ? graph->nodeCount() : 0),
                             10000);
  });
  connect(document_, &StudioDocument::graphChanged, this, &MainWindow::onGraphChanged);
  connect(document_, &StudioDocument::snapshotChanged, this, &MainWindow::onSnapshotChanged);
  connect(document_, &StudioDocument::devicesChanged, this, [this] {
    toolbar_->showDevicesSpec(document_->devicesSpec());
    updateTitle();
  });
  connect(document_, &StudioDocument::computeFailed, this, &MainWindow::showError);
  // A panel below the views opened alone keeps the few rows the area last had (the training
  // charts opened 150 px tall): it gets a useful share of the height once shown.
  for (QDockWidget* d :
       QList<QDockWidget*>{runs_->dock(), training_->dock()} + docks_->bottomDocks())
    connect(d, &QDockWidget::visibilityChanged, this, [this, d](bool visible) {
      if (!visible) return;
      // The training charts want more of the height than a table.
      const double share = d == training_->dock() ? 0.45 : 0.3;
      QTimer::singleShot(0, this, [this, d, share] {
        // The runs table: its rows, up to eight, and its title.
        const int enough = d == runs_->dock()
                               ? runs_->panel()->heightForRows(8) +
                                     d->style()->pixelMetric(QStyle::PM_TitleBarHeight)
                               : 0;
        giveRoom(*this, d, share, enough);
      });
    });
  connect(document_, &StudioDocument::busyChanged, this, [this](bool busy) {
    if (busy) statusBar()->showMessage(tr("Searching…"));
  });

  connect(toolbar_, &StudioToolbar::openRequested, menus_, &WindowMenus::openDialog);
  connect(toolbar_, &StudioToolbar::devicesChosen, this, &MainWindow::chooseDevices);
  TunerWidget* tuner = docks_->tuner();
  connect(tuner, &TunerWidget::devicesChanged, this, &MainWindow::chooseDevices);
  connect(toolbar_, &StudioToolbar::methodChosen, this, [this, tuner](const QString& method) {
    PlacementSettings s = tuner->settings();
    if (s.method == method.toStdString()) return;
    s.method = method.toStdString();
    s.params.clear();
    tuner->setSettings(s);
    document_->setSettings(tuner->settings());
  });

  // Large graphs: the timeline outlines the other members of the group the graph draws the
  // selected node in.
  auto outlineGroup = [this] {
    const DisplayGraphPtr& display = graphView_->display();
    const int shown = display ? display->shownOf(selection_->selected()) : -1;
    if (shown >= 0 && display->isGroup(shown)) {
      const auto members = display->members(shown);
      timelineView_->setGroupNodes(std::vector<int>(members.begin(), members.end()));
    } else {
      timelineView_->setGroupNodes({});
    }
  };
  connect(graphView_, &GraphView::displayChanged, this, outlineGroup);
  connect(selection_, &SelectionState::selectedChanged, this, outlineGroup);
  connect(presentation_, &PresentationMode::activeChanged, this, [this](bool on) {
    // Labels read from the back of a room: at least 14 px, the graph filling its breadth.
    graphView_->setMinimumLabelPixels(on ? 14 : 0);
    QTimer::singleShot(0, this, [this] {
      graphView_->fitAll();
      timelineView_->fit();
    });
  });
}

void MainWindow::chooseDevices(const QString& spec) {
  if (spec == document_->devicesSpec()) return;
  QString error;
  if (document_->setDevicesSpec(spec, &error)) return;
  showError(error);
  docks_->tuner()->showError(error);
  toolbar_->showDevicesSpec(document_->devicesSpec());
  docks_->tuner()->setDevicesSpec(document_->devicesSpec());
}

void MainWindow::onGraphChanged() {
  selection_->clear();
  timelineView_->setRange(std::nullopt);
  if (const views::DisplayGraphPtr prepared = document_->preparedDisplay())
    graphView_->setDisplay(prepared);
  else
    graphView_->setGraph(document_->drawing());
  const auto g = document_->graph();
  QString name = g ? QString::fromStdString(g->name) : QString();
  if (name.isEmpty()) name = QFileInfo(document_->graphSource()).completeBaseName();
  toolbar_->showGraph(g ? tr("%1 (%2 nodes)").arg(name).arg(g->nodeCount()) : tr("none"),
                      document_->graphSource());
  if (QFileInfo::exists(document_->graphSource())) menus_->addRecent(document_->graphSource());
  updateTitle();
}

void MainWindow::onSnapshotChanged() {
  const SnapshotPtr s = document_->snapshot();
  if (!s) return;
  SnapshotPtr previous = std::exchange(shown_, s);
  clearError();
  graphView_->setSnapshot(s);
  timelineView_->setSnapshot(s);
  docks_->showSnapshot(s);  // after the timeline: the devices table takes its range
  toolbar_->showSnapshot(*s);
  // Every view now holds the new placement: the old one, when this is its last reference, is
  // freed off the GUI thread.
  jobs_->releaseLater(std::move(previous));
  statusBar()->showMessage(
      tr("%1: %2 in %3 ms%4")
          .arg(QString::fromStdString(s->settings.method), formatDuration(s->makespan()))
          .arg(s->compute_ms, 0, 'f', 1)
          .arg(layouts_->status().isEmpty() ? QString()
                                            : QStringLiteral(" · ") + layouts_->status()),
      8000);
  updateTitle();
}

QString MainWindow::makespanReadout() const {
  return toolbar_->makespanText();
}

void MainWindow::updateTitle() {
  const auto g = document_->graph();
  const auto d = document_->devices();
  QString title = tr("Doppler Studio");
  if (g)
    title += QStringLiteral(" — %1 on %2")
                 .arg(QString::fromStdString(g->name),
                      d ? QString::fromStdString(d->name) : QStringLiteral("?"));
  // The session runs are recorded into and listed from: its file name (the full path in the
  // Runs dock's tooltip and the File menu).
  if (!sessionPath().isEmpty())
    title += QStringLiteral(" — %1").arg(QFileInfo(sessionPath()).fileName());
  setWindowTitle(title);
}

void MainWindow::showError(const QString& message) {
  lastError_ = message;
  banner_->showMessage(message);
  if (!presentation_->active()) banner_->show();
  statusBar()->showMessage(message, 10000);
}

void MainWindow::clearError() {
  banner_->hide();
}

bool MainWindow::openFile(const QString& path) {
  QString error;
  if (!document_->openFile(path, &error)) {
    showError(error.isEmpty() ? tr("%1: could not be opened").arg(path) : error);
    return false;
  }
  clearError();
  return true;
}

void MainWindow::loadDemo() {
  QString error;
  if (!document_->loadDemo(&error)) showError(error);
}

bool MainWindow::presentationMode() const {
  return presentation_->active();
}

void MainWindow::setPresentationMode(bool on) {
  if (on)
    presentation_->enter(menus_->focusedSource() == timelineView_
                             ? static_cast<QWidget*>(timelineView_)
                             : graphView_);
  else
    presentation_->leave();
}

void MainWindow::setDarkTheme(bool dark) {
  Theme::setDark(dark, qobject_cast<QApplication*>(QCoreApplication::instance()));
  menus_->showDarkTheme(dark);
  docks_->applyTheme();
  training_->dashboard()->applyTheme();
  fleet_->workbench()->update();
  if (const SnapshotPtr s = document_->snapshot()) {
    graphView_->setSnapshot(s);
    timelineView_->setSnapshot(s);
  }
  graphView_->viewport()->update();
  timelineView_->viewport()->update();
  settings_.setDarkTheme(dark);
}

bool MainWindow::isSettled() const {
  if (!jobs_->idle()) return false;
  if (!document_->graph()) return true;
  return graphView_->hasLayout() && document_->snapshot();
}

bool MainWindow::waitSettled(int timeout_ms) {
  jobs_->waitIdle(timeout_ms);
  return isSettled();
}

void MainWindow::resetLayout() {
  // One tab group beside the views (what explains the placement) and one below them (the tables
  // and the charts that want width): opening a dock adds a tab, never a stacked panel, so the
  // window's least size stays that of the views and one panel whatever is open.
  QList<QDockWidget*> side = docks_->sideDocks();
  side.insert(1, stepper_->dock());
  const QList<QDockWidget*> below =
      QList<QDockWidget*>{runs_->dock(), training_->dock()} + docks_->bottomDocks();
  for (QDockWidget* d : side) {
    d->setFloating(false);
    addDockWidget(Qt::RightDockWidgetArea, d);
  }
  for (QDockWidget* d : below) {
    d->setFloating(false);
    addDockWidget(Qt::BottomDockWidgetArea, d);
  }
  for (qsizetype i = 1; i < side.size(); ++i) tabifyDockWidget(side.front(), side[i]);
  for (qsizetype i = 1; i < below.size(); ++i) tabifyDockWidget(below.front(), below[i]);
  for (QDockWidget* d : docks_->sideDocks()) d->show();
  for (QDockWidget* d : below) d->hide();
  stepper_->dock()->hide();
  side.front()->raise();
  resizeDocks({side.front()}, {360}, Qt::Horizontal);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) return event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) openFile(url.toLocalFile());
  event->acceptProposedAction();
}

}  // namespace doppler::studio

#include "app/studio/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "app/studio/error_banner.h"
#include "app/studio/first_start.h"
#include "app/studio/help_overlay.h"
#include "app/studio/job_runner.h"
#include "app/studio/layout_job.h"
#include "app/studio/onnx_dims_dialog.h"
#include "app/studio/presentation_mode.h"
#include "app/studio/studio_document.h"
#include "app/studio/studio_toolbar.h"
#include "views/common/node_details.h"
#include "views/common/selection_state.h"
#include "views/common/theme.h"
#include "views/fleet/fleet_workbench.h"
#include "views/graph/graph_view.h"
#include "views/models/device_summary_model.h"
#include "views/models/node_table_model.h"
#include "views/models/schedule_model.h"
#include "views/timeline/timeline_view.h"
#include "views/training/training_dashboard.h"
#include "views/tuner/settings_history_chart.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

using namespace doppler::views;

MainWindow::MainWindow(const StudioOptions& options, QWidget* parent)
    : QMainWindow(parent),
      options_(options),
      settings_(options.fresh),
      jobs_(new JobRunner(this)),  // first child: destroyed first, joining its threads
      layoutCache_(std::make_shared<LayoutCache>()) {
  setObjectName(QStringLiteral("mainWindow"));
  document_ = new StudioDocument(jobs_, this);
  selection_ = new SelectionState(this);
  graphView_ = new GraphView(selection_);
  timelineView_ = new TimelineView(selection_);
  splitter_ = new QSplitter(Qt::Vertical);
  splitter_->setObjectName(QStringLiteral("centreSplitter"));
  splitter_->addWidget(graphView_);
  splitter_->addWidget(timelineView_);
  splitter_->setStretchFactor(0, 3);
  splitter_->setStretchFactor(1, 2);
  splitter_->setChildrenCollapsible(false);
  splitter_->setSizes({520, 380});
  banner_ = new ErrorBanner;
  auto* centre = new QWidget;
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->setSpacing(2);
  centreLayout->addWidget(banner_);
  centralStack_ = new QStackedWidget;
  centralStack_->setObjectName(QStringLiteral("centralStack"));
  centralStack_->addWidget(splitter_);
  centreLayout->addWidget(centralStack_, 1);
  setCentralWidget(centre);
  presentation_ = new PresentationMode(this, graphView_, timelineView_);

  nodeModel_ = new NodeTableModel(this);
  scheduleModel_ = new ScheduleModel(this);
  deviceModel_ = new DeviceSummaryModel(this);
  nodeProxy_ = new QSortFilterProxyModel(this);
  nodeProxy_->setSourceModel(nodeModel_);

  // Before the Runs dock opens the default session: on first start it opens the demo's copy.
  QString firstStartError;
  // Grabs and tests (fresh) leave the user's data alone.
  firstStart_ = !options_.fresh && installDemoSession(&firstStartError);
  if (firstStart_ && options_.file.isEmpty()) options_.demo = true;  // the graph the runs are of

  buildActions();
  toolbar_ = new StudioToolbar(recentMenu_, this);
  addToolBar(toolbar_);
  buildDocks();
  connectParts();
  setAcceptDrops(true);
  // 1500 x 950, or the screen's available area where that is smaller (a laptop at 1366 x 768).
  QSize size(1500, 950);
  if (const QScreen* screen = this->screen()) size = size.boundedTo(screen->availableSize());
  resize(size);
  restoreSession();
  if (!firstStartError.isEmpty()) showError(firstStartError);
  if (firstStart_) showFirstStart();
}

MainWindow::~MainWindow() = default;

void MainWindow::connectParts() {
  // Layout: the graph view asks, the runner's layout slot (the one Graphviz thread) answers.
  connect(graphView_, &GraphView::layoutRequested, this,
          [this](std::shared_ptr<const LayoutInput> input) {
            statusBar()->showMessage(
                tr("Laying out %1 nodes with Graphviz %2… (Esc cancels)")
                    .arg(input->nodeCount())
                    .arg(QString::fromLatin1(layoutEngineFor(input->nodeCount()))));
            jobs_->start<LayoutOutcome>(
                JobSlot::Layout,
                // The job holds the cache: the window's members go before its child JobRunner
                // joins the layout thread, and an abandoned layout may still be finishing.
                [cache = layoutCache_, input](const JobContext& ctx) {
                  return runLayout(*cache, *input, ctx.cancel());
                },
                [this](LayoutOutcome outcome) {
                  if (!outcome.result) return;
                  graphView_->setLayoutResult(outcome.result);
                  if (!outcome.result->error.isEmpty()) showError(outcome.result->error);
                  const QString engine = outcome.result->engine.isEmpty()
                                             ? tr("grid")
                                             : tr("Graphviz %1").arg(outcome.result->engine);
                  layoutStatus_ = outcome.cached ? tr("layout from cache")
                                                 : tr("%1 layout of %2 nodes %3 s")
                                                       .arg(engine)
                                                       .arg(outcome.result->centers.size())
                                                       .arg(outcome.result->seconds, 0, 'f', 2);
                  statusBar()->showMessage(layoutStatus_, 8000);
                },
                [this](const QString& error) { showError(error); });
          });
  // Abandoned: the Graphviz call cannot be interrupted, so the layout thread finishes it in the
  // background (and caches it); its delivery is dropped. A later layout waits for that call.
  connect(graphView_, &GraphView::layoutCancelRequested, this, [this] {
    jobs_->abandon(JobSlot::Layout);
    statusBar()->showMessage(tr("Layout abandoned; the view keeps what it showed"), 8000);
  });

  // ONNX models: imported on the import slot; dynamic dimensions are asked for.
  connect(document_, &StudioDocument::openFailed, this, &MainWindow::showError);
  connect(document_, &StudioDocument::dimsNeeded, this, &MainWindow::askOnnxDims);
  connect(document_, &StudioDocument::imported, this,
          [this](const QString& path, const QString& notes) {
            importNotes_ = notes;
            // The notes (ops costed by output bytes, external weights) stay in a permanent corner
            // of the status bar while the model is open: passing messages would replace them.
            if (!importLabel_) {
              importLabel_ = new QLabel(this);
              statusBar()->addPermanentWidget(importLabel_);
            }
            importLabel_->setText(notes.isEmpty() ? QString() : tr("ONNX: %1").arg(notes));
            importLabel_->setToolTip(notes);
            importLabel_->setVisible(!notes.isEmpty());
            statusBar()->showMessage(
                notes.isEmpty() ? tr("Imported %1").arg(QFileInfo(path).fileName())
                                : tr("Imported %1 · %2").arg(QFileInfo(path).fileName(), notes),
                20000);
          });

  connect(document_, &StudioDocument::graphChanged, this, &MainWindow::onGraphChanged);
  connect(document_, &StudioDocument::snapshotChanged, this, &MainWindow::onSnapshotChanged);
  connect(document_, &StudioDocument::devicesChanged, this, [this] {
    toolbar_->showDevicesSpec(document_->devicesSpec());
    tuner_->setDevicesSpec(document_->devicesSpec());
    updateTitle();
  });
  connect(document_, &StudioDocument::computeFailed, this, [this](const QString& message) {
    showError(message);
    tuner_->showError(message);
  });
  connect(document_, &StudioDocument::busyChanged, this, [this](bool busy) {
    tuner_->setRunning(busy);
    if (busy) statusBar()->showMessage(tr("Searching…"));
  });
  connect(document_, &StudioDocument::progress, tuner_, &TunerWidget::setProgress);

  connect(toolbar_, &StudioToolbar::openRequested, this, &MainWindow::openDialog);
  connect(toolbar_, &StudioToolbar::devicesChosen, this, &MainWindow::chooseDevices);
  connect(tuner_, &TunerWidget::devicesChanged, this, &MainWindow::chooseDevices);
  connect(toolbar_, &StudioToolbar::methodChosen, this, [this](const QString& method) {
    PlacementSettings s = tuner_->settings();
    if (s.method == method.toStdString()) return;
    s.method = method.toStdString();
    s.params.clear();
    tuner_->setSettings(s);
    document_->setSettings(tuner_->settings());
  });
  connect(tuner_, &TunerWidget::settingsChanged, this, [this] {
    toolbar_->showMethod(QString::fromStdString(tuner_->settings().method));
    document_->setSettings(tuner_->settings());
  });
  connect(tuner_, &TunerWidget::cancelRequested, document_, &StudioDocument::cancel);
  connect(tuner_, &TunerWidget::rerunRequested, document_, &StudioDocument::recompute);

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
  connect(selection_, &SelectionState::selectedChanged, this, [this, outlineGroup](int v) {
    outlineGroup();
    details_->setHtml(detailsHtml(v));
    const QModelIndex proxy =
        nodeProxy_->mapFromSource(nodeModel_->index(nodeModel_->rowOfNode(v), 0));
    if (proxy.isValid() && nodeTable_->currentIndex().row() != proxy.row()) {
      QSignalBlocker block(nodeTable_->selectionModel());
      nodeTable_->setCurrentIndex(proxy);
      nodeTable_->scrollTo(proxy);
    }
    if (v >= 0 && detailsDock_->isVisible()) detailsDock_->raise();
  });
  connect(timelineView_, &TimelineView::rangeChanged, this, [this](bool on, double a, double b) {
    deviceModel_->setRange(on ? std::optional(std::make_pair(a, b)) : std::nullopt);
    if (!on) return;
    devicesDock_->raise();
    statusBar()->showMessage(
        tr("Range %1 – %2: see the Devices dock").arg(formatDuration(a), formatDuration(b)), 5000);
  });
  connect(graphView_, &GraphView::copyImageRequested, this, [this] { copyImage(*graphView_); });
  connect(graphView_, &GraphView::saveImageRequested, this,
          [this] { saveImageInteractively(*graphView_, this); });
  connect(timelineView_, &TimelineView::copyImageRequested, this,
          [this] { copyImage(*timelineView_); });
  connect(timelineView_, &TimelineView::saveImageRequested, this,
          [this] { saveImageInteractively(*timelineView_, this); });
  connect(timelineView_, &TimelineView::exportTraceRequested, this, &MainWindow::exportTrace);
  connect(presentation_, &PresentationMode::activeChanged, this, [this](bool on) {
    if (presentAction_->isChecked() != on) {
      QSignalBlocker block(presentAction_);
      presentAction_->setChecked(on);
    }
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
  tuner_->showError(error);
  toolbar_->showDevicesSpec(document_->devicesSpec());
  tuner_->setDevicesSpec(document_->devicesSpec());
}

void MainWindow::onGraphChanged() {
  selection_->clear();
  if (importLabel_ &&
      !document_->graphSource().endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive))
    importLabel_->hide();  // another graph: the model's notes no longer apply
  timelineView_->setRange(std::nullopt);
  graphView_->setGraph(document_->drawing());
  const auto g = document_->graph();
  QString name = g ? QString::fromStdString(g->name) : QString();
  if (name.isEmpty()) name = QFileInfo(document_->graphSource()).completeBaseName();
  toolbar_->showGraph(g ? tr("%1 (%2 nodes)").arg(name).arg(g->nodeCount()) : tr("none"),
                      document_->graphSource());
  if (QFileInfo::exists(document_->graphSource())) addRecent(document_->graphSource());
  updateTitle();
}

void MainWindow::onSnapshotChanged() {
  const SnapshotPtr s = document_->snapshot();
  if (!s) return;
  clearError();
  tuner_->showError(QString());
  graphView_->setSnapshot(s);
  timelineView_->setSnapshot(s);
  nodeModel_->setSnapshot(s);
  scheduleModel_->setSnapshot(s);
  deviceModel_->setSnapshot(s);
  deviceModel_->setRange(timelineView_->range());
  tuner_->showSnapshot(s);
  history_->addSnapshot(*s);
  toolbar_->showSnapshot(*s);
  if (selection_->selected() >= 0) details_->setHtml(detailsHtml(selection_->selected()));
  statusBar()->showMessage(
      tr("%1: %2 in %3 ms%4")
          .arg(QString::fromStdString(s->settings.method), formatDuration(s->makespan()))
          .arg(s->compute_ms, 0, 'f', 1)
          .arg(layoutStatus_.isEmpty() ? QString() : QStringLiteral(" · ") + layoutStatus_),
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

OnnxDimsDialog* MainWindow::dimsDialog() const {
  return dimsDialog_.data();
}

void MainWindow::askOnnxDims(const QString& path, const QStringList& names,
                             const QStringList& tensors, const QString& reason) {
  delete dimsDialog_;
  std::vector<OnnxDimsDialog::Dim> dims;
  for (int i = 0; i < names.size(); ++i)
    dims.push_back(
        {names[i], i < tensors.size() ? tensors[i] : QString(), settings_.onnxDim(names[i], 1)});
  dimsDialog_ = new OnnxDimsDialog(path, dims, reason, this);
  dimsDialog_->setAttribute(Qt::WA_DeleteOnClose);
  connect(dimsDialog_, &QDialog::accepted, this, [this, dialog = dimsDialog_.data()] {
    const auto values = dialog->values();
    for (const auto& [name, value] : values)
      settings_.setOnnxDim(QString::fromStdString(name), value);
    document_->openOnnx(dialog->path(), values);
  });
  dimsDialog_->open();  // window-modal, not blocking: the studio keeps what it shows
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
    presentation_->enter(focusedSource() == timelineView_ ? static_cast<QWidget*>(timelineView_)
                                                          : graphView_);
  else
    presentation_->leave();
}

void MainWindow::setDarkTheme(bool dark) {
  Theme::setDark(dark, qobject_cast<QApplication*>(QCoreApplication::instance()));
  if (darkAction_ && darkAction_->isChecked() != dark) {
    QSignalBlocker block(darkAction_);
    darkAction_->setChecked(dark);
  }
  history_->applyTheme();
  if (dashboard_) dashboard_->applyTheme();
  if (fleetWorkbench_) fleetWorkbench_->update();
  if (const SnapshotPtr s = document_->snapshot()) {
    graphView_->setSnapshot(s);
    timelineView_->setSnapshot(s);
    tuner_->showSnapshot(s);
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

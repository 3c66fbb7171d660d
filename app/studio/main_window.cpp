#include "app/studio/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/studio/generate_dialog.h"
#include "app/studio/help_overlay.h"
#include "app/studio/layout_worker.h"
#include "app/studio/studio_document.h"
#include "views/common/image_export.h"
#include "views/common/node_details.h"
#include "views/common/selection_state.h"
#include "views/common/theme.h"
#include "views/graph/graph_view.h"
#include "views/models/device_summary_model.h"
#include "views/models/node_table_model.h"
#include "views/models/schedule_model.h"
#include "views/timeline/timeline_view.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

using namespace doppler::views;

namespace {

constexpr int kMaxRecent = 8;

QTableView* makeTable(QAbstractItemModel* model) {
  auto* table = new QTableView;
  table->setModel(model);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setSortingEnabled(true);
  table->setAlternatingRowColors(true);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  return table;
}

QSortFilterProxyModel* sortProxy(QAbstractItemModel* model, QObject* parent) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(SortRole);
  proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy->setFilterKeyColumn(-1);
  return proxy;
}

}  // namespace

MainWindow::MainWindow(const StudioOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
  setObjectName(QStringLiteral("mainWindow"));
  qRegisterMetaType<doppler::views::LayoutResultPtr>("doppler::views::LayoutResultPtr");
  qRegisterMetaType<std::shared_ptr<const doppler::views::LayoutInput>>();
  document_ = new StudioDocument(this);
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

  banner_ = new QFrame;
  banner_->setObjectName(QStringLiteral("errorBanner"));
  banner_->setStyleSheet(QStringLiteral(
      "#errorBanner { background: #fdecea; border: 1px solid #e57373; border-radius: 4px; }"
      "#errorBanner QLabel { color: #8e1c1c; }"));
  auto* bannerLayout = new QHBoxLayout(banner_);
  bannerLayout->setContentsMargins(10, 6, 6, 6);
  auto* icon = new QLabel;
  icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(20, 20));
  bannerText_ = new QLabel;
  bannerText_->setObjectName(QStringLiteral("errorText"));
  bannerText_->setWordWrap(true);
  bannerText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* close = new QToolButton;
  close->setText(QStringLiteral("✕"));
  close->setAutoRaise(true);
  connect(close, &QToolButton::clicked, this, &MainWindow::clearError);
  bannerLayout->addWidget(icon);
  bannerLayout->addWidget(bannerText_, 1);
  bannerLayout->addWidget(close);
  banner_->hide();

  auto* centre = new QWidget;
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->setSpacing(2);
  centreLayout->addWidget(banner_);
  centreLayout->addWidget(splitter_, 1);
  setCentralWidget(centre);

  // The one Graphviz thread.
  layoutThread_ = new QThread(this);
  layoutThread_->setObjectName(QStringLiteral("graphviz"));
  layoutWorker_ = new LayoutWorker;
  layoutWorker_->moveToThread(layoutThread_);
  connect(layoutThread_, &QThread::finished, layoutWorker_, &QObject::deleteLater);
  layoutThread_->start();
  connect(graphView_, &GraphView::layoutRequested, this,
          [this](std::shared_ptr<const LayoutInput> input) {
            layoutPending_ = true;
            statusBar()->showMessage(
                tr("Laying out %1 nodes with Graphviz dot…").arg(input->nodeCount()));
            QMetaObject::invokeMethod(
                layoutWorker_, [w = layoutWorker_, input] { w->layout(input); },
                Qt::QueuedConnection);
          });
  connect(
      layoutWorker_, &LayoutWorker::layoutReady, this,
      [this](LayoutResultPtr result, bool cached) {
        graphView_->setLayoutResult(result);
        if (graphView_->hasLayout()) layoutPending_ = false;
        if (!result->error.isEmpty()) showError(result->error);
        layoutStatus_ = cached ? tr("layout from cache")
                               : tr("Graphviz dot layout %1 s").arg(result->seconds, 0, 'f', 2);
        statusBar()->showMessage(layoutStatus_, 8000);
      },
      Qt::QueuedConnection);

  nodeModel_ = new NodeTableModel(this);
  scheduleModel_ = new ScheduleModel(this);
  deviceModel_ = new DeviceSummaryModel(this);
  nodeProxy_ = sortProxy(nodeModel_, this);

  buildActions();
  rebuildRecentMenu();
  buildToolbar();
  buildDocks();

  help_ =
      new HelpOverlay({{tr("Files"), QString()},
                       {tr("Ctrl+O"), tr("open a graph or device file (or drop it on the window)")},
                       {tr("Ctrl+Shift+O"), tr("open a device set")},
                       {tr("Ctrl+G"), tr("generate a paper workload")},
                       {tr("Ctrl+Shift+C"), tr("copy a clean image of the focused view")},
                       {tr("Ctrl+Q"), tr("quit")},
                       {tr("Graph view"), QString()},
                       {tr("Wheel, + / -"), tr("zoom at the mouse / the centre")},
                       {tr("Drag, arrows"), tr("pan")},
                       {tr("F"), tr("fit the focused view")},
                       {tr("Ctrl+F"), tr("find a node by id or op (Enter: next)")},
                       {tr("Ctrl+K"), tr("critical path overlay on/off")},
                       {tr("Click / Esc"), tr("select a node / clear the selection")},
                       {tr("Timeline"), QString()},
                       {tr("Wheel, W / S"), tr("zoom in / out")},
                       {tr("Shift+wheel, A / D"), tr("pan earlier / later")},
                       {tr("Drag"), tr("select a range: utilization and idle time per device")},
                       {tr("Middle drag"), tr("pan")},
                       {tr("C"), tr("colour bars by op kind or by node")},
                       {tr("Esc"), tr("clear the range, then the selection")},
                       {tr("Studio"), QString()},
                       {tr("F5"), tr("presentation mode (Tab: other view, Esc: leave)")},
                       {tr("Ctrl+Shift+D"), tr("light / dark theme")},
                       {tr("?"), tr("this help")}},
                      this);

  connectDocument();
  setAcceptDrops(true);
  resize(1500, 950);

  if (!options_.fresh) restoreSettings();
  const bool dark =
      options_.dark
          ? *options_.dark
          : (!options_.fresh && QSettings().value(QStringLiteral("darkTheme"), false).toBool());
  if (dark) setDarkTheme(true);

  PlacementSettings initial;
  if (!options_.fresh) {
    const QString m = QSettings().value(QStringLiteral("method")).toString();
    if (!m.isEmpty()) initial.method = m.toStdString();
  }
  if (!options_.method.isEmpty()) initial.method = options_.method.toStdString();
  try {
    findMethod(initial.method);
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    initial.method = "critical-path";
  }
  tuner_->setSettings(initial);
  applyMethodToUi();
  document_->setSettings(tuner_->settings());

  QString devices = options_.devices;
  if (devices.isEmpty() && !options_.fresh)
    devices = QSettings().value(QStringLiteral("devices")).toString();
  if (!devices.isEmpty()) {
    QString error;
    if (!document_->setDevicesSpec(devices, &error)) showError(error);
  }

  bool opened = false;
  if (!options_.file.isEmpty()) opened = openFile(options_.file);
  if (!opened && options_.file.isEmpty() && !options_.demo && !options_.fresh) {
    QSettings settings;
    const QString last = settings.value(QStringLiteral("lastGraph")).toString();
    if (settings.value(QStringLiteral("firstRunDone"), false).toBool() && !last.isEmpty() &&
        QFileInfo::exists(last)) {
      QString error;
      opened = document_->openGraphFile(last, &error);
    }
  }
  if (!opened) {
    const QString keep = lastError_;
    loadDemo();
    if (!keep.isEmpty()) showError(keep);
  }
  if (!options_.fresh) QSettings().setValue(QStringLiteral("firstRunDone"), true);
}

MainWindow::~MainWindow() {
  layoutThread_->quit();
  layoutThread_->wait();
}

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton),
                                  tr("&Open Graph or Devices…"), this, &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  open->setObjectName(QStringLiteral("actionOpen"));
  QAction* openDevices =
      file->addAction(tr("Open &Device Set…"), this, &MainWindow::openDevicesDialog);
  openDevices->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  QAction* generate = file->addAction(style()->standardIcon(QStyle::SP_FileDialogNewFolder),
                                      tr("&Generate Workload…"), this, &MainWindow::generateDialog);
  generate->setShortcut(QKeySequence(tr("Ctrl+G")));
  generate->setObjectName(QStringLiteral("actionGenerate"));
  file->addAction(tr("Open the &Demo"), this, &MainWindow::loadDemo);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName(QStringLiteral("recentMenu"));
  // Sessions (the run store) go here: Open Session…, Save Session As… (sessions/, a later part).
  file->addSeparator()->setObjectName(QStringLiteral("sessionSection"));
  QMenu* exportMenu = file->addMenu(tr("&Export"));
  exportMenu->addAction(tr("Graph as PNG…"), this,
                        [this] { exportImage(graphView_, QStringLiteral("png")); });
  exportMenu->addAction(tr("Graph as SVG…"), this,
                        [this] { exportImage(graphView_, QStringLiteral("svg")); });
  exportMenu->addAction(tr("Timeline as PNG…"), this,
                        [this] { exportImage(timelineView_, QStringLiteral("png")); });
  exportMenu->addAction(tr("Timeline as SVG…"), this,
                        [this] { exportImage(timelineView_, QStringLiteral("svg")); });
  exportMenu->addAction(tr("Timeline as Chrome Trace JSON (Perfetto)…"), this,
                        &MainWindow::exportTrace);
  exportMenu->addAction(tr("Window as PNG…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save window image"), QStringLiteral("studio.png"), tr("PNG image (*.png)"));
    if (!path.isEmpty() && !grab().save(path, "PNG"))
      showError(tr("%1: cannot write the image").arg(path));
  });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* copy =
      edit->addAction(tr("&Copy Image of Focused View"), this, &MainWindow::copyFocusedImage);
  copy->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
  edit->addAction(tr("Copy Image of &Graph"), this, [this] { copyImageToClipboard(*graphView_); });
  edit->addAction(tr("Copy Image of &Timeline"), this,
                  [this] { copyImageToClipboard(*timelineView_); });
  edit->addSeparator();
  QAction* find = edit->addAction(tr("&Find Node…"), this, [this] {
    graphView_->setFocus();
    graphView_->showSearch();
  });
  find->setShortcut(QKeySequence::Find);
  find->setShortcutContext(Qt::WindowShortcut);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  viewMenu_->addAction(tr("Fit Graph and Timeline"), this, [this] {
    graphView_->fitAll();
    timelineView_->fit();
  });
  criticalAction_ = viewMenu_->addAction(tr("Show &Critical Path"));
  criticalAction_->setCheckable(true);
  criticalAction_->setChecked(true);
  criticalAction_->setShortcut(QKeySequence(tr("Ctrl+K")));
  connect(criticalAction_, &QAction::toggled, graphView_, &GraphView::setCriticalPathVisible);
  QAction* byNode = viewMenu_->addAction(tr("Colour Timeline by &Node"));
  byNode->setCheckable(true);
  connect(byNode, &QAction::toggled, this, [this](bool on) {
    timelineView_->setColorMode(on ? TimelineColorMode::Node : TimelineColorMode::OpKind);
  });
  darkAction_ = viewMenu_->addAction(tr("&Dark Theme"));
  darkAction_->setCheckable(true);
  darkAction_->setShortcut(QKeySequence(tr("Ctrl+Shift+D")));
  connect(darkAction_, &QAction::toggled, this, &MainWindow::setDarkTheme);
  presentAction_ = viewMenu_->addAction(tr("&Presentation Mode"));
  presentAction_->setCheckable(true);
  presentAction_->setShortcut(QKeySequence(Qt::Key_F5));
  connect(presentAction_, &QAction::toggled, this, &MainWindow::setPresentationMode);
  // Active only while presenting (a disabled action's shortcut does nothing).
  auto* leave = new QAction(tr("Leave Presentation"), this);
  leave->setShortcut(QKeySequence(Qt::Key_Escape));
  leave->setEnabled(false);
  connect(leave, &QAction::triggered, this, [this] { setPresentationMode(false); });
  addAction(leave);
  auto* swap = new QAction(tr("Present the Other View"), this);
  swap->setShortcut(QKeySequence(Qt::Key_Tab));
  swap->setEnabled(false);
  connect(swap, &QAction::triggered, this, [this] {
    QWidget* next =
        presentedView_ == graphView_ ? static_cast<QWidget*>(timelineView_) : graphView_;
    presentedView_->hide();
    next->show();
    next->setFocus();
    presentedView_ = next;
  });
  addAction(swap);
  connect(presentAction_, &QAction::toggled, leave, &QAction::setEnabled);
  connect(presentAction_, &QAction::toggled, swap, &QAction::setEnabled);
  viewMenu_->addSeparator();

  QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
  QAction* shortcuts =
      helpMenu->addAction(tr("&Keyboard Shortcuts"), this, [this] { help_->toggle(); });
  shortcuts->setShortcut(QKeySequence(Qt::Key_Question));
  shortcuts->setShortcutContext(Qt::ApplicationShortcut);
  helpMenu->addAction(tr("&About Doppler Studio"), this, [this] {
    QMessageBox::about(
        this, tr("About Doppler Studio"),
        tr("<b>Doppler Studio</b><br>Placing dataflow graphs on GPUs: graph, timeline and "
           "heuristic tuner.<br>Graph layout by Graphviz dot."));
  });
}

void MainWindow::buildToolbar() {
  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName(QStringLiteral("mainToolbar"));
  bar->setMovable(false);
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->setIconSize(QSize(18, 18));
  auto caption = [](const QString& text) {
    auto* l = new QLabel(text);
    l->setContentsMargins(10, 0, 4, 0);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
  };
  bar->addWidget(caption(tr("Graph")));
  graphButton_ = new QToolButton;
  graphButton_->setObjectName(QStringLiteral("graphButton"));
  graphButton_->setPopupMode(QToolButton::MenuButtonPopup);
  graphButton_->setMenu(recentMenu_);
  graphButton_->setToolTip(
      tr("The open graph; click to open another (Ctrl+O), the arrow lists recent files"));
  QFont bold = graphButton_->font();
  bold.setBold(true);
  graphButton_->setFont(bold);
  connect(graphButton_, &QToolButton::clicked, this, &MainWindow::openDialog);
  bar->addWidget(graphButton_);
  bar->addWidget(caption(tr("Devices")));
  devicesCombo_ = new QComboBox;
  devicesCombo_->setObjectName(QStringLiteral("toolbarDevices"));
  TunerWidget::fillDeviceChoices(devicesCombo_);
  devicesCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(devicesCombo_);
  bar->addWidget(caption(tr("Method")));
  methodCombo_ = new QComboBox;
  methodCombo_->setObjectName(QStringLiteral("toolbarMethod"));
  for (const auto& m : methods()) {
    methodCombo_->addItem(QString::fromStdString(m->name()));
    methodCombo_->setItemData(methodCombo_->count() - 1, QString::fromStdString(m->description()),
                              Qt::ToolTipRole);
  }
  bar->addWidget(methodCombo_);
  auto* spacer = new QWidget;
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  bar->addWidget(spacer);

  auto* readout = new QWidget;
  readout->setObjectName(QStringLiteral("makespanReadout"));
  auto* rl = new QHBoxLayout(readout);
  rl->setContentsMargins(8, 0, 12, 0);
  auto* what = new QLabel(tr("makespan"));
  what->setForegroundRole(QPalette::PlaceholderText);
  readoutMain_ = new QLabel(QStringLiteral("–"));
  readoutMain_->setObjectName(QStringLiteral("makespanValue"));
  readoutMain_->setFont(titleFont(*readoutMain_, 2.0));
  readoutSub_ = new QLabel;
  readoutSub_->setObjectName(QStringLiteral("makespanDetail"));
  rl->addWidget(what);
  rl->addWidget(readoutMain_);
  rl->addWidget(readoutSub_);
  bar->addWidget(readout);

  connect(devicesCombo_, &QComboBox::currentIndexChanged, this, [this] {
    const QString spec = devicesCombo_->currentData().toString();
    if (spec == document_->devicesSpec()) return;
    QString error;
    if (!document_->setDevicesSpec(spec, &error)) {
      showError(error);
      QSignalBlocker block(devicesCombo_);
      TunerWidget::selectDeviceSpec(devicesCombo_, document_->devicesSpec());
    }
  });
  connect(methodCombo_, &QComboBox::currentIndexChanged, this, [this] {
    PlacementSettings s = tuner_->settings();
    if (s.method == methodCombo_->currentText().toStdString()) return;
    s.method = methodCombo_->currentText().toStdString();
    s.params.clear();
    tuner_->setSettings(s);
    document_->setSettings(tuner_->settings());
  });
}

void MainWindow::buildDocks() {
  setDockNestingEnabled(true);
  tuner_ = new TunerWidget;
  auto* scroll = new QScrollArea;
  scroll->setWidget(tuner_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  tunerDock_ = new QDockWidget(tr("Heuristic tuner"), this);
  tunerDock_->setObjectName(QStringLiteral("tunerDock"));
  tunerDock_->setWidget(scroll);
  tunerDock_->setMinimumWidth(330);
  addDockWidget(Qt::RightDockWidgetArea, tunerDock_);

  details_ = new QTextBrowser;
  details_->setObjectName(QStringLiteral("details"));
  details_->setAcceptDrops(false);
  details_->setOpenLinks(false);
  details_->setHtml(
      tr("<p style='color:gray'>Click a node in the graph or a bar in the timeline to see what "
         "it is, where and when it ran, and its transfers.</p>"));
  detailsDock_ = new QDockWidget(tr("Node details"), this);
  detailsDock_->setObjectName(QStringLiteral("detailsDock"));
  detailsDock_->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, detailsDock_);

  auto* deviceTable = makeTable(deviceModel_);
  deviceTable->setObjectName(QStringLiteral("deviceTable"));
  deviceTable->setSortingEnabled(false);
  deviceTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  deviceTable->setToolTip(
      tr("Drag a range in the timeline to add each device's utilization and idle time in it"));
  devicesDock_ = new QDockWidget(tr("Devices"), this);
  devicesDock_->setObjectName(QStringLiteral("devicesDock"));
  devicesDock_->setWidget(deviceTable);
  addDockWidget(Qt::RightDockWidgetArea, devicesDock_);
  tabifyDockWidget(detailsDock_, devicesDock_);
  detailsDock_->raise();

  auto* nodesPanel = new QWidget;
  auto* nodesLayout = new QVBoxLayout(nodesPanel);
  nodesLayout->setContentsMargins(2, 2, 2, 2);
  auto* filter = new QLineEdit;
  filter->setPlaceholderText(tr("Filter nodes (id, op, device…)"));
  filter->setClearButtonEnabled(true);
  connect(filter, &QLineEdit::textChanged, nodeProxy_,
          &QSortFilterProxyModel::setFilterFixedString);
  nodeTable_ = makeTable(nodeProxy_);
  nodeTable_->setObjectName(QStringLiteral("nodeTable"));
  nodesLayout->addWidget(filter);
  nodesLayout->addWidget(nodeTable_);
  nodesDock_ = new QDockWidget(tr("Nodes"), this);
  nodesDock_->setObjectName(QStringLiteral("nodesDock"));
  nodesDock_->setWidget(nodesPanel);
  addDockWidget(Qt::BottomDockWidgetArea, nodesDock_);

  auto* eventTable = makeTable(sortProxy(scheduleModel_, this));
  eventTable->setObjectName(QStringLiteral("eventTable"));
  eventsDock_ = new QDockWidget(tr("Events"), this);
  eventsDock_->setObjectName(QStringLiteral("eventsDock"));
  eventsDock_->setWidget(eventTable);
  addDockWidget(Qt::BottomDockWidgetArea, eventsDock_);
  tabifyDockWidget(nodesDock_, eventsDock_);
  nodesDock_->hide();
  eventsDock_->hide();
  resizeDocks({tunerDock_}, {380}, Qt::Horizontal);
  resizeDocks({tunerDock_, detailsDock_}, {640, 230}, Qt::Vertical);

  for (QDockWidget* dock : {tunerDock_, detailsDock_, devicesDock_, nodesDock_, eventsDock_})
    viewMenu_->addAction(dock->toggleViewAction());
  viewMenu_->addSeparator();
  viewMenu_->addAction(tr("Reset Layout"), this, [this] {
    for (QDockWidget* dock : {tunerDock_, detailsDock_, devicesDock_}) {
      dock->setFloating(false);
      dock->show();
    }
    addDockWidget(Qt::RightDockWidgetArea, tunerDock_);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock_);
    tabifyDockWidget(detailsDock_, devicesDock_);
    nodesDock_->hide();
    eventsDock_->hide();
  });

  auto selectFromTable = [this](QTableView* table) {
    connect(table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, table](const QModelIndex& current) {
              if (current.isValid())
                selection_->setSelected(table->model()->data(current, NodeRole).toInt());
            });
  };
  selectFromTable(nodeTable_);
  selectFromTable(eventTable);
}

void MainWindow::connectDocument() {
  connect(document_, &StudioDocument::graphChanged, this, &MainWindow::onGraphChanged);
  connect(document_, &StudioDocument::snapshotChanged, this, &MainWindow::onSnapshotChanged);
  connect(document_, &StudioDocument::devicesChanged, this, [this] {
    QSignalBlocker block(devicesCombo_);
    TunerWidget::selectDeviceSpec(devicesCombo_, document_->devicesSpec());
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
  connect(tuner_, &TunerWidget::settingsChanged, this, &MainWindow::onSettingsEdited);
  connect(tuner_, &TunerWidget::devicesChanged, this, [this](const QString& spec) {
    QString error;
    if (!document_->setDevicesSpec(spec, &error)) {
      showError(error);
      tuner_->showError(error);
      tuner_->setDevicesSpec(document_->devicesSpec());
    }
  });
  connect(tuner_, &TunerWidget::cancelRequested, document_, &StudioDocument::cancel);
  connect(tuner_, &TunerWidget::rerunRequested, document_, &StudioDocument::recompute);

  connect(selection_, &SelectionState::selectedChanged, this, [this](int v) {
    const SnapshotPtr s = document_->snapshot();
    if (s && v >= 0)
      details_->setHtml(nodeDetailsHtml(*s, v));
    else
      details_->setHtml(
          tr("<p style='color:gray'>Click a node in the graph or a bar in the timeline to see "
             "what it is, where and when it ran, and its transfers.</p>"));
    const QModelIndex source = nodeModel_->index(nodeModel_->rowOfNode(v), 0);
    const QModelIndex proxy = nodeProxy_->mapFromSource(source);
    if (proxy.isValid() && nodeTable_->currentIndex().row() != proxy.row()) {
      QSignalBlocker block(nodeTable_->selectionModel());
      nodeTable_->setCurrentIndex(proxy);
      nodeTable_->scrollTo(proxy);
    }
    if (v >= 0 && detailsDock_->isVisible()) detailsDock_->raise();
  });
  connect(
      timelineView_, &TimelineView::rangeChanged, this, [this](bool active, double a, double b) {
        deviceModel_->setRange(active ? std::optional(std::make_pair(a, b)) : std::nullopt);
        if (active) {
          devicesDock_->raise();
          statusBar()->showMessage(
              tr("Range %1 – %2: see the Devices dock").arg(formatDuration(a), formatDuration(b)),
              5000);
        }
      });
  connect(graphView_, &GraphView::copyImageRequested, this,
          [this] { copyImageToClipboard(*graphView_); });
  connect(graphView_, &GraphView::saveImageRequested, this,
          [this] { saveImageInteractively(*graphView_, this); });
  connect(timelineView_, &TimelineView::copyImageRequested, this,
          [this] { copyImageToClipboard(*timelineView_); });
  connect(timelineView_, &TimelineView::saveImageRequested, this,
          [this] { saveImageInteractively(*timelineView_, this); });
  connect(timelineView_, &TimelineView::exportTraceRequested, this, &MainWindow::exportTrace);
}

void MainWindow::onGraphChanged() {
  selection_->clear();
  timelineView_->setRange(std::nullopt);
  graphView_->setGraph(document_->graph());
  const auto g = document_->graph();
  QString name = g ? QString::fromStdString(g->name) : QString();
  if (name.isEmpty()) name = QFileInfo(document_->graphSource()).completeBaseName();
  graphButton_->setText(g ? tr("%1 (%2 nodes)").arg(name).arg(g->nodeCount()) : tr("none"));
  graphButton_->setToolTip(document_->graphSource());
  const QString source = document_->graphSource();
  if (QFileInfo::exists(source)) addRecent(source);
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
  readoutMain_->setText(formatDuration(s->makespan()) +
                        (s->cancelled ? tr(" (cancelled)") : QString()));
  readoutSub_->setText(
      tr("utilization %1%\n%2× lower bound")
          .arg(s->meanUtilization() * 100, 0, 'f', 0)
          .arg(s->lower_bound_us > 0 ? s->makespan() / s->lower_bound_us : 0, 0, 'f', 2));
  readoutSub_->setToolTip(
      tr("Mean device utilization, and the makespan over the lower bound %1 (longest path "
         "on the fastest devices, or all work spread evenly)")
          .arg(formatDuration(s->lower_bound_us)));
  {
    QSignalBlocker block(methodCombo_);
    methodCombo_->setCurrentText(QString::fromStdString(s->settings.method));
  }
  if (selection_->selected() >= 0) details_->setHtml(nodeDetailsHtml(*s, selection_->selected()));
  statusBar()->showMessage(
      tr("%1: %2 in %3 ms%4")
          .arg(QString::fromStdString(s->settings.method), formatDuration(s->makespan()))
          .arg(s->compute_ms, 0, 'f', 1)
          .arg(layoutStatus_.isEmpty() ? QString() : QStringLiteral(" · ") + layoutStatus_),
      8000);
  updateTitle();
}

void MainWindow::onSettingsEdited() {
  const PlacementSettings s = tuner_->settings();
  {
    QSignalBlocker block(methodCombo_);
    methodCombo_->setCurrentText(QString::fromStdString(s.method));
  }
  document_->setSettings(s);
}

void MainWindow::applyMethodToUi() {
  QSignalBlocker block(methodCombo_);
  methodCombo_->setCurrentText(QString::fromStdString(tuner_->settings().method));
}

QString MainWindow::makespanReadout() const {
  return readoutMain_->text();
}

void MainWindow::updateTitle() {
  const auto g = document_->graph();
  const auto d = document_->devices();
  QString title = tr("Doppler Studio");
  if (g)
    title += QStringLiteral(" — %1 on %2")
                 .arg(QString::fromStdString(g->name),
                      d ? QString::fromStdString(d->name) : QStringLiteral("?"));
  setWindowTitle(title);
}

void MainWindow::showError(const QString& message) {
  lastError_ = message;
  bannerText_->setText(tr("<b>Could not use that input.</b> %1").arg(message.toHtmlEscaped()));
  if (!presenting_) banner_->show();
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

void MainWindow::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  if (!options_.fresh) QSettings().setValue(QStringLiteral("recentFiles"), recent_);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& path : recent_) {
    QAction* a =
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
    a->setToolTip(path);
    a->setStatusTip(path);
  }
  if (recent_.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
  recentMenu_->addSeparator();
  recentMenu_->addAction(tr("Clear"), this, [this] {
    recent_.clear();
    if (!options_.fresh) QSettings().setValue(QStringLiteral("recentFiles"), recent_);
    rebuildRecentMenu();
  });
}

void MainWindow::openDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open a graph or a device set"), QString(),
                                   tr("Graphs and device sets (*.json *.txt);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::openDevicesDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a device set"), QString(),
                                                    tr("Device sets (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!document_->setDevicesSpec(path, &error)) showError(error);
}

void MainWindow::generateDialog() {
  GenerateDialog dialog(this);
  if (dialog.exec() != QDialog::Accepted || !dialog.graph()) return;
  QString error;
  if (!document_->setGraph(*dialog.graph(), tr("generated: %1").arg(dialog.kind()), &error))
    showError(error);
}

void MainWindow::exportImage(ImageSource* source, const QString& format) {
  const auto g = document_->graph();
  const QString base =
      (g ? QString::fromStdString(g->name) + QStringLiteral("-") : QString()) + source->imageName();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(source->imageName()), base + QStringLiteral(".") + format,
      format == QStringLiteral("svg") ? tr("SVG drawing (*.svg)") : tr("PNG image (*.png)"));
  if (path.isEmpty()) return;
  const QString error =
      format == QStringLiteral("svg") ? saveSvg(*source, path, base) : savePng(*source, path, 2.0);
  if (!error.isEmpty()) showError(error);
}

void MainWindow::exportTrace() {
  const auto g = document_->graph();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Chrome trace"),
      (g ? QString::fromStdString(g->name) : QStringLiteral("timeline")) +
          QStringLiteral(".trace.json"),
      tr("Chrome Trace JSON (*.json)"));
  if (path.isEmpty()) return;
  const QString error = timelineView_->exportChromeTrace(path);
  if (!error.isEmpty())
    showError(error);
  else
    statusBar()->showMessage(tr("Wrote %1 (open it in ui.perfetto.dev)").arg(path), 8000);
}

ImageSource* MainWindow::focusedSource() const {
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget()) {
    if (w == graphView_) return graphView_;
    if (w == timelineView_) return timelineView_;
  }
  return nullptr;
}

void MainWindow::copyFocusedImage() {
  if (ImageSource* source = focusedSource()) {
    copyImageToClipboard(*source);
    statusBar()->showMessage(tr("Copied an image of the %1").arg(source->imageName()), 4000);
    return;
  }
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) {
      QApplication::clipboard()->setPixmap(dock->widget()->grab());
      statusBar()->showMessage(tr("Copied an image of %1").arg(dock->windowTitle()), 4000);
      return;
    }
  copyImageToClipboard(*graphView_);
}

void MainWindow::setDarkTheme(bool dark) {
  Theme::setDark(dark, qobject_cast<QApplication*>(QCoreApplication::instance()));
  if (darkAction_ && darkAction_->isChecked() != dark) {
    QSignalBlocker block(darkAction_);
    darkAction_->setChecked(dark);
  }
  if (const SnapshotPtr s = document_->snapshot()) {
    graphView_->setSnapshot(s);
    timelineView_->setSnapshot(s);
    tuner_->showSnapshot(s);
  }
  graphView_->viewport()->update();
  timelineView_->viewport()->update();
  if (!options_.fresh) QSettings().setValue(QStringLiteral("darkTheme"), dark);
}

void MainWindow::setPresentationMode(bool on) {
  if (on == presenting_) return;
  if (presentAction_->isChecked() != on) {
    QSignalBlocker block(presentAction_);
    presentAction_->setChecked(on);
  }
  presenting_ = on;
  if (on) {
    presentState_ = saveState();
    presentWasMaximized_ = isMaximized();
    presentFont_ = QApplication::font();
    ImageSource* focused = focusedSource();
    presentedView_ = focused == timelineView_ ? static_cast<QWidget*>(timelineView_) : graphView_;
    menuBar()->hide();
    for (QToolBar* bar : findChildren<QToolBar*>()) bar->hide();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->hide();
    statusBar()->hide();
    banner_->hide();
    (presentedView_ == graphView_ ? static_cast<QWidget*>(timelineView_) : graphView_)->hide();
    QFont big = presentFont_;
    if (big.pointSizeF() > 0)
      big.setPointSizeF(big.pointSizeF() * 1.6);
    else
      big.setPixelSize(big.pixelSize() * 8 / 5);
    QApplication::setFont(big);
    showFullScreen();
    presentedView_->setFocus();
  } else {
    QApplication::setFont(presentFont_);
    menuBar()->show();
    for (QToolBar* bar : findChildren<QToolBar*>()) bar->show();
    statusBar()->show();
    graphView_->show();
    timelineView_->show();
    restoreState(presentState_);
    if (presentWasMaximized_)
      showMaximized();
    else
      showNormal();
  }
  QTimer::singleShot(0, this, [this] {
    graphView_->fitAll();
    timelineView_->fit();
  });
}

bool MainWindow::isSettled() const {
  if (!document_->graph()) return !document_->busy();
  return graphView_->hasLayout() && !layoutPending_ && !document_->busy() && document_->snapshot();
}

bool MainWindow::waitSettled(int timeout_ms) {
  QDeadlineTimer deadline(timeout_ms);
  while (!isSettled() && !deadline.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  QCoreApplication::processEvents();
  return isSettled();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!options_.fresh) saveSettings();
  document_->cancel();
  QMainWindow::closeEvent(event);
}

void MainWindow::restoreSettings() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  recent_ = s.value(QStringLiteral("recentFiles")).toStringList();
  rebuildRecentMenu();
}

void MainWindow::saveSettings() {
  QSettings s;
  if (presenting_) setPresentationMode(false);
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("windowState"), saveState());
  s.setValue(QStringLiteral("method"), QString::fromStdString(document_->settings().method));
  s.setValue(QStringLiteral("devices"), document_->devicesSpec());
  const QString source = document_->graphSource();
  s.setValue(QStringLiteral("lastGraph"), QFileInfo::exists(source) ? source : QString());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls())
    for (const QUrl& url : event->mimeData()->urls())
      if (url.isLocalFile()) {
        event->acceptProposedAction();
        return;
      }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) openFile(url.toLocalFile());
  event->acceptProposedAction();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  return QMainWindow::eventFilter(watched, event);
}

}  // namespace doppler::studio

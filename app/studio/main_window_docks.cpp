// MainWindow, the docks part: the heuristic tuner, the chart of every setting's makespan, node
// details, devices, nodes and events, their default arrangement and "Reset Layout".
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "app/studio/main_window.h"
#include "app/studio/placement_compute.h"
#include "app/studio/presentation_mode.h"
#include "app/studio/studio_document.h"
#include "app/studio/studio_toolbar.h"
#include "core/train/general_policy_start.h"
#include "views/common/node_details.h"
#include "views/common/selection_state.h"
#include "views/models/device_summary_model.h"
#include "views/models/node_table_model.h"
#include "views/models/schedule_model.h"
#include "views/tuner/settings_history_chart.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

using namespace doppler::views;

namespace {

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

// Sorting by the raw values the models give (SortRole), filtering on every column.
void makeSortable(QSortFilterProxyModel* proxy) {
  proxy->setSortRole(SortRole);
  proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy->setFilterKeyColumn(-1);
}

}  // namespace

void MainWindow::buildDocks() {
  setDockNestingEnabled(true);
  auto dock = [this](const QString& title, const char* name, QWidget* content) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(content);
    return d;
  };
  // Local search may start from the shipped general policy: registered before the tuner reads
  // the methods' parameters, so its "start" list offers it (loaded by the first such search).
  if (const QString general = shippedGeneralPolicyPath(); !general.isEmpty())
    train::registerGeneralPolicyStart(general.toStdString());
  tuner_ = new TunerWidget;
  // The shipped general policy, where its weights are installed (any build: placing needs no
  // LibTorch): a method of the tuner and of the toolbar's list like any heuristic.
  if (const QString general = shippedGeneralPolicyPath(); !general.isEmpty()) {
    document_->setGeneralPolicy(general);
    const QString id = QString::fromLatin1(kGeneralPolicyMethod);
    const QString description = QString::fromStdString(generalPolicyDescription());
    tuner_->addMethod(id, tr("doppler (general policy)"), description, generalPolicyParams());
    if (auto* combo = toolbar_->findChild<QComboBox*>(QStringLiteral("toolbarMethod"))) {
      combo->addItem(id);
      combo->setItemData(combo->count() - 1, description, Qt::ToolTipRole);
    }
  }
  auto* scroll = new QScrollArea;
  scroll->setWidget(tuner_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  tunerDock_ = dock(tr("Heuristic tuner"), "tunerDock", scroll);
  addDockWidget(Qt::RightDockWidgetArea, tunerDock_);

  history_ = new SettingsHistoryChart;
  historyDock_ = dock(tr("Makespan of each setting"), "historyDock", history_);
  addDockWidget(Qt::RightDockWidgetArea, historyDock_);

  details_ = new QTextBrowser;
  details_->setObjectName(QStringLiteral("details"));
  details_->setAcceptDrops(false);
  details_->setOpenLinks(false);
  details_->setHtml(noNodeSelectedHtml());
  detailsDock_ = dock(tr("Node details"), "detailsDock", details_);
  addDockWidget(Qt::RightDockWidgetArea, detailsDock_);

  auto* deviceTable = makeTable(deviceModel_);
  deviceTable->setObjectName(QStringLiteral("deviceTable"));
  deviceTable->setSortingEnabled(false);
  deviceTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  deviceTable->setToolTip(
      tr("Drag a range in the timeline to add each device's utilization and idle time in it"));
  devicesDock_ = dock(tr("Devices"), "devicesDock", deviceTable);
  addDockWidget(Qt::RightDockWidgetArea, devicesDock_);
  tabifyDockWidget(detailsDock_, devicesDock_);
  tabifyDockWidget(detailsDock_, historyDock_);
  detailsDock_->raise();

  makeSortable(nodeProxy_);
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
  nodesDock_ = dock(tr("Nodes"), "nodesDock", nodesPanel);
  addDockWidget(Qt::BottomDockWidgetArea, nodesDock_);

  auto* eventProxy = new QSortFilterProxyModel(this);
  eventProxy->setSourceModel(scheduleModel_);
  makeSortable(eventProxy);
  auto* eventTable = makeTable(eventProxy);
  eventTable->setObjectName(QStringLiteral("eventTable"));
  eventsDock_ = dock(tr("Events"), "eventsDock", eventTable);
  addDockWidget(Qt::BottomDockWidgetArea, eventsDock_);
  tabifyDockWidget(nodesDock_, eventsDock_);
  nodesDock_->hide();
  eventsDock_->hide();

  buildStepper();
  buildRuns();
  buildTraining();
  buildFleet();
  presentation_->setCompanion(stepperDock_);
  for (QDockWidget* d : {tunerDock_, historyDock_, detailsDock_, devicesDock_, stepperDock_,
                         trainingDock_, nodesDock_, eventsDock_})
    viewMenu_->addAction(d->toggleViewAction());
  viewMenu_->addSeparator();
  viewMenu_->addAction(tr("Reset Layout"), this, &MainWindow::resetLayout);
  resetLayout();
  // A panel below the views opened alone keeps the few rows the area last had (the training
  // charts opened 150 px tall): it gets a useful share of the height once shown.
  for (QDockWidget* d : {runsDock_, trainingDock_, nodesDock_, eventsDock_})
    connect(d, &QDockWidget::visibilityChanged, this, [this, d](bool visible) {
      if (visible) QTimer::singleShot(0, this, [this, d] { giveRoom(d); });
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

void MainWindow::giveRoom(QDockWidget* dock) {
  if (!dock->isVisible() || dock->isFloating() || dockWidgetArea(dock) != Qt::BottomDockWidgetArea)
    return;
  const double share = dock == trainingDock_ ? 0.45 : 0.3;
  const int wanted = static_cast<int>(height() * share);
  if (dock->height() < wanted * 0.8) resizeDocks({dock}, {wanted}, Qt::Vertical);
}

void MainWindow::resetLayout() {
  // One tab group beside the views (what explains the placement) and one below them (the tables
  // and the charts that want width): opening a dock adds a tab, never a stacked panel, so the
  // window's least size stays that of the views and one panel whatever is open.
  const QList<QDockWidget*> side = {tunerDock_, stepperDock_, detailsDock_, devicesDock_,
                                    historyDock_};
  const QList<QDockWidget*> below = {runsDock_, trainingDock_, nodesDock_, eventsDock_};
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
  for (QDockWidget* d : {tunerDock_, detailsDock_, devicesDock_, historyDock_}) d->show();
  for (QDockWidget* d : below) d->hide();
  stepperDock_->hide();
  tunerDock_->raise();
  resizeDocks({tunerDock_}, {360}, Qt::Horizontal);
}

}  // namespace doppler::studio

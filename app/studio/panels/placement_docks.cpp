// The placement docks (placement_docks.h): the tuner, the makespan chart, node details, devices,
// nodes and events, built and tabbed beside and below the views.
#include "app/studio/panels/placement_docks.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "app/studio/document/placement_compute.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/studio_toolbar.h"
#include "views/common/node_details.h"
#include "views/common/selection_state.h"
#include "views/models/device_summary_model.h"
#include "views/models/keyed_sort_proxy.h"
#include "views/models/node_table_model.h"
#include "views/models/schedule_model.h"
#include "views/timeline/timeline_view.h"
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
  // Unsorted until a header is clicked (the models' own order: nodes by id, events by start), and
  // a third click returns there: sorting a million rows is a cost to pay only when asked.
  table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  table->horizontalHeader()->setSortIndicatorClearable(true);
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

PlacementDocks::PlacementDocks(MainWindow* window)
    : QObject(window),
      window_(window),
      nodeModel_(new NodeTableModel(this)),
      scheduleModel_(new ScheduleModel(this)),
      deviceModel_(new DeviceSummaryModel(this)),
      nodeProxy_(new KeyedSortProxy(this)) {
  StudioDocument* document = window->document();
  nodeProxy_->setSourceModel(nodeModel_);
  auto dock = [window](const QString& title, const char* name, QWidget* content) {
    auto* d = new QDockWidget(title, window);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(content);
    return d;
  };
  // The shipped general policy is the registered method `doppler` (MainWindow registers it before
  // the toolbar lists the methods), so the tuner lists it like any other.
  tuner_ = new TunerWidget;
  auto* scroll = new QScrollArea;
  scroll->setWidget(tuner_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  tunerDock_ = dock(tr("Heuristic tuner"), "tunerDock", scroll);

  history_ = new SettingsHistoryChart;
  historyDock_ = dock(tr("Makespan of each setting"), "historyDock", history_);

  details_ = new QTextBrowser;
  details_->setObjectName(QStringLiteral("details"));
  details_->setAcceptDrops(false);
  details_->setOpenLinks(false);
  details_->setHtml(noNodeSelectedHtml());
  detailsDock_ = dock(tr("Node details"), "detailsDock", details_);

  auto* deviceTable = makeTable(deviceModel_);
  deviceTable->setObjectName(QStringLiteral("deviceTable"));
  deviceTable->setSortingEnabled(false);
  deviceTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  deviceTable->setToolTip(
      tr("Drag a range in the timeline to add each device's utilization and idle time in it"));
  devicesDock_ = dock(tr("Devices"), "devicesDock", deviceTable);

  makeSortable(nodeProxy_);
  auto* nodesPanel = new QWidget;
  auto* nodesLayout = new QVBoxLayout(nodesPanel);
  nodesLayout->setContentsMargins(2, 2, 2, 2);
  auto* filter = new QLineEdit;
  filter->setPlaceholderText(tr("Filter nodes (id, op, device…)"));
  filter->setClearButtonEnabled(true);
  // Filtering reads every row's text: on a large graph, once typing pauses, not per key.
  auto* filterDelay = new QTimer(this);
  filterDelay->setSingleShot(true);
  connect(filter, &QLineEdit::textChanged, this, [this, filterDelay] {
    filterDelay->start(nodeModel_->rowCount() > StudioDocument::kSynchronousNodes ? 300 : 0);
  });
  connect(filterDelay, &QTimer::timeout, this,
          [this, filter] { nodeProxy_->setFilterFixedString(filter->text()); });
  nodeTable_ = makeTable(nodeProxy_);
  nodeTable_->setObjectName(QStringLiteral("nodeTable"));
  nodesLayout->addWidget(filter);
  nodesLayout->addWidget(nodeTable_);
  nodesDock_ = dock(tr("Nodes"), "nodesDock", nodesPanel);

  auto* eventProxy = new KeyedSortProxy(this);
  eventProxy->setSourceModel(scheduleModel_);
  makeSortable(eventProxy);
  auto* eventTable = makeTable(eventProxy);
  eventTable->setObjectName(QStringLiteral("eventTable"));
  eventsDock_ = dock(tr("Events"), "eventsDock", eventTable);

  // The tuner drives the document's settings and shows its state.
  connect(tuner_, &TunerWidget::settingsChanged, this, [this, window, document] {
    window->toolbar()->showMethod(QString::fromStdString(tuner_->settings().method));
    document->setSettings(tuner_->settings());
  });
  connect(tuner_, &TunerWidget::cancelRequested, document, &StudioDocument::cancel);
  connect(tuner_, &TunerWidget::rerunRequested, document, &StudioDocument::recompute);
  connect(document, &StudioDocument::devicesChanged, this,
          [this, document] { tuner_->setDevicesSpec(document->devicesSpec()); });
  // The result above the error is the last placement that succeeded: say whose, so that it is
  // not read as the failed method's.
  connect(document, &StudioDocument::computeFailed, tuner_, [this, document](const QString& error) {
    const SnapshotPtr last = document->snapshot();
    tuner_->showError(last ? tr("%1\nThe result above is the last placement that succeeded (%2).")
                                 .arg(error, QString::fromStdString(last->settings.method))
                           : error);
  });
  connect(document, &StudioDocument::busyChanged, tuner_, &TunerWidget::setRunning);
  connect(document, &StudioDocument::progress, tuner_, &TunerWidget::setProgress);

  // The selection: its details, its row in the node table; a table row selects its node.
  views::SelectionState* selection = window->selection();
  connect(selection, &SelectionState::selectedChanged, this, [this](int v) {
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
  for (QTableView* table : {nodeTable_, eventTable})
    connect(table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [selection, table](const QModelIndex& current) {
              if (current.isValid())
                selection->setSelected(table->model()->data(current, NodeRole).toInt());
            });
  connect(window->timelineView(), &TimelineView::rangeChanged, this,
          [this, window](bool on, double a, double b) {
            deviceModel_->setRange(on ? std::optional(std::make_pair(a, b)) : std::nullopt);
            if (!on) return;
            devicesDock_->raise();
            window->statusBar()->showMessage(
                tr("Range %1 – %2: see the Devices dock").arg(formatDuration(a), formatDuration(b)),
                5000);
          });
}

QList<QDockWidget*> PlacementDocks::sideDocks() const {
  return {tunerDock_, detailsDock_, devicesDock_, historyDock_};
}

QList<QDockWidget*> PlacementDocks::bottomDocks() const {
  return {nodesDock_, eventsDock_};
}

void PlacementDocks::showSnapshot(const SnapshotPtr& s) {
  tuner_->showError(QString());
  nodeModel_->setSnapshot(s);
  scheduleModel_->setSnapshot(s);
  deviceModel_->setSnapshot(s);
  deviceModel_->setRange(window_->timelineView()->range());
  tuner_->showSnapshot(s);
  history_->addSnapshot(*s);
  refreshDetails();
}

void PlacementDocks::refreshDetails() {
  const int v = window_->selection()->selected();
  if (v >= 0) details_->setHtml(detailsHtml(v));
}

void PlacementDocks::applyTheme() {
  history_->applyTheme();
  if (const SnapshotPtr s = window_->document()->snapshot()) tuner_->showSnapshot(s);
}

QString PlacementDocks::detailsHtml(int node) const {
  const SnapshotPtr s = window_->document()->snapshot();
  if (!s || node < 0) return noNodeSelectedHtml();
  QString html = nodeDetailsHtml(*s, node);
  if (const MeasuredRunPtr run = window_->timelineView()->measured(); run && run->snapshot == s)
    html += measuredNodeHtml(*run, node);
  return html;
}

}  // namespace doppler::studio

#include "runs_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSet>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "views/runs/runs_table_model.h"

namespace doppler::views {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString runList(const QList<qint64>& ids) {
  QStringList parts;
  for (qint64 id : ids) parts << QString::number(id);
  return parts.join(QStringLiteral(", "));
}

}  // namespace

RunsFilterProxy::RunsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(SortRole);
  setDynamicSortFilter(true);
}

void RunsFilterProxy::setText(const QString& text) {
  text_ = text.trimmed();
  invalidateFilter();
}

void RunsFilterProxy::setKind(const QString& kind) {
  kind_ = kind;
  invalidateFilter();
}

void RunsFilterProxy::setGraph(const QString& graph) {
  graph_ = graph;
  invalidateFilter();
}

void RunsFilterProxy::setTag(const QString& tag) {
  tag_ = tag;
  invalidateFilter();
}

bool RunsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  const auto* model = qobject_cast<const RunsTableModel*>(sourceModel());
  if (!model) return true;
  const sessions::RunInfo& run = model->run(sourceRow);
  if (!kind_.isEmpty() && q(run.kind) != kind_) return false;
  if (!graph_.isEmpty() && q(run.graph_name) != graph_) return false;
  if (!tag_.isEmpty() && !runTags(run).contains(tag_)) return false;
  if (text_.isEmpty()) return true;
  for (int column = 0; column < RunsTableModel::ColumnCount; ++column)
    if (model->index(sourceRow, column)
            .data(Qt::DisplayRole)
            .toString()
            .contains(text_, Qt::CaseInsensitive))
      return true;
  return false;
}

RunsPanel::RunsPanel(QWidget* parent)
    : QWidget(parent), model_(new RunsTableModel(this)), proxy_(new RunsFilterProxy(this)) {
  proxy_->setSourceModel(model_);

  filter_ = new QLineEdit;
  filter_->setObjectName(QStringLiteral("runsFilter"));
  filter_->setPlaceholderText(tr("Filter runs (id, name, method, status…)"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, proxy_, &RunsFilterProxy::setText);
  auto combo = [this](const char* name, void (RunsFilterProxy::*set)(const QString&)) {
    auto* box = new QComboBox;
    box->setObjectName(QString::fromLatin1(name));
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    // Item 0 is "all"; its data is empty, so the filter is off.
    connect(box, &QComboBox::currentIndexChanged, this,
            [this, box, set] { (proxy_->*set)(box->currentData().toString()); });
    return box;
  };
  kind_ = combo("runsKind", &RunsFilterProxy::setKind);
  graph_ = combo("runsGraph", &RunsFilterProxy::setGraph);
  tag_ = combo("runsTag", &RunsFilterProxy::setTag);

  auto button = [this](const QString& text, const char* name, const QString& tip) {
    auto* b = new QPushButton(text);
    b->setObjectName(QString::fromLatin1(name));
    b->setToolTip(tip);
    b->setAutoDefault(false);
    return b;
  };
  compare_ = button(tr("Compare"), "runsCompare",
                    tr("Compare the selected runs (two or more): charts, timelines, placements"));
  tagButton_ = button(tr("Tag…"), "runsTagButton", tr("Add a tag to the selected runs"));
  note_ = button(tr("Note…"), "runsNote", tr("Attach a note to the selected runs"));
  rename_ = button(tr("Rename…"), "runsRename",
                   tr("Name the selected run (stored as its tag \"name:…\")"));
  delete_ = button(tr("Delete…"), "runsDelete",
                   tr("Delete the selected runs and everything recorded under them"));
  connect(compare_, &QPushButton::clicked, this, &RunsPanel::compareSelected);
  connect(tagButton_, &QPushButton::clicked, this, &RunsPanel::askTag);
  connect(note_, &QPushButton::clicked, this, &RunsPanel::askNote);
  connect(rename_, &QPushButton::clicked, this, &RunsPanel::askRename);
  connect(delete_, &QPushButton::clicked, this, [this] { deleteSelected(true); });

  table_ = new QTableView;
  table_->setObjectName(QStringLiteral("runsTable"));
  table_->setModel(proxy_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RunsTableModel::Id, Qt::DescendingOrder);  // newest first
  table_->setAlternatingRowColors(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(false);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunsPanel::updateActions);
  connect(proxy_, &QAbstractItemModel::rowsInserted, this, &RunsPanel::updateActions);
  connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &RunsPanel::updateActions);
  connect(proxy_, &QAbstractItemModel::layoutChanged, this, &RunsPanel::updateActions);

  count_ = new QLabel;
  count_->setObjectName(QStringLiteral("runsCount"));

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(filter_, 1);
  bar->addWidget(kind_);
  bar->addWidget(graph_);
  bar->addWidget(tag_);
  bar->addSpacing(8);
  bar->addWidget(compare_);
  bar->addWidget(tagButton_);
  bar->addWidget(note_);
  bar->addWidget(rename_);
  bar->addWidget(delete_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(3);
  layout->addLayout(bar);
  layout->addWidget(table_, 1);
  layout->addWidget(count_);
  updateChoices();
  updateActions();
}

int RunsPanel::heightForRows(int rows) const {
  const int shown = std::clamp(static_cast<int>(proxy_->rowCount()), 1, std::max(1, rows));
  const int rowH = table_->verticalHeader()->defaultSectionSize();
  const int tableH = table_->horizontalHeader()->sizeHint().height() + shown * rowH +
                     2 * table_->frameWidth() + table_->horizontalScrollBar()->sizeHint().height();
  const QMargins m = layout()->contentsMargins();
  return m.top() + m.bottom() + 2 * layout()->spacing() + filter_->sizeHint().height() + tableH +
         count_->sizeHint().height();
}

void RunsPanel::setRuns(std::vector<sessions::RunInfo> runs) {
  const bool first = model_->rowCount() == 0;
  model_->setRuns(std::move(runs));
  updateChoices();
  if (first && model_->rowCount() > 0) {
    // Sized once to the first content; later updates leave the user's column widths alone.
    table_->resizeColumnsToContents();
    for (int column = 0; column < RunsTableModel::ColumnCount; ++column)
      table_->setColumnWidth(column, std::min(table_->columnWidth(column), 260));
  }
  updateActions();
}

void RunsPanel::updateChoices() {
  QSet<QString> kinds, graphs, tags;
  for (const sessions::RunInfo& run : model_->runs()) {
    kinds.insert(q(run.kind));
    if (!run.graph_name.empty()) graphs.insert(q(run.graph_name));
    for (const QString& tag : runTags(run)) tags.insert(tag);
  }
  auto fill = [](QComboBox* box, const QString& all, QSet<QString> values) {
    const QString current = box->currentData().toString();
    // A chosen value stays offered even when no run has it any more, so the filter the user set
    // does not silently switch off.
    if (!current.isEmpty()) values.insert(current);
    QStringList sorted(values.begin(), values.end());
    sorted.sort(Qt::CaseInsensitive);
    QStringList now;
    for (int i = 1; i < box->count(); ++i) now << box->itemData(i).toString();
    if (box->count() > 0 && now == sorted) return;
    const QSignalBlocker block(box);
    box->clear();
    box->addItem(all, QString());
    for (const QString& v : sorted) box->addItem(v, v);
    box->setCurrentIndex(std::max(0, box->findData(current)));
  };
  fill(kind_, tr("all kinds"), kinds);
  fill(graph_, tr("all graphs"), graphs);
  fill(tag_, tr("all tags"), tags);
}

QList<qint64> RunsPanel::selectedRuns() const {
  QList<qint64> ids;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows())
    ids << index.data(RunsTableModel::RunIdRole).toLongLong();
  std::sort(ids.begin(), ids.end());
  return ids;
}

void RunsPanel::selectRuns(const QList<qint64>& ids) {
  QItemSelection selection;
  for (qint64 id : ids) {
    const int row = model_->rowOfRun(id);
    if (row < 0) continue;
    const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
    if (index.isValid()) selection.select(index, index);
  }
  table_->selectionModel()->select(selection,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunsPanel::updateActions() {
  const int selected = static_cast<int>(selectedRuns().size());
  compare_->setEnabled(selected >= 2);
  tagButton_->setEnabled(selected >= 1);
  note_->setEnabled(selected >= 1);
  rename_->setEnabled(selected == 1);
  delete_->setEnabled(selected >= 1);
  const int shown = proxy_->rowCount(), total = model_->rowCount();
  QString text = shown == total ? tr("%n run(s)", nullptr, total)
                                : tr("%1 of %n run(s) shown", nullptr, total).arg(shown);
  if (selected > 0) text += tr(" · %1 selected").arg(selected);
  count_->setText(text);
}

void RunsPanel::tagSelected(const QString& text) {
  const QList<qint64> ids = selectedRuns();
  QString tag = text.trimmed();
  const bool remove = tag.startsWith(QLatin1Char('-'));
  if (remove) tag = tag.mid(1).trimmed();
  if (ids.isEmpty() || tag.isEmpty()) return;
  Q_EMIT tagRequested(ids, tag, remove);
}

void RunsPanel::noteSelected(const QString& text) {
  const QList<qint64> ids = selectedRuns();
  if (ids.isEmpty() || text.trimmed().isEmpty()) return;
  Q_EMIT noteRequested(ids, text.trimmed());
}

void RunsPanel::renameSelected(const QString& name) {
  const QList<qint64> ids = selectedRuns();
  if (ids.size() != 1) return;
  Q_EMIT renameRequested(ids.front(), name.trimmed());
}

void RunsPanel::deleteSelected(bool confirm) {
  const QList<qint64> ids = selectedRuns();
  if (ids.isEmpty()) return;
  if (confirm &&
      QMessageBox::question(
          this, tr("Delete runs"),
          tr("Delete %n run(s) (%1) and everything recorded under them? This cannot be undone.",
             nullptr, static_cast<int>(ids.size()))
              .arg(runList(ids)),
          QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
    return;
  Q_EMIT deleteRequested(ids);
}

void RunsPanel::compareSelected() {
  const QList<qint64> ids = selectedRuns();
  if (ids.size() >= 2) Q_EMIT compareRequested(ids);
}

void RunsPanel::askTag() {
  bool ok = false;
  const QString tag = QInputDialog::getText(
      this, tr("Tag runs"),
      tr("Tag for run(s) %1 (start with \"-\" to remove it):").arg(runList(selectedRuns())),
      QLineEdit::Normal, {}, &ok);
  if (ok) tagSelected(tag);
}

void RunsPanel::askNote() {
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      this, tr("Note on runs"), tr("Note for run(s) %1:").arg(runList(selectedRuns())), {}, &ok);
  if (ok) noteSelected(text);
}

void RunsPanel::askRename() {
  const QList<qint64> ids = selectedRuns();
  if (ids.size() != 1) return;
  const int row = model_->rowOfRun(ids.front());
  bool ok = false;
  const QString name = QInputDialog::getText(
      this, tr("Rename run"),
      tr("Name of run %1 (empty: no name; stored as the tag \"name:…\"):").arg(ids.front()),
      QLineEdit::Normal, row >= 0 ? runName(model_->run(row)) : QString(), &ok);
  if (ok) renameSelected(name);
}

}  // namespace doppler::views

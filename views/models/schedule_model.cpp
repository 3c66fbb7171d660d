#include "views/models/schedule_model.h"

#include <algorithm>

#include "views/common/node_details.h"
#include "views/common/theme.h"

namespace doppler::views {

void ScheduleModel::setSnapshot(SnapshotPtr snapshot) {
  beginResetModel();
  snapshot_ = std::move(snapshot);
  events_.reset();
  if (snapshot_ && snapshot_->events)
    events_ = snapshot_->events;
  else if (snapshot_ && snapshot_->graph)
    events_ = std::make_shared<const ScheduleEvents>(
        ScheduleEvents::build(*snapshot_->graph, snapshot_->sim.schedule));
  endResetModel();
}

int ScheduleModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !events_ ? 0 : static_cast<int>(events_->rows.size());
}

int ScheduleModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScheduleModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const ScheduleEvents::Row& r = events_->rows[index.row()];
  const DataflowGraph& g = *snapshot_->graph;
  const TransferSpan* t =
      r.transfer >= 0 ? &snapshot_->sim.schedule.transfers[r.transfer] : nullptr;
  if (role == NodeRole) return r.node;
  if (role == Qt::TextAlignmentRole && index.column() >= Start)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::DecorationRole && index.column() == Lane)
    return Theme::deviceColor(t ? t->src_device : snapshot_->sim.schedule.nodes[r.node].device);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  switch (index.column()) {
    case Kind:
      return t ? tr("transfer") : tr("compute");
    case Name:
      if (!t) return QString::fromStdString(g.node(r.node).id);
      return QString::fromStdString(g.node(g.edge(t->edge).src).id + " → " + g.node(r.node).id);
    case Lane:
      if (!t) return deviceName(*snapshot_, snapshot_->sim.schedule.nodes[r.node].device);
      return deviceName(*snapshot_, t->src_device) + QStringLiteral(" → ") +
             deviceName(*snapshot_, t->dst_device);
    case Start:
      return sort ? QVariant(r.start) : QVariant(formatTime(r.start));
    case Finish:
      return sort ? QVariant(r.finish) : QVariant(formatTime(r.finish));
    case Duration:
      return sort ? QVariant(r.finish - r.start) : QVariant(formatDuration(r.finish - r.start));
    default:
      return {};
  }
}

QVariant ScheduleModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  static const char* names[] = {"Kind", "Event", "Lane", "Start", "Finish", "Duration"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace doppler::views

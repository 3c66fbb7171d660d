#include "views/models/node_table_model.h"

#include "views/common/node_details.h"
#include "views/common/theme.h"

namespace doppler::views {

void NodeTableModel::setSnapshot(SnapshotPtr snapshot) {
  beginResetModel();
  snapshot_ = std::move(snapshot);
  endResetModel();
}

int NodeTableModel::rowOfNode(int v) const {
  return v >= 0 && v < rowCount() ? v : -1;
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !snapshot_ || !snapshot_->graph) return 0;
  return snapshot_->graph->nodeCount();
}

int NodeTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const int v = index.row();
  const DataflowGraph& g = *snapshot_->graph;
  const Node& node = g.node(v);
  const NodeSpan& span = snapshot_->sim.schedule.nodes[v];
  if (role == NodeRole) return v;
  if (role == Qt::ToolTipRole) return nodeTooltipHtml(*snapshot_, v);
  if (role == Qt::DecorationRole && index.column() == Device)
    return Theme::deviceColor(span.device);
  if (role == Qt::TextAlignmentRole && index.column() >= Start)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  switch (index.column()) {
    case Id:
      return QString::fromStdString(node.id);
    case Op:
      return QString::fromStdString(node.op);
    case Device:
      return sort ? QVariant(span.device) : QVariant(deviceName(*snapshot_, span.device));
    case Start:
      return sort ? QVariant(span.start_us) : QVariant(formatTime(span.start_us));
    case Finish:
      return sort ? QVariant(span.finish_us) : QVariant(formatTime(span.finish_us));
    case Duration: {
      const double d = span.finish_us - span.start_us;
      return sort ? QVariant(d) : QVariant(formatDuration(d));
    }
    case Flops:
      return sort ? QVariant(node.flops) : QVariant(formatFlops(node.flops));
    case OutputBytes:
      return sort ? QVariant(node.output_bytes) : QVariant(formatBytes(node.output_bytes));
    case Inputs:
      return static_cast<int>(g.inEdges(v).size());
    case Outputs:
      return static_cast<int>(g.outEdges(v).size());
    default:
      return {};
  }
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  static const char* names[] = {"Node",     "Op",    "Device", "Start",  "Finish",
                                "Duration", "FLOPs", "Output", "Inputs", "Outputs"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace doppler::views

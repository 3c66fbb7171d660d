#include "views/models/device_summary_model.h"

#include <algorithm>

#include "views/common/node_details.h"
#include "views/common/theme.h"
#include "views/models/node_table_model.h"

namespace doppler::views {

std::vector<DeviceRangeStats> deviceRangeStats(const Schedule& s, int devices, double t0,
                                               double t1) {
  std::vector<DeviceRangeStats> out(std::max(devices, 0));
  if (t1 < t0) std::swap(t0, t1);
  const double len = t1 - t0;
  for (const NodeSpan& n : s.nodes) {
    if (n.device < 0 || n.device >= devices) continue;
    const double a = std::max(t0, n.start_us), b = std::min(t1, n.finish_us);
    if (b > a || (n.start_us >= t0 && n.start_us < t1)) ++out[n.device].nodes;
    if (b > a) out[n.device].busy_us += b - a;
  }
  for (DeviceRangeStats& d : out) {
    d.busy_us = std::min(d.busy_us, len);  // noise-free schedules never overlap on a device
    d.idle_us = len - d.busy_us;
    d.utilization = len > 0 ? d.busy_us / len : 0;
  }
  return out;
}

void DeviceSummaryModel::setSnapshot(SnapshotPtr snapshot) {
  beginResetModel();
  snapshot_ = std::move(snapshot);
  recompute();
  endResetModel();
}

void DeviceSummaryModel::setRange(std::optional<std::pair<double, double>> range) {
  if (range && range->second < range->first) std::swap(range->first, range->second);
  if (range == range_) return;
  const bool columnsChange = range.has_value() != range_.has_value();
  if (columnsChange) beginResetModel();
  range_ = range;
  recompute();
  if (columnsChange)
    endResetModel();
  else if (rowCount() > 0)
    Q_EMIT dataChanged(index(0, RangeUtilization), index(rowCount() - 1, RangeIdle));
}

void DeviceSummaryModel::recompute() {
  nodes_.clear();
  rangeStats_.clear();
  if (!snapshot_ || !snapshot_->devices) return;
  const int d = snapshot_->devices->size();
  nodes_.assign(d, 0);
  for (const NodeSpan& n : snapshot_->sim.schedule.nodes)
    if (n.device >= 0 && n.device < d) ++nodes_[n.device];
  if (range_)
    rangeStats_ = deviceRangeStats(snapshot_->sim.schedule, d, range_->first, range_->second);
}

int DeviceSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(nodes_.size());
}

int DeviceSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : (range_ ? RangeIdle + 1 : Idle + 1);
}

QVariant DeviceSummaryModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const int d = index.row();
  const SimResult& r = snapshot_->sim;
  if (role == Qt::DecorationRole && index.column() == Device) return Theme::deviceColor(d);
  if (role == Qt::TextAlignmentRole && index.column() != Device)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() >= RangeUtilization)
    return tr("Within %1 – %2: busy %3")
        .arg(formatDuration(range_->first), formatDuration(range_->second),
             formatDuration(rangeStats_[d].busy_us));
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  const double busy = d < static_cast<int>(r.busy_us.size()) ? r.busy_us[d] : 0;
  const double util = d < static_cast<int>(r.utilization.size()) ? r.utilization[d] : 0;
  auto pct = [sort](double x) {
    return sort ? QVariant(x) : QVariant(QString::number(x * 100, 'f', 1) + " %");
  };
  auto dur = [sort](double us) { return sort ? QVariant(us) : QVariant(formatDuration(us)); };
  switch (index.column()) {
    case Device:
      return deviceName(*snapshot_, d);
    case Nodes:
      return nodes_[d];
    case Utilization:
      if (role == Qt::DisplayRole)
        return QString::number(util * 100, 'f', 1) + " % (" + formatDuration(busy) + ")";
      return pct(util);
    case Idle:
      return dur(std::max(0.0, r.schedule.makespan_us - busy));
    case RangeUtilization:
      return pct(rangeStats_[d].utilization);
    case RangeIdle:
      return dur(rangeStats_[d].idle_us);
    default:
      return {};
  }
}

QVariant DeviceSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  static const char* names[] = {"Device", "Nodes",          "Utilization (busy)",
                                "Idle",   "Util. in range", "Idle in range"};
  return section >= 0 && section < columnCount() ? tr(names[section]) : QVariant();
}

}  // namespace doppler::views

#pragma once
// One row per device: nodes, busy time, utilization and idle time over the whole makespan and,
// when the user dragged a time range in the timeline, within that range.
#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "views/common/snapshot.h"

namespace doppler::views {

struct DeviceRangeStats {
  double busy_us = 0;
  double idle_us = 0;
  double utilization = 0;  // busy / range length
  int nodes = 0;           // nodes that overlap the range
};

// Busy and idle time of each device within [t0, t1) (compute spans only).
std::vector<DeviceRangeStats> deviceRangeStats(const Schedule& s, int devices, double t0,
                                               double t1);

class DeviceSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Device, Nodes, Utilization, Idle, RangeUtilization, RangeIdle };
  using QAbstractTableModel::QAbstractTableModel;

  void setSnapshot(SnapshotPtr snapshot);
  // A time range in microseconds adds two columns; nullopt removes them.
  void setRange(std::optional<std::pair<double, double>> range);
  std::optional<std::pair<double, double>> range() const { return range_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  void recompute();
  SnapshotPtr snapshot_;
  std::optional<std::pair<double, double>> range_;
  std::vector<int> nodes_;
  std::vector<DeviceRangeStats> rangeStats_;
};

}  // namespace doppler::views

#pragma once
// Every event of a simulated schedule, compute and transfer, in start order.
#include <QAbstractTableModel>
#include <vector>

#include "views/common/snapshot.h"
#include "views/models/node_table_model.h"
#include "views/models/schedule_events.h"

namespace doppler::views {

class ScheduleModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Kind, Name, Lane, Start, Finish, Duration, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;

  void setSnapshot(SnapshotPtr snapshot);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  SnapshotPtr snapshot_;
  // The snapshot's own (made by the placement worker), else built here.
  std::shared_ptr<const ScheduleEvents> events_;
};

}  // namespace doppler::views

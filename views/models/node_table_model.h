#pragma once
// One row per node of the current placement: what it is, where it ran and when.
#include <QAbstractTableModel>

#include "views/common/snapshot.h"

namespace doppler::views {

// Roles shared by the models: the node a row stands for, and a raw value for sorting.
enum ModelRole { NodeRole = Qt::UserRole + 1, SortRole };

class NodeTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id,
    Op,
    Device,
    Start,
    Finish,
    Duration,
    Flops,
    OutputBytes,
    Inputs,
    Outputs,
    ColumnCount
  };
  using QAbstractTableModel::QAbstractTableModel;

  void setSnapshot(SnapshotPtr snapshot);
  const SnapshotPtr& snapshot() const { return snapshot_; }
  // The row showing node v (rows are in graph order, so it is v), or -1.
  int rowOfNode(int v) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  SnapshotPtr snapshot_;
};

}  // namespace doppler::views

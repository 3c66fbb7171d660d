#pragma once
// What the stepper's candidate and device models share: their rows are replaced at every step,
// in place, so a view keeps its current row and a proxy its mapping.
#include <QAbstractTableModel>
#include <algorithm>
#include <vector>

namespace doppler::views {

template <class Row>
class StepRowsModel : public QAbstractTableModel {
 public:
  using QAbstractTableModel::QAbstractTableModel;

  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
  }

 protected:
  // Structure first, then contents, as views and proxies expect: rows that go are removed while
  // the model still reads its old state, then `commit` switches that state, the rows that stay
  // are reported changed, and the rows that come are inserted.
  template <class Commit>
  void replaceRows(std::vector<Row> rows, int columns, Commit commit) {
    const int before = static_cast<int>(rows_.size()), after = static_cast<int>(rows.size());
    if (after < before) {
      beginRemoveRows({}, after, before - 1);
      rows_.resize(after);
      endRemoveRows();
    }
    commit();
    const int kept = std::min(before, after);
    std::copy(rows.begin(), rows.begin() + kept, rows_.begin());
    if (kept > 0) Q_EMIT dataChanged(index(0, 0), index(kept - 1, columns - 1));
    if (after > before) {
      beginInsertRows({}, before, after - 1);
      rows_ = std::move(rows);
      endInsertRows();
    }
  }

  std::vector<Row> rows_;
};

}  // namespace doppler::views

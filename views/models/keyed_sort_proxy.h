#pragma once
// A sort and filter proxy for tables of a million rows (the nodes and events of a large graph).
// QSortFilterProxyModel asks the source for both values at every comparison: about 20 million
// data() calls, each building a QVariant (a QString for ids), to sort a million rows, seconds on
// the GUI thread. This proxy reads each row's SortRole value once per sort column into a plain
// key (a double where the value is a number, else a string) and compares those: the sort itself
// is then a std::sort's worth of work.
//
// The keys are dropped whenever the source changes (reset, layout, data, rows), before the proxy
// re-sorts: the connections are made ahead of QSortFilterProxyModel's own.
#include <QSortFilterProxyModel>
#include <QString>
#include <vector>

namespace doppler::views {

class KeyedSortProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit KeyedSortProxy(QObject* parent = nullptr);
  void setSourceModel(QAbstractItemModel* source) override;

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  void dropKeys();
  void buildKeys(int column) const;

  // The keys of one column, built on the first comparison after a change (lessThan is const).
  mutable int keyColumn_ = -1;
  mutable bool numeric_ = false;
  mutable std::vector<double> numbers_;
  mutable std::vector<QString> texts_;
};

}  // namespace doppler::views

#include "views/models/keyed_sort_proxy.h"

#include <QMetaType>

namespace doppler::views {

KeyedSortProxy::KeyedSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {}

void KeyedSortProxy::setSourceModel(QAbstractItemModel* source) {
  if (sourceModel()) disconnect(sourceModel(), nullptr, this, nullptr);
  dropKeys();
  // Before the base class connects its own: slots run in the order they were connected, so the
  // keys are gone before the base re-sorts on the same signal.
  if (source) {
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, &KeyedSortProxy::dropKeys);
    connect(source, &QAbstractItemModel::modelReset, this, &KeyedSortProxy::dropKeys);
    connect(source, &QAbstractItemModel::layoutChanged, this, &KeyedSortProxy::dropKeys);
    connect(source, &QAbstractItemModel::dataChanged, this, &KeyedSortProxy::dropKeys);
    connect(source, &QAbstractItemModel::rowsInserted, this, &KeyedSortProxy::dropKeys);
    connect(source, &QAbstractItemModel::rowsRemoved, this, &KeyedSortProxy::dropKeys);
    connect(source, &QAbstractItemModel::rowsMoved, this, &KeyedSortProxy::dropKeys);
  }
  QSortFilterProxyModel::setSourceModel(source);
}

void KeyedSortProxy::dropKeys() {
  keyColumn_ = -1;
  numbers_ = {};
  texts_ = {};
}

void KeyedSortProxy::buildKeys(int column) const {
  const QAbstractItemModel* source = sourceModel();
  const int rows = source->rowCount();
  numbers_.clear();
  texts_.clear();
  // Numeric when every value is a number (the models give raw numbers for SortRole there).
  numeric_ = true;
  std::vector<QVariant> values(static_cast<size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    values[r] = source->index(r, column).data(sortRole());
    const int type = values[r].typeId();
    numeric_ = numeric_ && (type == QMetaType::Double || type == QMetaType::Int ||
                            type == QMetaType::LongLong || type == QMetaType::Float ||
                            type == QMetaType::UInt || type == QMetaType::ULongLong);
  }
  if (numeric_) {
    numbers_.resize(values.size());
    for (size_t r = 0; r < values.size(); ++r) numbers_[r] = values[r].toDouble();
  } else {
    texts_.resize(values.size());
    for (size_t r = 0; r < values.size(); ++r) texts_[r] = values[r].toString();
  }
  keyColumn_ = column;
}

bool KeyedSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  if (left.parent().isValid() || left.column() != right.column())
    return QSortFilterProxyModel::lessThan(left, right);
  if (keyColumn_ != left.column()) buildKeys(left.column());
  const size_t a = static_cast<size_t>(left.row()), b = static_cast<size_t>(right.row());
  if (numeric_) return numbers_[a] < numbers_[b];
  return QString::compare(texts_[a], texts_[b], sortCaseSensitivity()) < 0;
}

}  // namespace doppler::views

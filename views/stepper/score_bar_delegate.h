#pragma once
// Paints a score cell with a horizontal bar behind the text: its length from BarFractionRole, its
// colour from BarColorRole (score_scale.h). The text stays the model's, right-aligned, so the
// numbers still line up.
#include <QStyledItemDelegate>

namespace doppler::views {

class ScoreBarDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace doppler::views

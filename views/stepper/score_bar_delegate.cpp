#include "views/stepper/score_bar_delegate.h"

#include <QApplication>
#include <QPainter>
#include <algorithm>

#include "views/common/theme.h"
#include "views/stepper/score_scale.h"

namespace doppler::views {

void ScoreBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  const QString text = opt.text;
  opt.text.clear();
  const QWidget* widget = opt.widget;
  QStyle* style = widget ? widget->style() : QApplication::style();
  // The row's background (the chosen row's tint, the selection) first, the bar over it.
  style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

  const double fraction = std::clamp(index.data(BarFractionRole).toDouble(), 0.0, 1.0);
  const QVariant colour = index.data(BarColorRole);
  const QColor bar = colour.isValid() ? colour.value<QColor>() : stepAccentTint(90);
  const QRectF track = QRectF(opt.rect).adjusted(3, 3, -3, -3);
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setPen(Qt::NoPen);
  if (fraction > 0 && track.width() > 4) {
    QColor trough = Theme::current().grid;
    trough.setAlpha(90);
    painter->setBrush(trough);
    painter->drawRoundedRect(track, 3, 3);
    painter->setBrush(bar);
    painter->drawRoundedRect(
        QRectF(track.topLeft(), QSizeF(track.width() * fraction, track.height())), 3, 3);
  }
  const bool selected = opt.state & QStyle::State_Selected;
  painter->setPen(
      opt.palette.color(opt.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled,
                        selected ? QPalette::HighlightedText : QPalette::Text));
  painter->setFont(opt.font);
  painter->drawText(track.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, text);
  painter->restore();
}

QSize ScoreBarDelegate::sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
  QSize s = QStyledItemDelegate::sizeHint(option, index);
  // Room for the bar to read as a bar next to the widest number.
  s.setWidth(std::max(s.width() + 24, 110));
  return s;
}

}  // namespace doppler::views

#include "views/common/legend_bar.h"

#include <QPainter>
#include <QResizeEvent>

namespace doppler::views {

LegendBar::LegendBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("legendBar"));
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

void LegendBar::setEntries(std::vector<LegendEntry> entries) {
  entries_ = std::move(entries);
  fitHeight();
  update();
}

int LegendBar::heightForWidth(int width) const {
  return entries_.empty() ? 0 : legendHeight(entries_, font(), width) + 2;
}

QSize LegendBar::sizeHint() const {
  return {200, heightForWidth(std::max(200, width()))};
}

// Layouts ask boxes for heightForWidth only on their own terms: fixing the height at each width
// keeps the bar exactly as tall as its rows wherever it sits.
void LegendBar::fitHeight() {
  const int h = heightForWidth(std::max(1, width()));
  if (h != height() || minimumHeight() != h) setFixedHeight(h);
}

void LegendBar::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (event->size().width() != event->oldSize().width()) fitHeight();
}

void LegendBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintLegend(p, entries_, font(), QRect(0, 1, width(), height() - 1));
}

}  // namespace doppler::views

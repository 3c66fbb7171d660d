#include "views/common/legend_bar.h"

#include <QPainter>
#include <QResizeEvent>

#include "views/common/theme.h"

namespace doppler::views {
namespace {

QFont titleFontOf(const QFont& base) {
  QFont f = base;
  f.setBold(true);
  return f;
}

}  // namespace

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

void LegendBar::setTitle(const QString& title) {
  title_ = title;
  fitHeight();
  update();
}

int LegendBar::titleHeight() const {
  return title_.isEmpty() ? 0 : QFontMetrics(titleFontOf(font())).height() + 4;
}

int LegendBar::heightForWidth(int width) const {
  return titleHeight() + (entries_.empty() ? 0 : legendHeight(entries_, font(), width) + 2);
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
  // The chart's background, so that the bar and its chart read as one picture in either theme.
  const Theme& t = Theme::current();
  p.fillRect(rect(), t.background);
  const int top = titleHeight();
  if (top > 0) {
    p.setFont(titleFontOf(font()));
    p.setPen(t.text);
    p.drawText(QRect(0, 2, width(), top - 2), Qt::AlignHCenter | Qt::AlignVCenter,
               QFontMetrics(p.font()).elidedText(title_, Qt::ElideRight, width()));
  }
  paintLegend(p, entries_, font(), QRect(0, top + 1, width(), height() - top - 1));
}

}  // namespace doppler::views

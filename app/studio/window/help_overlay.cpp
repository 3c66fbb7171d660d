#include "app/studio/window/help_overlay.h"

#include <QKeyEvent>
#include <QPainter>

#include "views/common/theme.h"

namespace doppler::studio {

HelpOverlay::HelpOverlay(Entries entries, QWidget* parent)
    : QWidget(parent), entries_(std::move(entries)) {
  setObjectName(QStringLiteral("helpOverlay"));
  setFocusPolicy(Qt::StrongFocus);
  hide();
  parent->installEventFilter(this);
}

void HelpOverlay::toggle() {
  if (isVisible()) {
    hide();
    return;
  }
  setGeometry(parentWidget()->rect());
  raise();
  show();
  setFocus();
}

bool HelpOverlay::eventFilter(QObject* watched, QEvent* event) {
  if (watched == parentWidget() && event->type() == QEvent::Resize && isVisible())
    setGeometry(parentWidget()->rect());
  return false;
}

void HelpOverlay::paintEvent(QPaintEvent*) {
  using views::Theme;
  const Theme& t = Theme::current();
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), QColor(0, 0, 0, 140));
  QFont body = font();
  QFont keys = body;
  keys.setBold(true);
  QFont heading = views::titleFont(*this, 1.1);
  QFont title = views::titleFont(*this, 1.5);
  QFontMetrics fm(body), km(keys), hm(heading), tm(title);
  int keyW = 0;
  for (const auto& [k, what] : entries_) keyW = std::max(keyW, km.horizontalAdvance(k));
  int textW = 0;
  for (const auto& [k, what] : entries_) textW = std::max(textW, fm.horizontalAdvance(what));
  const int rows = static_cast<int>(entries_.size());
  // Two columns when the list is long, broken at the heading nearest the middle.
  int brk = rows;
  if (rows > 14)
    for (int i = 1; i < rows; ++i)
      if (entries_[i].second.isEmpty() && std::abs(i - rows / 2) < std::abs(brk - rows / 2))
        brk = i;
  const int perColumn = std::max(brk, rows - brk);
  const int columns = brk < rows ? 2 : 1;
  const int colW = keyW + 24 + textW;
  const int lineH = fm.height() + 6;
  const int panelW = std::min(width() - 40, columns * colW + (columns - 1) * 40 + 60);
  const int panelH = std::min(height() - 40, tm.height() + 30 + perColumn * lineH + 50);
  const QRect panel((width() - panelW) / 2, (height() - panelH) / 2, panelW, panelH);
  p.setPen(Qt::NoPen);
  p.setBrush(t.panel);
  p.drawRoundedRect(panel, 10, 10);
  p.setPen(t.text);
  p.setFont(title);
  p.drawText(QRect(panel.left() + 30, panel.top() + 18, panelW - 60, tm.height()), Qt::AlignLeft,
             tr("Keyboard shortcuts"));
  p.setFont(body);
  p.setPen(t.mutedText);
  p.drawText(QRect(panel.left() + 30, panel.top() + 18, panelW - 60, tm.height()),
             Qt::AlignRight | Qt::AlignVCenter, tr("? or Esc closes"));
  const int top = panel.top() + 30 + tm.height();
  for (int i = 0; i < rows; ++i) {
    const int col = i < brk ? 0 : 1, row = i < brk ? i : i - brk;
    const int x = panel.left() + 30 + col * (colW + 40);
    const int y = top + row * lineH;
    const auto& [k, what] = entries_[i];
    if (what.isEmpty()) {
      p.setFont(heading);
      p.setPen(t.text);
      p.drawText(QPoint(x, y + hm.ascent()), k);
      continue;
    }
    p.setFont(keys);
    p.setPen(t.rangeEdge);
    p.drawText(QPoint(x, y + km.ascent()), k);
    p.setFont(body);
    p.setPen(t.text);
    p.drawText(QPoint(x + keyW + 24, y + fm.ascent()), what);
  }
}

void HelpOverlay::mousePressEvent(QMouseEvent*) {
  hide();
}

void HelpOverlay::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape || event->key() == Qt::Key_Question) {
    hide();
    event->accept();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace doppler::studio

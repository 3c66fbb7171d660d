#include "views/timeline/timeline_search_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>

namespace doppler::views {

TimelineSearchBar::TimelineSearchBar(QWidget* parent)
    : QWidget(parent), edit_(new QLineEdit), count_(new QLabel) {
  setObjectName(QStringLiteral("timelineSearch"));
  setAutoFillBackground(true);  // readable over the bars
  edit_->setObjectName(QStringLiteral("timelineSearchEdit"));
  edit_->setPlaceholderText(tr("Find node by id or op (Enter: next, Esc: close)"));
  edit_->setClearButtonEnabled(true);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->addWidget(edit_, 1);
  layout->addWidget(count_);
  connect(edit_, &QLineEdit::textChanged, this, &TimelineSearchBar::textChanged);
  connect(edit_, &QLineEdit::returnPressed, this, &TimelineSearchBar::nextRequested);
  hide();
}

QString TimelineSearchBar::text() const {
  return edit_->text();
}

void TimelineSearchBar::open() {
  show();
  raise();
  edit_->setFocus();
  edit_->selectAll();
}

void TimelineSearchBar::showCount(int index, int count) {
  count_->setText(edit_->text().trimmed().isEmpty() ? QString()
                  : count == 0                      ? tr("no match")
                                                    : tr("%1 of %2").arg(index + 1).arg(count));
}

void TimelineSearchBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() != Qt::Key_Escape) return QWidget::keyPressEvent(event);
  hide();
  Q_EMIT closed();
  event->accept();
}

}  // namespace doppler::views

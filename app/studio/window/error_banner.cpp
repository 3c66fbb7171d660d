#include "app/studio/window/error_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace doppler::studio {

ErrorBanner::ErrorBanner(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("errorBanner"));
  setStyleSheet(QStringLiteral(
      "#errorBanner { background: #fdecea; border: 1px solid #e57373; border-radius: 4px; }"
      "#errorBanner QLabel { color: #8e1c1c; }"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 6, 6, 6);
  auto* icon = new QLabel;
  icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(20, 20));
  text_ = new QLabel;
  text_->setObjectName(QStringLiteral("errorText"));
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* close = new QToolButton;
  close->setText(QStringLiteral("✕"));
  close->setAutoRaise(true);
  connect(close, &QToolButton::clicked, this, &QWidget::hide);
  layout->addWidget(icon);
  layout->addWidget(text_, 1);
  layout->addWidget(close);
  hide();
}

void ErrorBanner::showMessage(const QString& message) {
  message_ = message;
  text_->setText(tr("<b>Could not use that input.</b> %1").arg(message.toHtmlEscaped()));
}

}  // namespace doppler::studio

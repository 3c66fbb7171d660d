#include "app/studio/window/presentation_mode.h"

#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QStatusBar>
#include <QToolBar>

namespace doppler::studio {

PresentationMode::PresentationMode(QMainWindow* window, QWidget* graph, QWidget* timeline)
    : QObject(window), window_(window), graph_(graph), timeline_(timeline) {}

void PresentationMode::enter(QWidget* first) {
  if (active_) return;
  active_ = true;
  state_ = window_->saveState();
  geometry_ = window_->saveGeometry();
  wasMaximized_ = window_->isMaximized();
  font_ = QApplication::font();
  presented_ = first == timeline_ ? timeline_ : graph_;
  window_->menuBar()->hide();
  for (QToolBar* bar : window_->findChildren<QToolBar*>()) bar->hide();
  const bool keepCompanion = companion_ && companion_->isVisible() && !companion_->isFloating();
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>())
    if (!(keepCompanion && dock == companion_)) dock->hide();
  if (keepCompanion) {
    companion_->raise();
    window_->resizeDocks({companion_.data()}, {window_->width() * 2 / 5}, Qt::Horizontal);
  }
  window_->statusBar()->hide();
  if (QWidget* banner = window_->findChild<QWidget*>(QStringLiteral("errorBanner"))) banner->hide();
  (presented_ == graph_ ? timeline_ : graph_)->hide();
  QFont big = font_;
  if (big.pointSizeF() > 0)
    big.setPointSizeF(big.pointSizeF() * 1.6);
  else
    big.setPixelSize(big.pixelSize() * 8 / 5);
  QApplication::setFont(big);
  window_->showFullScreen();
  presented_->setFocus();
  Q_EMIT activeChanged(true);
}

void PresentationMode::leave() {
  if (!active_) return;
  active_ = false;
  QApplication::setFont(font_);
  window_->menuBar()->show();
  for (QToolBar* bar : window_->findChildren<QToolBar*>()) bar->show();
  window_->statusBar()->show();
  graph_->show();
  timeline_->show();
  window_->restoreState(state_);
  if (wasMaximized_) {
    window_->showMaximized();
  } else {
    window_->showNormal();
    // Full screen resized the window; the size before it comes back too (a companion dock's
    // width would otherwise leave it where the screen's shape put it).
    window_->restoreGeometry(geometry_);
  }
  Q_EMIT activeChanged(false);
}

void PresentationMode::presentOtherView() {
  if (!active_) return;
  QWidget* next = presented_ == graph_ ? timeline_ : graph_;
  presented_->hide();
  next->show();
  next->setFocus();
  presented_ = next;
}

}  // namespace doppler::studio

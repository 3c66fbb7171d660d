#pragma once
// Mouse input for the Qt tests (views, studio): QTest has clicks but no plain move or drag with
// buttons held, which hover and range selection need. Header-only, so the Qt-free support
// library stays free of Qt.
#include <QApplication>
#include <QMouseEvent>
#include <QWidget>

namespace doppler::qtest {

// Sends one mouse event of `type` at `pos` (widget coordinates) with `buttons` held.
inline void sendMouse(QWidget* widget, QEvent::Type type, QPoint pos, Qt::MouseButton button,
                      Qt::MouseButtons buttons) {
  QMouseEvent event(type, QPointF(pos), widget->mapToGlobal(QPointF(pos)), button, buttons,
                    Qt::NoModifier);
  QApplication::sendEvent(widget, &event);
}

}  // namespace doppler::qtest

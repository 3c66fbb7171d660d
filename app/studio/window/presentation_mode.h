#pragma once
// Presentation mode (F5): one view full screen with large fonts and no chrome (menus, toolbars,
// docks, status bar, banner); Tab presents the other view, Esc leaves and restores the window as
// it was (docks, size, font). A companion dock (the decision stepper) that is open when
// presentation starts stays beside the view, so a meeting sees the graph and the decisions side
// by side.
#include <QByteArray>
#include <QDockWidget>
#include <QFont>
#include <QObject>
#include <QPointer>

class QMainWindow;
class QWidget;

namespace doppler::studio {

class PresentationMode : public QObject {
  Q_OBJECT
 public:
  PresentationMode(QMainWindow* window, QWidget* graph, QWidget* timeline);

  bool active() const { return active_; }
  // `first` is the view presented first (the focused one); the other is hidden.
  void enter(QWidget* first);
  void leave();
  void presentOtherView();
  void setCompanion(QDockWidget* dock) { companion_ = dock; }

 Q_SIGNALS:
  void activeChanged(bool active);

 private:
  QMainWindow* window_;
  QWidget* graph_;
  QWidget* timeline_;
  bool active_ = false;
  QByteArray state_, geometry_;
  QFont font_;
  bool wasMaximized_ = false;
  QPointer<QWidget> presented_;
  QPointer<QDockWidget> companion_;
};

}  // namespace doppler::studio

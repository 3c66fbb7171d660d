// MainWindow, the session part: what the window restores on start (settings, the last graph or
// the demo) and saves on close, and the recent files.
#include <QCloseEvent>
#include <QFileInfo>
#include <QMenu>

#include "app/studio/main_window.h"
#include "app/studio/presentation_mode.h"
#include "app/studio/studio_document.h"
#include "app/studio/studio_toolbar.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

using namespace doppler::views;

namespace {
constexpr int kMaxRecent = 8;
}  // namespace

void MainWindow::restoreSession() {
  restoreGeometry(settings_.geometry());
  restoreState(settings_.windowState());
  recent_ = settings_.recentFiles();
  rebuildRecentMenu();
  if (options_.dark ? *options_.dark : settings_.darkTheme()) setDarkTheme(true);

  PlacementSettings initial;
  if (!settings_.method().isEmpty()) initial.method = settings_.method().toStdString();
  if (!options_.method.isEmpty()) initial.method = options_.method.toStdString();
  try {
    // The general policy is the one method outside the registry, offered where it can run.
    if (!tuner_->hasMethod(QString::fromStdString(initial.method))) findMethod(initial.method);
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    initial.method = PlacementSettings().method;
  }
  tuner_->setSettings(initial);
  toolbar_->showMethod(QString::fromStdString(initial.method));
  document_->setSettings(tuner_->settings());

  const QString devices = options_.devices.isEmpty() ? settings_.devices() : options_.devices;
  QString error;
  if (!devices.isEmpty() && !document_->setDevicesSpec(devices, &error)) showError(error);

  bool opened = false;
  if (!options_.file.isEmpty()) opened = openFile(options_.file);
  const QString last = settings_.lastGraph();
  if (!opened && options_.file.isEmpty() && !options_.demo && settings_.firstRunDone() &&
      !last.isEmpty() && QFileInfo::exists(last))
    opened = document_->openGraphFile(last, &error);
  if (!opened) {
    const QString keep = lastError_;
    loadDemo();
    if (!keep.isEmpty()) showError(keep);
  }
  settings_.setFirstRunDone(true);
}

void MainWindow::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  settings_.setRecentFiles(recent_);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& path : recent_) {
    QAction* a =
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
    a->setToolTip(path);
    a->setStatusTip(path);
  }
  if (recent_.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
  recentMenu_->addSeparator();
  recentMenu_->addAction(tr("Clear"), this, [this] {
    recent_.clear();
    settings_.setRecentFiles(recent_);
    rebuildRecentMenu();
  });
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!settings_.fresh()) {
    if (presentation_->active()) presentation_->leave();
    settings_.setGeometry(saveGeometry());
    settings_.setWindowState(saveState());
    settings_.setMethod(QString::fromStdString(document_->settings().method));
    settings_.setDevices(document_->devicesSpec());
    const QString source = document_->graphSource();
    settings_.setLastGraph(QFileInfo::exists(source) ? source : QString());
  }
  document_->cancel();
  QMainWindow::closeEvent(event);
}

}  // namespace doppler::studio

// MainWindow, the session part: what the window restores on start (settings, the last graph or
// the demo) and saves on close.
#include <QCloseEvent>
#include <QFileInfo>

#include "app/studio/document/studio_document.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/presentation_mode.h"
#include "app/studio/window/studio_toolbar.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

using namespace doppler::views;

void MainWindow::restoreSession() {
  restoreGeometry(settings_.geometry());
  restoreState(settings_.windowState());
  if (options_.dark ? *options_.dark : settings_.darkTheme()) setDarkTheme(true);

  TunerWidget* tuner = docks_->tuner();
  PlacementSettings initial;
  if (!settings_.method().isEmpty()) initial.method = settings_.method().toStdString();
  if (!options_.method.isEmpty()) initial.method = options_.method.toStdString();
  try {
    findMethod(initial.method);  // a stored method this build lacks (doppler without weights)
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    initial.method = PlacementSettings().method;
  }
  tuner->setSettings(initial);
  toolbar_->showMethod(QString::fromStdString(initial.method));
  document_->setSettings(tuner->settings());

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

// MainWindow, the actions part: the menus (their keys come from the one shortcut table in
// views/common/shortcuts.h, which also feeds the views' key handling and the `?` overlay) and
// the file, export and clipboard actions behind them.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFileDialog>
#include <QIcon>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

#include "app/studio/generate_dialog.h"
#include "app/studio/help_overlay.h"
#include "app/studio/job_runner.h"
#include "app/studio/main_window.h"
#include "app/studio/presentation_mode.h"
#include "app/studio/studio_document.h"
#include "core/exec/cuda_backend.h"
#include "views/common/image_export.h"
#include "views/common/shortcuts.h"
#include "views/graph/graph_view.h"
#include "views/timeline/timeline_view.h"

namespace doppler::studio {

using namespace doppler::views;

namespace {

QAction* withKeys(QAction* action, Command command) {
  action->setShortcuts(keysOf(command));
  return action;
}

// The overlay's rows: each section's heading, then its documented shortcuts.
HelpOverlay::Entries helpEntries() {
  HelpOverlay::Entries entries;
  QString section;
  for (const Shortcut& s : shortcuts()) {
    if (s.description.isEmpty()) continue;
    if (s.section != section) entries.emplace_back(section = s.section, QString());
    entries.emplace_back(keysText(s), s.description);
  }
  return entries;
}

}  // namespace

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  withKeys(file->addAction(QIcon(QStringLiteral(":/icons/open.svg")), tr("&Open Graph or Devices…"),
                           this, &MainWindow::openDialog),
           Command::Open)
      ->setObjectName(QStringLiteral("actionOpen"));
  withKeys(file->addAction(QIcon(QStringLiteral(":/icons/devices.svg")), tr("Open &Device Set…"),
                           this, &MainWindow::openDevicesDialog),
           Command::OpenDevices);
  withKeys(file->addAction(QIcon(QStringLiteral(":/icons/generate.svg")), tr("&Generate Workload…"),
                           this, &MainWindow::generateDialog),
           Command::Generate)
      ->setObjectName(QStringLiteral("actionGenerate"));
  file->addAction(tr("Open the &Demo"), this, &MainWindow::loadDemo);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName(QStringLiteral("recentMenu"));
  file->addSeparator();
  addSessionActions(file);
  file->addSeparator();
  QMenu* exportMenu = file->addMenu(QIcon(QStringLiteral(":/icons/export.svg")), tr("&Export"));
  exportMenu->addAction(tr("Graph as PNG…"), this,
                        [this] { exportImage(graphView_, QStringLiteral("png")); });
  exportMenu->addAction(tr("Graph as SVG…"), this,
                        [this] { exportImage(graphView_, QStringLiteral("svg")); });
  exportMenu->addAction(tr("Timeline as PNG…"), this,
                        [this] { exportImage(timelineView_, QStringLiteral("png")); });
  exportMenu->addAction(tr("Timeline as SVG…"), this,
                        [this] { exportImage(timelineView_, QStringLiteral("svg")); });
  exportMenu->addAction(tr("Timeline as Chrome Trace JSON (Perfetto)…"), this,
                        &MainWindow::exportTrace);
  exportMenu->addAction(tr("Window as PNG…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save window image"), QStringLiteral("studio.png"), tr("PNG image (*.png)"));
    if (!path.isEmpty() && !grab().save(path, "PNG"))
      showError(tr("%1: cannot write the image").arg(path));
  });
  file->addSeparator();
  withKeys(file->addAction(tr("&Quit"), this, &QWidget::close), Command::Quit);

  QMenu* edit = editMenu_ = menuBar()->addMenu(tr("&Edit"));
  withKeys(edit->addAction(tr("&Copy Image of Focused View"), this, &MainWindow::copyFocusedImage),
           Command::CopyImage);
  edit->addAction(tr("Copy Image of &Graph"), this, [this] { copyImage(*graphView_); });
  edit->addAction(tr("Copy Image of &Timeline"), this, [this] { copyImage(*timelineView_); });
  edit->addSeparator();
  QAction* find =
      withKeys(edit->addAction(QIcon(QStringLiteral(":/icons/find.svg")), tr("&Find Node…"), this,
                               [this] {
                                 graphView_->setFocus();
                                 graphView_->showSearch();
                               }),
               Command::Find);
  find->setShortcutContext(Qt::WindowShortcut);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  viewMenu_->addAction(QIcon(QStringLiteral(":/icons/fit.svg")), tr("Fit Graph and Timeline"), this,
                       [this] {
                         graphView_->fitAll();
                         timelineView_->fit();
                       });
  QAction* critical =
      withKeys(viewMenu_->addAction(tr("Show &Critical Path")), Command::CriticalPath);
  critical->setCheckable(true);
  critical->setChecked(true);
  connect(critical, &QAction::toggled, graphView_, &GraphView::setCriticalPathVisible);
  connect(critical, &QAction::toggled, timelineView_, &TimelineView::setCriticalPathVisible);
  QAction* flip =
      withKeys(viewMenu_->addAction(tr("&Flip Graph Layout Direction")), Command::FlipLayout);
  flip->setObjectName(QStringLiteral("actionFlipLayout"));
  connect(flip, &QAction::triggered, graphView_, &GraphView::flipLayoutDirection);
  viewMenu_->addAction(tr("Graph Layout Direction from the Pane's &Shape"), this,
                       [this] { graphView_->setLayoutDirectionChoice(std::nullopt); });
  withKeys(viewMenu_->addAction(tr("Next Timeline &Colouring"), timelineView_,
                                &TimelineView::cycleColorMode),
           Command::TimelineColour)
      ->setShortcutContext(Qt::WidgetShortcut);  // the timeline's own key handling does it
  darkAction_ =
      withKeys(viewMenu_->addAction(QIcon(QStringLiteral(":/icons/theme.svg")), tr("&Dark Theme")),
               Command::DarkTheme);
  darkAction_->setCheckable(true);
  connect(darkAction_, &QAction::toggled, this, &MainWindow::setDarkTheme);
  presentAction_ = withKeys(
      viewMenu_->addAction(QIcon(QStringLiteral(":/icons/present.svg")), tr("&Presentation Mode")),
      Command::Presentation);
  presentAction_->setCheckable(true);
  connect(presentAction_, &QAction::toggled, this, &MainWindow::setPresentationMode);
  // Active only while presenting (a disabled action's shortcut does nothing).
  auto* leave = withKeys(new QAction(tr("Leave Presentation"), this), Command::LeavePresentation);
  leave->setEnabled(false);
  connect(leave, &QAction::triggered, this, [this] { setPresentationMode(false); });
  auto* other =
      withKeys(new QAction(tr("Present the Other View"), this), Command::PresentOtherView);
  other->setEnabled(false);
  connect(other, &QAction::triggered, presentation_, &PresentationMode::presentOtherView);
  addActions({leave, other});
  connect(presentation_, &PresentationMode::activeChanged, leave, &QAction::setEnabled);
  connect(presentation_, &PresentationMode::activeChanged, other, &QAction::setEnabled);
  // The Fleet perspective: the fleet workbench instead of the graph and the timeline.
  fleetAction_ = withKeys(viewMenu_->addAction(tr("&Fleet Workbench")), Command::FleetPerspective);
  fleetAction_->setObjectName(QStringLiteral("actionFleetPerspective"));
  fleetAction_->setCheckable(true);
  connect(fleetAction_, &QAction::toggled, this, &MainWindow::setFleetPerspective);
  viewMenu_->addSeparator();

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  withKeys(run->addAction(tr("&Execute on CPU"), this, &MainWindow::executeOnCpu),
           Command::ExecuteOnCpu)
      ->setObjectName(QStringLiteral("actionExecuteOnCpu"));
  // The CUDA backend, in builds that have it: whether a GPU is there is asked when the menu
  // opens (the CUDA runtime starts then, not with the studio), and the reason shows when none is.
  if (exec::cudaBackendBuiltIn()) {
    QAction* gpu = withKeys(run->addAction(tr("Execute on &GPU"), this, &MainWindow::executeOnGpu),
                            Command::ExecuteOnGpu);
    gpu->setObjectName(QStringLiteral("actionExecuteOnGpu"));
    connect(run, &QMenu::aboutToShow, gpu, [gpu] {
      std::string why;
      const int gpus = exec::cudaDeviceCount(&why);
      gpu->setEnabled(gpus > 0);
      gpu->setText(gpus == 1  ? tr("Execute on &GPU (1 GPU)")
                   : gpus > 1 ? tr("Execute on &GPU (%1 GPUs)").arg(gpus)
                              : tr("Execute on &GPU (%1)").arg(QString::fromStdString(why)));
    });
  }
  QAction* cancelExecution =
      run->addAction(tr("&Cancel Execution"), this, [this] { jobs_->cancel(JobSlot::Execution); });
  cancelExecution->setObjectName(QStringLiteral("actionCancelExecution"));
  cancelExecution->setEnabled(false);
  connect(jobs_, &JobRunner::busyChanged, cancelExecution,
          [cancelExecution](JobSlot slot, bool busy) {
            if (slot == JobSlot::Execution) cancelExecution->setEnabled(busy);
          });

  help_ = new HelpOverlay(helpEntries(), this);
  QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
  withKeys(helpMenu->addAction(tr("&Keyboard Shortcuts"), this, [this] { help_->toggle(); }),
           Command::Help)
      ->setShortcutContext(Qt::ApplicationShortcut);
  helpMenu->addAction(tr("&About Doppler Studio"), this, [this] {
    QMessageBox::about(
        this, tr("About Doppler Studio"),
        tr("<b>Doppler Studio</b><br>Placing dataflow graphs on GPUs: graph, timeline and "
           "heuristic tuner.<br>Graph layout by Graphviz dot."));
  });
}

void MainWindow::openDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open a graph or a device set"), QString(),
                                   tr("Graphs, ONNX models and device sets (*.json *.txt *.onnx);;"
                                      "ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::openDevicesDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a device set"), QString(),
                                                    tr("Device sets (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!document_->setDevicesSpec(path, &error)) showError(error);
}

void MainWindow::generateDialog() {
  GenerateDialog dialog(this);
  if (dialog.exec() != QDialog::Accepted || !dialog.graph()) return;
  QString error;
  if (!document_->setGraph(*dialog.graph(), tr("generated: %1").arg(dialog.kind()), &error))
    showError(error);
}

void MainWindow::exportImage(ImageSource* source, const QString& format) {
  if (const QString why = source->notReadyReason(); !why.isEmpty()) return showError(why);
  const auto g = document_->graph();
  const QString base =
      (g ? QString::fromStdString(g->name) + QStringLiteral("-") : QString()) + source->imageName();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(source->imageName()), base + QStringLiteral(".") + format,
      format == QStringLiteral("svg") ? tr("SVG drawing (*.svg)") : tr("PNG image (*.png)"));
  if (path.isEmpty()) return;
  const QString error =
      format == QStringLiteral("svg") ? saveSvg(*source, path, base) : savePng(*source, path, 2.0);
  if (!error.isEmpty()) showError(error);
}

void MainWindow::exportTrace() {
  const auto g = document_->graph();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Chrome trace"),
      (g ? QString::fromStdString(g->name) : QStringLiteral("timeline")) +
          QStringLiteral(".trace.json"),
      tr("Chrome Trace JSON (*.json)"));
  if (path.isEmpty()) return;
  const QString error = timelineView_->exportChromeTrace(path);
  if (!error.isEmpty())
    showError(error);
  else
    statusBar()->showMessage(tr("Wrote %1 (open it in ui.perfetto.dev)").arg(path), 8000);
}

ImageSource* MainWindow::focusedSource() const {
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget()) {
    if (w == graphView_) return graphView_;
    if (w == timelineView_) return timelineView_;
  }
  return nullptr;
}

void MainWindow::copyImage(ImageSource& source) {
  const QString why = copyImageToClipboard(source);
  statusBar()->showMessage(
      why.isEmpty() ? tr("Copied an image of the %1").arg(source.imageName()) : why, 6000);
}

void MainWindow::copyFocusedImage() {
  if (ImageSource* source = focusedSource()) return copyImage(*source);
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) {
      QApplication::clipboard()->setPixmap(dock->widget()->grab());
      statusBar()->showMessage(tr("Copied an image of %1").arg(dock->windowTitle()), 4000);
      return;
    }
  copyImage(*graphView_);
}

}  // namespace doppler::studio

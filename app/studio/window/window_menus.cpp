// The window's menus (window_menus.h).
#include "app/studio/window/window_menus.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

#include "app/studio/dialogs/generate_dialog.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/panels/stepper_page.h"
#include "app/studio/panels/training_page.h"
#include "app/studio/window/help_overlay.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/presentation_mode.h"
#include "app/studio/window/studio_settings.h"
#include "resources/version.h"
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

constexpr int kMaxRecent = 8;

}  // namespace

WindowMenus::WindowMenus(MainWindow* window) : QObject(window), window_(window) {
  QMenuBar* bar = window->menuBar();
  QMenu* file = menus_[int(WindowMenu::File)] = bar->addMenu(tr("&File"));
  withKeys(file->addAction(QIcon(QStringLiteral(":/icons/open.svg")), tr("&Open Graph or Devices…"),
                           this, &WindowMenus::openDialog),
           Command::Open)
      ->setObjectName(QStringLiteral("actionOpen"));
  withKeys(file->addAction(QIcon(QStringLiteral(":/icons/devices.svg")), tr("Open &Device Set…"),
                           this, &WindowMenus::openDevicesDialog),
           Command::OpenDevices);
  withKeys(file->addAction(QIcon(QStringLiteral(":/icons/generate.svg")), tr("&Generate Workload…"),
                           this, &WindowMenus::generateDialog),
           Command::Generate)
      ->setObjectName(QStringLiteral("actionGenerate"));
  file->addAction(tr("Open the &Demo"), window_, &MainWindow::loadDemo);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName(QStringLiteral("recentMenu"));
  file->addSeparator();  // the Runs page's session entries follow

  QMenu* edit = menus_[int(WindowMenu::Edit)] = bar->addMenu(tr("&Edit"));
  withKeys(edit->addAction(tr("&Copy Image of Focused View"), this, &WindowMenus::copyFocusedImage),
           Command::CopyImage);
  edit->addAction(tr("Copy Image of &Graph"), this, [this] { copyImage(*window_->graphView()); });
  edit->addAction(tr("Copy Image of &Timeline"), this,
                  [this] { copyImage(*window_->timelineView()); });
  edit->addSeparator();
  // Ctrl+F finds in the timeline when it has the focus, else in the graph.
  QAction* find =
      withKeys(edit->addAction(QIcon(QStringLiteral(":/icons/find.svg")), tr("&Find Node…"), this,
                               [this] {
                                 if (focusedSource() == window_->timelineView())
                                   return window_->timelineView()->showSearch();
                                 window_->graphView()->setFocus();
                                 window_->graphView()->showSearch();
                               }),
               Command::Find);
  find->setShortcutContext(Qt::WindowShortcut);

  QMenu* view = menus_[int(WindowMenu::View)] = bar->addMenu(tr("&View"));
  view->addAction(QIcon(QStringLiteral(":/icons/fit.svg")), tr("Fit Graph and Timeline"), this,
                  [this] {
                    window_->graphView()->fitAll();
                    window_->timelineView()->fit();
                  });
  QAction* critical = withKeys(view->addAction(tr("Show &Critical Path")), Command::CriticalPath);
  critical->setCheckable(true);
  critical->setChecked(true);
  connect(critical, &QAction::toggled, window_->graphView(), &GraphView::setCriticalPathVisible);
  connect(critical, &QAction::toggled, window_->timelineView(),
          &TimelineView::setCriticalPathVisible);
  QAction* flip =
      withKeys(view->addAction(tr("&Flip Graph Layout Direction")), Command::FlipLayout);
  flip->setObjectName(QStringLiteral("actionFlipLayout"));
  connect(flip, &QAction::triggered, window_->graphView(), &GraphView::flipLayoutDirection);
  view->addAction(tr("Graph Layout Direction from the Pane's &Shape"), this,
                  [this] { window_->graphView()->setLayoutDirectionChoice(std::nullopt); });
  withKeys(view->addAction(tr("Next Timeline &Colouring"), window_->timelineView(),
                           &TimelineView::cycleColorMode),
           Command::TimelineColour)
      ->setShortcutContext(Qt::WidgetShortcut);  // the timeline's own key handling does it
  darkAction_ =
      withKeys(view->addAction(QIcon(QStringLiteral(":/icons/theme.svg")), tr("&Dark Theme")),
               Command::DarkTheme);
  darkAction_->setCheckable(true);
  connect(darkAction_, &QAction::toggled, window_, &MainWindow::setDarkTheme);
  presentAction_ = withKeys(
      view->addAction(QIcon(QStringLiteral(":/icons/present.svg")), tr("&Presentation Mode")),
      Command::Presentation);
  presentAction_->setCheckable(true);
  connect(presentAction_, &QAction::toggled, window_, &MainWindow::setPresentationMode);
  // Active only while presenting (a disabled action's shortcut does nothing).
  auto* leave = withKeys(new QAction(tr("Leave Presentation"), window), Command::LeavePresentation);
  leave->setEnabled(false);
  connect(leave, &QAction::triggered, window, [window] { window->setPresentationMode(false); });
  auto* other =
      withKeys(new QAction(tr("Present the Other View"), window), Command::PresentOtherView);
  other->setEnabled(false);
  connect(other, &QAction::triggered, window_->presentation(), &PresentationMode::presentOtherView);
  window->addActions({leave, other});
  connect(window_->presentation(), &PresentationMode::activeChanged, leave, &QAction::setEnabled);
  connect(window_->presentation(), &PresentationMode::activeChanged, other, &QAction::setEnabled);
  menus_[int(WindowMenu::Run)] = bar->addMenu(tr("&Run"));

  // Each feature's views ask for their image copied, saved or exported.
  connect(window_->graphView(), &GraphView::copyImageRequested, this,
          [this] { copyImage(*window_->graphView()); });
  connect(window_->graphView(), &GraphView::saveImageRequested, this,
          [this] { saveImageInteractively(*window_->graphView(), window_); });
  connect(window_->timelineView(), &TimelineView::copyImageRequested, this,
          [this] { copyImage(*window_->timelineView()); });
  connect(window_->timelineView(), &TimelineView::saveImageRequested, this,
          [this] { saveImageInteractively(*window_->timelineView(), window_); });
  connect(window_->timelineView(), &TimelineView::exportTraceRequested, this,
          &WindowMenus::exportTrace);
  connect(window_->presentation(), &PresentationMode::activeChanged, this, [this](bool on) {
    if (presentAction_->isChecked() != on) {
      QSignalBlocker block(presentAction_);
      presentAction_->setChecked(on);
    }
  });
  recent_ = window->settings().recentFiles();
  rebuildRecentMenu();
}

void WindowMenus::finish() {
  QMenu* file = menu(WindowMenu::File);
  file->addSeparator();
  QMenu* exportMenu = file->addMenu(QIcon(QStringLiteral(":/icons/export.svg")), tr("&Export"));
  exportMenu->addAction(tr("Graph as PNG…"), this,
                        [this] { exportImage(window_->graphView(), QStringLiteral("png")); });
  exportMenu->addAction(tr("Graph as SVG…"), this,
                        [this] { exportImage(window_->graphView(), QStringLiteral("svg")); });
  exportMenu->addAction(tr("Timeline as PNG…"), this,
                        [this] { exportImage(window_->timelineView(), QStringLiteral("png")); });
  exportMenu->addAction(tr("Timeline as SVG…"), this,
                        [this] { exportImage(window_->timelineView(), QStringLiteral("svg")); });
  exportMenu->addAction(tr("Timeline as Chrome Trace JSON (Perfetto)…"), this,
                        &WindowMenus::exportTrace);
  exportMenu->addAction(tr("Window as PNG…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("Save window image"), QStringLiteral("studio.png"), tr("PNG image (*.png)"));
    if (!path.isEmpty() && !window_->grab().save(path, "PNG"))
      window_->showError(tr("%1: cannot write the image").arg(path));
  });
  file->addSeparator();
  withKeys(file->addAction(tr("&Quit"), window_, &QWidget::close), Command::Quit);

  QMenu* view = menu(WindowMenu::View);
  view->addSeparator();
  PlacementDocks* docks = window_->docks();
  QList<QDockWidget*> toggles = {window_->runsPage()->dock()};
  toggles += docks->sideDocks();
  toggles.insert(toggles.indexOf(docks->devicesDock()) + 1, window_->stepperPage()->dock());
  toggles += window_->trainingPage()->dock();
  toggles += docks->bottomDocks();
  for (QDockWidget* d : toggles) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("Reset Layout"), window_, &MainWindow::resetLayout);

  help_ = new HelpOverlay(helpEntries(), window_);
  QMenu* helpMenu = window_->menuBar()->addMenu(tr("&Help"));
  withKeys(helpMenu->addAction(tr("&Keyboard Shortcuts"), this, [this] { help_->toggle(); }),
           Command::Help)
      ->setShortcutContext(Qt::ApplicationShortcut);
  helpMenu->addAction(tr("&About Doppler Studio"), this, [this] {
    QMessageBox::about(
        window_, tr("About Doppler Studio"),
        tr("<b>Doppler Studio</b> %1<br>Placing dataflow graphs on GPUs: graph, timeline and "
           "heuristic tuner.<br>Graph layout by Graphviz dot.")
            .arg(QString::fromStdString(resources::versionLine()).toHtmlEscaped()));
  });
}

void WindowMenus::openDialog() {
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Open a graph or a device set"), QString(),
                                   tr("Graphs, ONNX models and device sets (*.json *.txt *.onnx);;"
                                      "ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) window_->openFile(path);
}

void WindowMenus::openDevicesDialog() {
  const QString path = QFileDialog::getOpenFileName(window_, tr("Open a device set"), QString(),
                                                    tr("Device sets (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!window_->document()->setDevicesSpec(path, &error)) window_->showError(error);
}

void WindowMenus::generateDialog() {
  GenerateDialog dialog(window_);
  if (dialog.exec() != QDialog::Accepted || !dialog.graph()) return;
  QString error;
  if (!window_->document()->setGraph(*dialog.graph(), tr("generated: %1").arg(dialog.kind()),
                                     &error))
    window_->showError(error);
}

void WindowMenus::exportImage(ImageSource* source, const QString& format) {
  if (const QString why = source->notReadyReason(); !why.isEmpty()) return window_->showError(why);
  const auto g = window_->document()->graph();
  const QString base =
      (g ? QString::fromStdString(g->name) + QStringLiteral("-") : QString()) + source->imageName();
  const QString path = QFileDialog::getSaveFileName(
      window_, tr("Export %1").arg(source->imageName()), base + QStringLiteral(".") + format,
      format == QStringLiteral("svg") ? tr("SVG drawing (*.svg)") : tr("PNG image (*.png)"));
  if (path.isEmpty()) return;
  const QString error =
      format == QStringLiteral("svg") ? saveSvg(*source, path, base) : savePng(*source, path, 2.0);
  if (!error.isEmpty()) window_->showError(error);
}

void WindowMenus::exportTrace() {
  const auto g = window_->document()->graph();
  const QString path = QFileDialog::getSaveFileName(
      window_, tr("Export Chrome trace"),
      (g ? QString::fromStdString(g->name) : QStringLiteral("timeline")) +
          QStringLiteral(".trace.json"),
      tr("Chrome Trace JSON (*.json)"));
  if (path.isEmpty()) return;
  const QString error = window_->timelineView()->exportChromeTrace(path);
  if (!error.isEmpty())
    window_->showError(error);
  else
    window_->statusBar()->showMessage(tr("Wrote %1 (open it in ui.perfetto.dev)").arg(path), 8000);
}

ImageSource* WindowMenus::focusedSource() const {
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget()) {
    if (w == window_->graphView()) return window_->graphView();
    if (w == window_->timelineView()) return window_->timelineView();
  }
  return nullptr;
}

void WindowMenus::copyImage(ImageSource& source) {
  const QString why = copyImageToClipboard(source);
  window_->statusBar()->showMessage(
      why.isEmpty() ? tr("Copied an image of the %1").arg(source.imageName()) : why, 6000);
}

void WindowMenus::copyFocusedImage() {
  if (ImageSource* source = focusedSource()) return copyImage(*source);
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) {
      QApplication::clipboard()->setPixmap(dock->widget()->grab());
      window_->statusBar()->showMessage(tr("Copied an image of %1").arg(dock->windowTitle()), 4000);
      return;
    }
  copyImage(*window_->graphView());
}

void WindowMenus::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  window_->settings().setRecentFiles(recent_);
  rebuildRecentMenu();
}

void WindowMenus::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& path : recent_) {
    QAction* a = recentMenu_->addAction(QFileInfo(path).fileName(), this,
                                        [this, path] { window_->openFile(path); });
    a->setToolTip(path);
    a->setStatusTip(path);
  }
  if (recent_.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
  recentMenu_->addSeparator();
  recentMenu_->addAction(tr("Clear"), this, [this] {
    recent_.clear();
    window_->settings().setRecentFiles(recent_);
    rebuildRecentMenu();
  });
}

void WindowMenus::showDarkTheme(bool dark) {
  if (darkAction_ && darkAction_->isChecked() != dark) {
    QSignalBlocker block(darkAction_);
    darkAction_->setChecked(dark);
  }
}

}  // namespace doppler::studio

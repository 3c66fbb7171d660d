#pragma once
// The window's own menu entries and what they do: File (open, devices, generate, the demo,
// recent files, export, quit), Edit (copy images, find), View (fit, critical path, layout
// direction, colouring, dark theme, presentation mode, the docks, reset layout), an empty Run
// menu, Help and the `?` overlay. Their keys come from the one shortcut table in
// views/common/shortcuts.h, which also feeds the views' key handling and the overlay. The feature
// pages add their entries between the constructor and finish().
#include <QObject>
#include <QStringList>

class QAction;
class QMenu;

namespace doppler::views {
class ImageSource;
}

namespace doppler::studio {

class MainWindow;
class HelpOverlay;
enum class WindowMenu { File, Edit, View, Run };

class WindowMenus : public QObject {
  Q_OBJECT
 public:
  explicit WindowMenus(MainWindow* window);
  // After the pages: File's export and quit, View's dock toggles, Help.
  void finish();

  QMenu* menu(WindowMenu which) const { return menus_[static_cast<int>(which)]; }
  QMenu* recentMenu() const { return recentMenu_; }
  HelpOverlay* help() const { return help_; }
  void addRecent(const QString& path);
  void showDarkTheme(bool dark);  // the View menu's check, without toggling it again
  void openDialog();
  views::ImageSource* focusedSource() const;

 private:
  void exportImage(views::ImageSource* source, const QString& format);
  void exportTrace();
  void copyImage(views::ImageSource& source);  // or says in the status bar why there is none
  void copyFocusedImage();
  void openDevicesDialog();
  void generateDialog();
  void rebuildRecentMenu();

  MainWindow* window_;
  QMenu* menus_[4] = {};
  QMenu* recentMenu_ = nullptr;
  QAction* darkAction_ = nullptr;
  QAction* presentAction_ = nullptr;
  HelpOverlay* help_ = nullptr;
  QStringList recent_;
};

}  // namespace doppler::studio

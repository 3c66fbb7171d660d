#pragma once
// The studio's main window: a toolbar (graph, device set, method, a large makespan read-out),
// the graph view and the timeline view sharing the centre with synchronized selection and hover,
// and docks (heuristic tuner, node details, devices, nodes, events) that users rearrange; their
// arrangement is saved with QSettings. Later parts dock in beside these (decision stepper,
// training dashboard, run comparison) and add a second perspective (fleet workbench).
#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <optional>

class QComboBox;
class QLabel;
class QMenu;
class QSplitter;
class QTextBrowser;
class QTableView;
class QToolButton;
class QDockWidget;
class QFrame;
class QSortFilterProxyModel;

namespace doppler::views {
class GraphView;
class TimelineView;
class TunerWidget;
class SelectionState;
class NodeTableModel;
class ScheduleModel;
class DeviceSummaryModel;
class ImageSource;
}  // namespace doppler::views

namespace doppler::studio {

class StudioDocument;
class LayoutWorker;
class HelpOverlay;

struct StudioOptions {
  QString file;        // a graph or device file to open
  QString devices;     // --devices SPEC
  QString method;      // --method NAME
  bool demo = false;   // open the demo even if a session would be restored
  bool fresh = false;  // neither read nor write QSettings (tests, grabs)
  std::optional<bool> dark;
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const StudioOptions& options, QWidget* parent = nullptr);
  ~MainWindow() override;

  StudioDocument* document() const { return document_; }
  views::GraphView* graphView() const { return graphView_; }
  views::TimelineView* timelineView() const { return timelineView_; }
  views::TunerWidget* tuner() const { return tuner_; }
  views::SelectionState* selection() const { return selection_; }
  views::DeviceSummaryModel* deviceModel() const { return deviceModel_; }
  QDockWidget* tunerDock() const { return tunerDock_; }
  HelpOverlay* helpOverlay() const { return help_; }
  QString makespanReadout() const;

  // Opens a graph or device file; on failure shows the message (file, place, problem) in a banner
  // and keeps what was open. Returns success.
  bool openFile(const QString& path);
  QString lastError() const { return lastError_; }
  void loadDemo();

  bool presentationMode() const { return presenting_; }
  void setPresentationMode(bool on);
  void setDarkTheme(bool dark);
  // True once the current graph has its layout and no search is running.
  bool isSettled() const;
  bool waitSettled(int timeout_ms);

  // Saves PNGs of every view and the whole window (the demo's evidence); returns the files.
  QStringList grabAll(const QString& dir);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void buildActions();
  void buildToolbar();
  void buildDocks();
  void connectDocument();
  void onGraphChanged();
  void onSnapshotChanged();
  void onSettingsEdited();
  void showError(const QString& message);
  void clearError();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void openDialog();
  void openDevicesDialog();
  void generateDialog();
  void exportImage(views::ImageSource* source, const QString& format);
  void exportTrace();
  void copyFocusedImage();
  views::ImageSource* focusedSource() const;
  void updateTitle();
  void restoreSettings();
  void saveSettings();
  void applyMethodToUi();

  StudioOptions options_;
  StudioDocument* document_;
  views::SelectionState* selection_;
  views::GraphView* graphView_;
  views::TimelineView* timelineView_;
  views::TunerWidget* tuner_;
  views::NodeTableModel* nodeModel_;
  views::ScheduleModel* scheduleModel_;
  views::DeviceSummaryModel* deviceModel_;
  QSortFilterProxyModel* nodeProxy_;
  QTableView* nodeTable_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QSplitter* splitter_;
  QFrame* banner_;
  QLabel* bannerText_;
  QToolButton* graphButton_;
  QComboBox* devicesCombo_;
  QComboBox* methodCombo_;
  QLabel* readoutMain_;
  QLabel* readoutSub_;
  QMenu* recentMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QDockWidget* tunerDock_ = nullptr;
  QDockWidget* detailsDock_ = nullptr;
  QDockWidget* devicesDock_ = nullptr;
  QDockWidget* nodesDock_ = nullptr;
  QDockWidget* eventsDock_ = nullptr;
  HelpOverlay* help_;
  QThread* layoutThread_;
  LayoutWorker* layoutWorker_;
  QAction* criticalAction_ = nullptr;
  QAction* darkAction_ = nullptr;
  QAction* presentAction_ = nullptr;
  QString lastError_;
  QStringList recent_;
  bool presenting_ = false;
  QByteArray presentState_;
  QFont presentFont_;
  bool presentWasMaximized_ = false;
  QPointer<QWidget> presentedView_;
  bool layoutPending_ = false;
  QString layoutStatus_;
};

}  // namespace doppler::studio

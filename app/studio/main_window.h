#pragma once
// The studio's main window: the toolbar, the graph view and the timeline view sharing the centre
// with synchronized selection and hover, and docks (heuristic tuner, settings chart, node details,
// devices, nodes, events) that users rearrange; their arrangement is saved. The window only
// wires parts together: each part is its own class (toolbar, error banner, presentation mode,
// settings, docks), background work goes through the job runner, and the menus are built in
// main_window_actions.cpp from the one shortcut table.
#include <QByteArray>
#include <QLabel>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

#include "app/studio/studio_settings.h"
#include "core/common/cancel_token.h"
#include "views/common/measured_run.h"

class QMenu;
class QSplitter;
class QTextBrowser;
class QTableView;
class QDockWidget;
class QSortFilterProxyModel;
class QStackedWidget;

namespace doppler::views {
class GraphView;
class TimelineView;
class TunerWidget;
class SettingsHistoryChart;
class SelectionState;
class NodeTableModel;
class ScheduleModel;
class DeviceSummaryModel;
class ImageSource;
class StepperWidget;
class TrainingDashboard;
struct TrainingReferences;
class RunsPanel;
class RunCompareView;
class FleetRunModel;
class FleetWorkbench;
}  // namespace doppler::views

namespace doppler::studio {

class StudioDocument;
class JobRunner;
class LayoutCache;
class HelpOverlay;
class ErrorBanner;
class StudioToolbar;
class PresentationMode;
class StepperSession;
class TrainingController;
struct StepperSource;
class RunsController;
class OnnxDimsDialog;
class FleetController;

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
  JobRunner* jobs() const { return jobs_; }
  views::GraphView* graphView() const { return graphView_; }
  views::TimelineView* timelineView() const { return timelineView_; }
  views::TunerWidget* tuner() const { return tuner_; }
  views::SettingsHistoryChart* historyChart() const { return history_; }
  views::SelectionState* selection() const { return selection_; }
  views::DeviceSummaryModel* deviceModel() const { return deviceModel_; }
  QDockWidget* tunerDock() const { return tunerDock_; }
  StepperSession* stepper() const { return stepper_; }
  views::StepperWidget* stepperWidget() const { return stepperWidget_; }
  QDockWidget* stepperDock() const { return stepperDock_; }
  // The decision stepper (main_window_stepper.cpp): shows its dock, starting from the tuner's
  // heuristic when it has nothing yet; or starts it from a given source, a stored run's recorded
  // decisions, or a policy checkpoint (loaded on the job runner).
  void showStepper();
  bool startStepper(StepperSource source);
  bool startStepperFromRun(int64_t run);
  void startStepperFromPolicy(const QString& path);
  // resources/data/policies/general.weights (the shipped policy for placing, no LibTorch needed),
  // or "" when it is missing.
  static QString shippedGeneralPolicyPath();
  // The training dashboard (main_window_training.cpp).
  TrainingController* trainingController() const { return training_; }
  views::TrainingDashboard* trainingDashboard() const { return dashboard_; }
  QDockWidget* trainingDock() const { return trainingDock_; }
  void showTraining();
  void startTraining();
  // The runs (main_window_runs.cpp): the current session file -- the default one, or
  // DOPPLER_STUDIO_DB -- which the Runs dock shows live; New / Open / Save As (false with the
  // reason in the banner, the current session kept open); a comparison of stored runs.
  QString sessionPath() const;
  RunsController* runsController() const { return runs_; }
  views::RunsPanel* runsPanel() const { return runsPanel_; }
  views::RunCompareView* runCompareView() const { return runCompare_; }
  QDockWidget* runsDock() const { return runsDock_; }
  bool openSession(const QString& path);
  bool newSession(const QString& path);
  bool saveSessionAs(const QString& path);
  void showRuns();
  void compareRuns(const QList<qint64>& ids);
  // The first start (main_window_first_start.cpp): true when this window copied the demo session
  // to the user's default session. showFirstStart() arranges the docks over the open session:
  // the tuner, the runs (its heuristics selected, not compared), its training run's curves in
  // the hidden Training dock.
  bool firstStart() const { return firstStart_; }
  bool showFirstStart();
  // Run > Execute on CPU (main_window_execute.cpp): runs the current placement for real on the
  // job runner's Execution slot; the timeline then shows the measured run (measured()) until the
  // next placement.
  void executeOnCpu();
  void executeOnGpu();
  // Runs `execute` on the Execution slot and shows its measured run (`where`: "CPU", "GPU").
  void startExecution(
      const QString& where,
      std::function<views::MeasuredRun(const views::SnapshotPtr&, const CancelToken&)> execute);
  views::MeasuredRunPtr measured() const;
  HelpOverlay* helpOverlay() const { return help_; }
  QString makespanReadout() const;

  // Opens a graph or device file; on failure shows the message (file, place, problem) in a banner
  // and keeps what was open. Returns success.
  bool openFile(const QString& path);
  QString lastError() const { return lastError_; }
  // The dialog asking for an ONNX model's dynamic dimensions while it is open (null otherwise),
  // and the importer's notes on the last model (ops costed by output bytes), shown in the status
  // bar when it opened.
  OnnxDimsDialog* dimsDialog() const;
  QString importNotes() const { return importNotes_; }
  void loadDemo();

  // View > Reset Layout: the side docks in one tab group (the tuner in front), the bottom docks
  // in another, hidden; the window's least size then is the views' and one panel's.
  void resetLayout();
  // Gives a panel below the views a useful share of the height when it is shown too small.
  void giveRoom(QDockWidget* dock);

  bool presentationMode() const;
  void setPresentationMode(bool on);
  void setDarkTheme(bool dark);
  // True once the current graph has its layout, its placement, and no job runs.
  bool isSettled() const;
  // Waits on the job runner (layout, placement, search) until the window is settled.
  bool waitSettled(int timeout_ms);

  // The Fleet perspective (main_window_fleet.cpp): the fleet workbench in the centre, the
  // placement docks put away until the placement perspective returns.
  views::FleetRunModel* fleetModel() const { return fleetModel_; }
  views::FleetWorkbench* fleetWorkbench() const { return fleetWorkbench_; }
  FleetController* fleetController() const { return fleetController_; }
  bool fleetPerspective() const;
  void setFleetPerspective(bool on);

  // Saves PNGs of every view and the whole window (the demo's evidence); returns the files.
  QStringList grabAll(const QString& dir);
  // The fleet workbench's grabs (fleet-map.png, fleet-compare.png, ...) after small runs.
  QStringList grabFleet(const QString& dir);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // main_window_actions.cpp: menus (from the shortcut table) and what they do.
  void buildActions();
  void exportImage(views::ImageSource* source, const QString& format);
  void exportTrace();
  void copyFocusedImage();
  // Copies a clean image, or says in the status bar why there is none yet.
  void copyImage(views::ImageSource& source);
  void openDialog();
  void openDevicesDialog();
  void generateDialog();
  views::ImageSource* focusedSource() const;
  // main_window_docks.cpp: the docks and the tables in them.
  void buildDocks();
  // main_window_stepper.cpp: the decision stepper's dock and sources.
  void buildStepper();
  void startStepperFromTuner();
  void applyStepper();
  void chooseStepperSource();
  void fillStoredRunsMenu(QMenu* menu);
  void saveStepperBranch();
  // main_window_runs.cpp: the Runs dock, the File menu's session entries.
  void buildRuns();
  void addSessionActions(QMenu* file);
  void rememberSession();
  // Shows the comparison window's second run against the shown placement on the graph.
  void markMovedNodes(const QStringList& ids);
  std::vector<int64_t> recordSampleRuns();  // for the grabs
  // main_window_training.cpp: the training dashboard's dock.
  void buildTraining();
  views::TrainingReferences trainingReferences() const;
  QString runCheckpoint(int64_t run) const;
  void refreshTrainingSources();
  // Stage III chosen with a policy to start from: what simulation expects it to gain over
  // critical-path, computed on the Preview slot and shown in the dashboard before any run.
  void updateTrainingExpectation();
  void showBestTrainingPlacement(bool atTheEnd);
  // The node details pane's text for a node (with the measured section when there is a run).
  QString detailsHtml(int node) const;
  // main_window_fleet.cpp: the fleet workbench and its controller.
  void buildFleet();
  void showOnlyCurrentPage();
  // main_window.cpp: wiring.
  void connectParts();
  void requestLayout();
  void onGraphChanged();
  void onSnapshotChanged();
  void chooseDevices(const QString& spec);
  void showError(const QString& message);
  void clearError();
  void askOnnxDims(const QString& path, const QStringList& names, const QStringList& tensors,
                   const QString& reason);
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void updateTitle();
  void restoreSession();

  StudioOptions options_;
  StudioSettings settings_;
  JobRunner* jobs_;
  std::shared_ptr<LayoutCache> layoutCache_;
  StudioDocument* document_;
  views::SelectionState* selection_;
  views::GraphView* graphView_;
  views::TimelineView* timelineView_;
  views::TunerWidget* tuner_ = nullptr;
  views::SettingsHistoryChart* history_ = nullptr;
  views::NodeTableModel* nodeModel_;
  views::ScheduleModel* scheduleModel_;
  views::DeviceSummaryModel* deviceModel_;
  QSortFilterProxyModel* nodeProxy_;
  QTableView* nodeTable_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QSplitter* splitter_;
  QStackedWidget* centralStack_ = nullptr;  // the placement views, or the fleet workbench
  ErrorBanner* banner_;
  StudioToolbar* toolbar_ = nullptr;
  PresentationMode* presentation_;
  QMenu* recentMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QMenu* editMenu_ = nullptr;
  QDockWidget* tunerDock_ = nullptr;
  QDockWidget* historyDock_ = nullptr;
  QDockWidget* detailsDock_ = nullptr;
  QDockWidget* devicesDock_ = nullptr;
  QDockWidget* nodesDock_ = nullptr;
  QDockWidget* eventsDock_ = nullptr;
  QDockWidget* stepperDock_ = nullptr;
  StepperSession* stepper_ = nullptr;
  views::StepperWidget* stepperWidget_ = nullptr;
  bool criticalPathBeforeStepper_ = false;
  TrainingController* training_ = nullptr;
  views::TrainingDashboard* dashboard_ = nullptr;
  QDockWidget* trainingDock_ = nullptr;
  RunsController* runs_ = nullptr;
  views::RunsPanel* runsPanel_ = nullptr;
  views::RunCompareView* runCompare_ = nullptr;
  QDockWidget* runsDock_ = nullptr;
  bool firstStart_ = false;
  QMenu* recentSessionsMenu_ = nullptr;
  HelpOverlay* help_ = nullptr;
  QAction* darkAction_ = nullptr;
  QAction* presentAction_ = nullptr;
  QString lastError_;
  QStringList recent_;
  QString layoutStatus_;
  QPointer<OnnxDimsDialog> dimsDialog_;
  QString importNotes_;
  QLabel* importLabel_ = nullptr;  // the open model's import notes, in the status bar
  views::FleetRunModel* fleetModel_ = nullptr;
  views::FleetWorkbench* fleetWorkbench_ = nullptr;
  FleetController* fleetController_ = nullptr;
  QAction* fleetAction_ = nullptr;
  QByteArray placementState_;  // the docks as they were before the Fleet perspective
};

}  // namespace doppler::studio

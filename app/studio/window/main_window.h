#pragma once
// The studio's main window: the graph and timeline views sharing the centre and one selection,
// the toolbar, menus, error banner and presentation mode. Each feature is a class in panels/
// owning its docks, widgets, controller and menu entries. Background work: the job runner.
#include <QMainWindow>
#include <memory>

#include "app/studio/window/studio_options.h"
#include "app/studio/window/studio_settings.h"
#include "app/studio/window/window_menus.h"

class QStackedWidget;

namespace doppler::views {
class GraphView;
class TimelineView;
class SelectionState;
struct PlacementSnapshot;
}  // namespace doppler::views

namespace doppler::studio {

class StudioDocument;
class JobRunner;
class LayoutRequests;
class ErrorBanner;
class StudioToolbar;
class PresentationMode;
class OnnxPrompt;
class PlacementDocks;
class StepperPage;
class TrainingPage;
class RunsPage;
class FleetPage;
class ExecutionPage;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const StudioOptions& options, QWidget* parent = nullptr);
  // Silences the children first: QWidget's destructor hides the docks after this one has run, and
  // their visibilityChanged handlers would read a window that is no longer a MainWindow (UBSan).
  ~MainWindow() override;

  // What every feature works with.
  StudioDocument* document() const { return document_; }
  JobRunner* jobs() const { return jobs_; }
  views::SelectionState* selection() const { return selection_; }
  views::GraphView* graphView() const { return graphView_; }
  views::TimelineView* timelineView() const { return timelineView_; }
  StudioToolbar* toolbar() const { return toolbar_; }
  QStackedWidget* centralStack() const { return centralStack_; }
  PresentationMode* presentation() const { return presentation_; }
  HelpOverlay* helpOverlay() const { return menus_->help(); }
  QMenu* menu(WindowMenu which) const { return menus_->menu(which); }
  const StudioOptions& options() const { return options_; }
  StudioSettings& settings() { return settings_; }

  PlacementDocks* docks() const { return docks_; }
  StepperPage* stepperPage() const { return stepper_; }
  TrainingPage* trainingPage() const { return training_; }
  RunsPage* runsPage() const { return runs_; }
  FleetPage* fleetPage() const { return fleet_; }
  ExecutionPage* executionPage() const { return execution_; }
  QString sessionPath() const;  // the session runs are recorded into (the Runs page's)
  bool firstStart() const { return firstStart_; }  // this window copied the demo session

  // A graph or device file; on failure the banner names file, place, problem; the old one stays.
  bool openFile(const QString& path);
  void loadDemo();
  QString lastError() const { return lastError_; }
  void showError(const QString& message);
  void clearError();
  OnnxPrompt* onnxPrompt() const { return onnx_; }  // its dimensions dialog, import notes
  QString makespanReadout() const;
  void updateTitle();

  // View > Reset Layout: one tab group beside the views, one (hidden) below them.
  void resetLayout();
  bool presentationMode() const;
  void setPresentationMode(bool on);
  void setDarkTheme(bool dark);
  // The graph has its layout and placement, and no job runs; waitSettled waits for it.
  bool isSettled() const;
  bool waitSettled(int timeout_ms);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // main_window.cpp: the document's wiring to the centre views.
  void connectParts();
  void onGraphChanged();
  void onSnapshotChanged();
  void chooseDevices(const QString& spec);
  void restoreSession();  // main_window_session.cpp, with closeEvent

  StudioOptions options_;
  StudioSettings settings_;
  JobRunner* jobs_;
  LayoutRequests* layouts_ = nullptr;
  StudioDocument* document_;
  // The placement the views show; when the next replaces it, freed on a worker (releaseLater).
  std::shared_ptr<const views::PlacementSnapshot> shown_;
  views::SelectionState* selection_;
  views::GraphView* graphView_;
  views::TimelineView* timelineView_;
  QStackedWidget* centralStack_;  // the placement views, or the fleet workbench
  ErrorBanner* banner_;
  PresentationMode* presentation_;
  WindowMenus* menus_ = nullptr;
  StudioToolbar* toolbar_ = nullptr;
  PlacementDocks* docks_ = nullptr;
  StepperPage* stepper_ = nullptr;
  TrainingPage* training_ = nullptr;
  RunsPage* runs_ = nullptr;
  FleetPage* fleet_ = nullptr;
  ExecutionPage* execution_ = nullptr;
  bool firstStart_ = false;
  QString lastError_;
  OnnxPrompt* onnx_ = nullptr;
};

}  // namespace doppler::studio

#pragma once
// The decision stepper: its dock, where its decisions come from (the tuner's heuristic, a policy
// checkpoint, a stored run), overrides from the dock and the graph, undo and redo in the Edit
// menu, and saving a branch as a run. The model is StepperSession; the dock's widget is
// views::StepperWidget; the graph and the timeline draw the session's step overlay while the dock
// is open.
#include <QObject>
#include <cstdint>

#include "app/studio/panels/stepper_session.h"

class QDockWidget;
class QMenu;

namespace doppler::views {
class StepperWidget;
}

namespace doppler::studio {

class MainWindow;

class StepperPage : public QObject {
  Q_OBJECT
 public:
  explicit StepperPage(MainWindow* window);

  StepperSession* session() const { return session_; }
  views::StepperWidget* widget() const { return widget_; }
  QDockWidget* dock() const { return dock_; }

  // Shows the dock, starting from the tuner's heuristic when it has nothing yet.
  void show();
  // Starts from a given source, a stored run's recorded decisions, or a policy checkpoint (loaded
  // on the job runner). False (the reason in the banner) when it could not.
  bool start(StepperSource source);
  bool startFromRun(int64_t run);
  void startFromPolicy(const QString& path);

 private:
  void startFromTuner();
  void apply();
  void chooseSource();
  void fillStoredRunsMenu(QMenu* menu);
  void saveBranch();

  MainWindow* window_;
  StepperSession* session_;
  views::StepperWidget* widget_;
  QDockWidget* dock_;
  bool criticalPathBeforeStepper_ = false;
};

}  // namespace doppler::studio

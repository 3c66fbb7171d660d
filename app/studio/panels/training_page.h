#pragma once
// Training: the dashboard's dock and what its buttons do. Runs go through TrainingController (job
// runner, LibTorch module, run store); the heuristics the charts are measured against are
// computed on the References slot; the best placement so far opens in the decision stepper.
#include <QObject>
#include <cstdint>

class QDockWidget;

namespace doppler::views {
class TrainingDashboard;
}

namespace doppler::studio {

class MainWindow;
class TrainingController;

class TrainingPage : public QObject {
  Q_OBJECT
 public:
  explicit TrainingPage(MainWindow* window);

  TrainingController* controller() const { return controller_; }
  views::TrainingDashboard* dashboard() const { return dashboard_; }
  QDockWidget* dock() const { return dock_; }
  void show();
  void startTraining();

 private:
  // Critical-path and (on graphs up to 500 nodes) local search with the tuner's cost settings,
  // computed off the GUI thread and drawn as reference lines once they arrive.
  void computeReferences();
  QString runCheckpoint(int64_t run) const;
  void refreshSources();
  // Stage III chosen with a policy to start from: what simulation expects it to gain over
  // critical-path, computed on the Preview slot and shown in the dashboard before any run.
  void updateExpectation();
  void showBest(bool atTheEnd);

  MainWindow* window_;
  TrainingController* controller_;
  views::TrainingDashboard* dashboard_;
  QDockWidget* dock_;
};

}  // namespace doppler::studio

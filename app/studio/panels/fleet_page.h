#pragma once
// The Fleet perspective: the fleet workbench in the centre instead of the graph and the timeline,
// the placement docks put away and brought back as they were, its launch buttons wired to the
// FleetController, View > Fleet Workbench, and its grabs.
#include <QByteArray>
#include <QObject>
#include <QStringList>

class QAction;

namespace doppler::views {
class FleetRunModel;
class FleetWorkbench;
}  // namespace doppler::views

namespace doppler::studio {

class MainWindow;
class FleetController;

class FleetPage : public QObject {
  Q_OBJECT
 public:
  explicit FleetPage(MainWindow* window);

  views::FleetRunModel* model() const { return model_; }
  views::FleetWorkbench* workbench() const { return workbench_; }
  FleetController* controller() const { return controller_; }
  bool active() const;
  void setActive(bool on);
  // The workbench's grabs (fleet-map.png, fleet-compare.png, ...) after small runs on a
  // temporary session; returns the files.
  QStringList grab(const QString& dir);

 private:
  void showOnlyCurrentPage();

  MainWindow* window_;
  views::FleetRunModel* model_;
  views::FleetWorkbench* workbench_;
  FleetController* controller_;
  QAction* action_ = nullptr;
  QByteArray placementState_;  // the docks as they were before the Fleet perspective
};

}  // namespace doppler::studio

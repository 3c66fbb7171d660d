#pragma once
// The decision stepper's dock content: where the episode stands at step k (ready set ranked by
// score with bars, the chosen node, each device's score and estimated start and finish, the
// makespan so far and the final one against the original), the step controls, and the branches.
// It shows what it is given and asks for changes through signals; the studio's stepper session
// owns the traces, the branches and the undo stack.
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/heuristics/decision_trace.h"

class QAbstractItemModel;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSlider;
class QTableView;
class QTimer;
class QToolButton;

namespace doppler::views {

class CandidateModel;
class DeviceChoiceModel;

// One branch as the widget lists it.
struct StepperBranch {
  QString label;           // "original", "step 12: node x", ...
  double makespan_us = 0;  // simulated makespan of the branch's final assignment
};

// Everything the widget shows for one branch at one step.
struct StepperContent {
  std::shared_ptr<const DataflowGraph> graph;
  std::shared_ptr<const DeviceSet> devices;
  std::shared_ptr<const DecisionTrace> trace;  // the current branch's
  QString source;                              // "heft (tuner settings)", "policy sim.pt", ...
  int step = 0;                                // 0..trace->steps.size()
  double final_makespan_us = 0;                // current branch, simulated
  std::optional<double> original_makespan_us;  // the original branch's, when on another branch
  std::vector<StepperBranch> branches;
  int current_branch = 0;
  bool can_override = true;  // false while a replay is computing
};

class StepperWidget : public QWidget {
  Q_OBJECT
 public:
  explicit StepperWidget(QWidget* parent = nullptr);
  ~StepperWidget() override;

  void setContent(const StepperContent& content);
  void clear(const QString& why);  // nothing to step through, and why
  bool playing() const;
  // The candidate and device models, for tests (QAbstractItemModelTester) and the grabs.
  QAbstractItemModel* candidateModel() const;
  QAbstractItemModel* deviceModel() const;

  // Added by the views side (see the report of the stepper views).
  const StepperContent& content() const { return content_; }
  int step() const { return content_.step; }
  // Decisions in the shown trace (0 without one); steps() is the "episode complete" step.
  int steps() const;
  // The lists, for tests and for the studio to move the focus into the dock.
  QTableView* candidateView() const { return candidates_; }
  QTableView* deviceView() const { return devices_; }
  QListWidget* branchList() const { return branches_; }
  // Playing speed in steps per second, one of speeds().
  int speed() const;
  void setSpeed(int stepsPerSecond);
  static const std::vector<int>& speeds();

 public Q_SLOTS:
  void setPlaying(bool on);
  // What the play timer does on each tick: asks for the next step, or stops at the end.
  void playTick();

 Q_SIGNALS:
  void stepRequested(int step);              // →, ←, Home, End, the slider, play
  void nodeOverrideRequested(int node);      // another ready node, at the current step
  void deviceOverrideRequested(int device);  // another device, at the current step
  void branchRequested(int branch);
  void saveBranchRequested();  // save the current branch as a run
  void sourceRequested();      // "Source..." button: the studio opens its chooser
  void playingChanged(bool playing);

 protected:
  bool event(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  // The step keys (→ ← Home End Space), from the shortcut table; true when one was handled.
  bool handleStepKey(QKeyEvent* event);
  bool isStepKey(QKeyEvent* event) const;
  void requestStep(int step);
  void requestNodeOverride(int row);
  void requestDeviceOverride(int row);
  void refresh();       // labels, lists and controls from content_
  void refreshStyle();  // fonts, icons and colours (theme, presentation mode)
  void updatePlayButton();

  StepperContent content_;
  QString why_;  // clear()'s reason; empty while there is content
  CandidateModel* candidateModel_;
  DeviceChoiceModel* deviceModel_;
  QLabel* source_;
  QPushButton* sourceButton_;
  QLabel* title_;
  QLabel* decision_;
  QLabel* soFarCaption_;
  QLabel* soFar_;
  QLabel* finalCaption_;
  QLabel* final_;
  QLabel* originalCaption_;
  QLabel* original_;
  QToolButton* first_;
  QToolButton* previous_;
  QToolButton* play_;
  QToolButton* next_;
  QToolButton* last_;
  QComboBox* speed_;
  QSlider* slider_;
  QLabel* candidatesCaption_;
  QTableView* candidates_;
  QLabel* devicesCaption_;
  QTableView* devices_;
  QListWidget* branches_;
  QPushButton* saveBranch_;
  QLabel* busy_;
  QTimer* timer_;
  bool updating_ = false;  // filling the controls: their signals are not the user's
  bool built_ = false;     // style changes arrive while the constructor runs
};

}  // namespace doppler::views

#pragma once
// The decision stepper's model: a placement's decisions from one source (a list heuristic with
// the tuner's settings, a policy checkpoint's greedy episode, or a stored run's recorded order),
// the branches that overrides make, the step on show, and undo and redo of every override and
// branch switch.
//
// A branch is the source's decisions with some of them changed (core DecisionOverrides). Each is
// computed whole, on the calling thread, when it is made: a list scheduler or an episode on the
// network's cached scores replays LLAMA-LAYER in about a millisecond, so stepping is only
// indexing into a finished trace and every step back restores exactly the state it showed.
// Loading a policy checkpoint (LibTorch, seconds) is the one slow part; the studio does it on the
// job runner and hands the scores in.
#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "app/studio/document/placement_compute.h"
#include "core/heuristics/decision_trace.h"
#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/policy_config.h"
#include "views/common/snapshot.h"
#include "views/stepper/step_overlay.h"
#include "views/stepper/stepper_widget.h"

class QUndoStack;

namespace doppler::sessions {
class RunStore;
}

namespace doppler::studio {

// Where the stepper's decisions come from.
struct StepperSource {
  enum class Kind { Heuristic, Policy, Recorded };
  Kind kind = Kind::Heuristic;
  QString label;  // what the dock shows: "heft (tuner settings)", "policy sim.pt", "run 12"
  // The method and its parameters (Heuristic); for every kind, the cost model, noise and seed
  // the final makespans are simulated with (the tuner's, so they match the main views).
  views::PlacementSettings settings;
  std::shared_ptr<const policy::PolicyScores> scores;  // Policy: the network's outputs
  policy::Component sel = policy::Component::Learned, plc = policy::Component::Learned;
  QString policy_path;            // Policy: the checkpoint, for saved runs
  std::vector<int> order;         // Recorded: the run's decisions
  Assignment assignment;          // Recorded
  std::optional<int64_t> run_id;  // the stored run the original branch is
};

class StepperSession : public QObject {
  Q_OBJECT
 public:
  using SourceKind = StepperSource::Kind;
  using Source = StepperSource;

  struct Branch {
    QString label;
    std::vector<DecisionOverride> overrides;
    std::shared_ptr<const DecisionTrace> trace;
    Assignment assignment;
    std::vector<int> order;
    Schedule plan;                  // the decisions' own plan (reference cost model)
    double makespan_us = 0;         // the assignment simulated with the source's settings
    std::optional<int64_t> run_id;  // once stored (the original: the source's run, if any)
  };

  explicit StepperSession(QObject* parent = nullptr);
  ~StepperSession() override;

  // Starts over: the source's decisions on the inputs become the original branch, shown at step
  // 0. On a bad source (a method that does not place node by node, a record that does not fit
  // the graph) returns false with the reason and keeps what was shown.
  bool start(PlacementInputs inputs, Source source, QString* error);
  void clear();
  bool active() const { return !branches_.empty(); }
  const Source& source() const { return source_; }
  const PlacementInputs& inputs() const { return inputs_; }

  int step() const { return step_; }
  int steps() const;       // decisions in the episode (the graph's node count)
  void setStep(int step);  // clamped to 0..steps(); not an undo step

  // Replays the current branch with the node (or device) at the current step changed; the new
  // branch becomes current (undoable). Choosing what the branch already chose changes nothing;
  // choosing what an existing branch chose switches to it. False with the reason on a node that
  // is not ready or a device out of range.
  bool overrideNode(int node, QString* error);
  bool overrideDevice(int device, QString* error);
  void switchBranch(int index);  // undoable

  const std::vector<Branch>& branches() const { return branches_; }
  int currentBranch() const { return current_; }
  const Branch& branch() const { return branches_.at(current_); }
  QUndoStack* undoStack() const { return undo_; }

  // What the dock, the graph view and the timeline show now.
  views::StepperContent content() const;
  views::StepOverlayPtr overlay() const;

  // Stores the current branch as a run (kind "place", method "<source> + overrides") whose parent
  // is the original branch's run; the original is stored first when it is not yet. Returns the
  // branch's run id. Throws on a store error (the caller reports it).
  int64_t saveBranch(sessions::RunStore& store);

 Q_SIGNALS:
  void changed();

 private:
  friend class BranchCommand;
  // Computes a branch with these overrides (InputError when one does not apply).
  Branch compute(std::vector<DecisionOverride> overrides) const;
  bool addOverride(DecisionOverride o, QString* error);
  void setCurrent(int branch, int step);
  void appendBranch(Branch b);
  void popBranch();
  int64_t storeBranch(sessions::RunStore& store, const Branch& b, std::optional<int64_t> parent);

  PlacementInputs inputs_;
  Source source_;
  policy::GraphFeatures features_;
  double lowerBound_ = 0;
  std::vector<Branch> branches_;
  int current_ = 0;
  int step_ = 0;
  QUndoStack* undo_;
};

}  // namespace doppler::studio

#pragma once
// Training started from the studio: one run at a time on the job runner's training slot, through
// the LibTorch module (core/train/torch_module.h), recorded in the current session as
// `doppler train` records it (sessions/train_recording.h), so the two cannot be told apart in
// `doppler runs`. Progress reaches the GUI thread as signals; pause holds the run between two
// updates (the worker waits in its progress report); cancel stops it there, keeps its rows and
// checkpoint, and ends the run `cancelled`.
#include <QObject>
#include <QString>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "app/studio/document/placement_compute.h"
#include "core/common/cancel_token.h"
#include "core/heuristics/method.h"
#include "core/train/train_config.h"
#include "core/train/train_progress.h"

namespace doppler::studio {

class JobRunner;

struct TrainingLaunch {
  PlacementInputs inputs;
  QString graphSource;  // the document's: a path, or "generated: kind"
  train::Stage stage = train::Stage::Imitation;
  ParamValues values;        // the dashboard's changes from the stage's defaults
  QString fromCheckpoint;    // start from these weights (resumed if it is this run's own)
  QString sessionPath;       // the run store to record in
  QString checkpointFolder;  // where the new checkpoint goes
};

// Holds a run between updates while paused; cancel releases it. Shared with the worker.
class PauseGate {
 public:
  void set(bool paused);
  bool paused() const;
  void release();  // wakes a waiting worker for good (cancel)
  // On the worker: waits while paused, unless released or `cancel` is set (the job runner sets it
  // when it shuts down, without knowing about this gate).
  void waitWhilePaused(const CancelToken& cancel);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool paused_ = false, released_ = false;
};

class TrainingController : public QObject {
  Q_OBJECT
 public:
  TrainingController(JobRunner* jobs, QObject* parent = nullptr);
  ~TrainingController() override;

  // Starts a run; false with the reason when one is running or the launch is bad (the graph
  // too, or the settings: the stage's parameters are checked before anything starts).
  bool start(TrainingLaunch launch, QString* error);
  void setPaused(bool paused);
  void cancel();
  bool running() const { return running_; }
  bool paused() const;

  std::optional<int64_t> runId() const { return runId_; }
  QString checkpoint() const { return checkpoint_; }
  long plannedEpisodes() const { return planned_; }
  // The best episode so far (from the reports that carried it).
  const Assignment& bestAssignment() const { return bestAssignment_; }
  const std::vector<int>& bestOrder() const { return bestOrder_; }
  double bestMakespan() const { return bestMakespan_; }
  const PlacementInputs& inputs() const { return inputs_; }

 Q_SIGNALS:
  void started(long plannedEpisodes);
  void progressed(const doppler::train::TrainProgress& p);
  // `cancelled` runs keep their rows and checkpoint; the run id is that of the recorded run.
  void finished(bool cancelled, double greedyMakespan, double lowerBound);
  void failed(const QString& message);

 private:
  struct Outcome {
    bool cancelled = false;
    double greedy_makespan_us = 0, lower_bound_us = 0;
  };
  JobRunner* jobs_;
  bool running_ = false;
  std::shared_ptr<PauseGate> gate_;
  CancelToken cancel_;
  std::optional<int64_t> runId_;
  QString checkpoint_;
  long planned_ = 0;
  PlacementInputs inputs_;
  Assignment bestAssignment_;
  std::vector<int> bestOrder_;
  double bestMakespan_ = 0;
};

}  // namespace doppler::studio

Q_DECLARE_METATYPE(doppler::train::TrainProgress)

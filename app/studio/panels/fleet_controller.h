#pragma once
// Fleet runs started from the studio's fleet workbench: `fleet simulate` (one method, with
// OT-only run beside it so the decision trace has its regret) and `fleet compare` (several
// methods over seeds) and `fleet train` (the learned method, where LibTorch is built in), one at
// a time on the job runner's Fleet slot. Each is recorded in the
// current session exactly as the CLI records it (sessions/fleet_runs.h), so it shows in the Runs
// dock and `doppler runs`. Results reach the workbench's model as each method's run finishes (the
// charts fill in live); progress is counted in simulated slots; cancel stops the run at the next
// slot and ends the recorded run `cancelled`.
#include <QObject>
#include <QString>
#include <optional>
#include <vector>

#include "core/fleet/learn/fleet_train.h"
#include "views/fleet/fleet_workbench.h"

namespace doppler::studio {

class JobRunner;

enum class FleetJobKind { Simulate, Compare, Train };

struct FleetJob {
  FleetJobKind kind = FleetJobKind::Simulate;
  views::FleetLaunchSettings settings;
  QString sessionPath;  // the run store to record in ("" = not recorded)
};

class FleetController : public QObject {
  Q_OBJECT
 public:
  FleetController(JobRunner* jobs, views::FleetRunModel* model, QObject* parent = nullptr);
  ~FleetController() override;

  // The methods the workbench offers, and whether the learned method can be trained here.
  static std::vector<std::string> methodNames();
  static bool trainAvailable(QString* why);

  // Starts a job; false with the reason when one is running or the request is plainly bad (no
  // method ticked). Bad options and files fail the job before a run is recorded, as in the CLI.
  bool start(const FleetJob& job, QString* error);
  void cancel();
  bool running() const { return running_; }
  std::optional<int64_t> runId() const { return runId_; }
  // The running (or last) training's reports, one per PPO episode.
  const std::vector<fleet::learn::FleetTrainProgress>& trainHistory() const {
    return trainHistory_;
  }

 Q_SIGNALS:
  void started(const QString& what);
  void progressed(int done, int total, const QString& what);
  void finished(bool cancelled, const QString& summary);
  void failed(const QString& message);
  void trainProgressed();                       // a PPO episode's report (trainHistory())
  void checkpointWritten(const QString& path);  // a training's checkpoint, for torta

 private:
  JobRunner* jobs_;
  views::FleetRunModel* model_;
  bool running_ = false;
  std::optional<int64_t> runId_;
  std::vector<fleet::learn::FleetTrainProgress> trainHistory_;

  void startTraining(const FleetJob& job);
};

}  // namespace doppler::studio

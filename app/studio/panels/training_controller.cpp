#include "app/studio/panels/training_controller.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <chrono>
#include <cmath>

#include "app/studio/jobs/job_runner.h"
#include "core/common/input_error.h"
#include "core/train/torch_module.h"
#include "core/train/train_job.h"
#include "sessions/metric_writer.h"
#include "sessions/run_store.h"
#include "sessions/train_recording.h"

namespace doppler::studio {

void PauseGate::set(bool paused) {
  {
    std::lock_guard lock(mu_);
    paused_ = paused;
  }
  cv_.notify_all();
}

bool PauseGate::paused() const {
  std::lock_guard lock(mu_);
  return paused_ && !released_;
}

void PauseGate::release() {
  {
    std::lock_guard lock(mu_);
    released_ = true;
  }
  cv_.notify_all();
}

void PauseGate::waitWhilePaused(const CancelToken& cancel) {
  std::unique_lock lock(mu_);
  // A cancel token has no way to wake us: look at it a few times a second.
  while (paused_ && !released_ && !cancel.cancelled())
    cv_.wait_for(lock, std::chrono::milliseconds(100));
}

TrainingController::TrainingController(JobRunner* jobs, QObject* parent)
    : QObject(parent), jobs_(jobs) {
  qRegisterMetaType<doppler::train::TrainProgress>();
}

TrainingController::~TrainingController() {
  // A paused worker would never reach the job runner's cancel check.
  if (gate_) gate_->release();
}

bool TrainingController::paused() const {
  return gate_ && gate_->paused();
}

void TrainingController::setPaused(bool paused) {
  if (gate_ && running_) gate_->set(paused);
}

void TrainingController::cancel() {
  if (!running_) return;
  if (gate_) gate_->release();
  jobs_->cancel(JobSlot::Training);
}

bool TrainingController::start(TrainingLaunch launch, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (running_) return fail(tr("A training run is going: pause or cancel it first."));
  if (!launch.inputs.graph || !launch.inputs.devices || !launch.inputs.costs)
    return fail(tr("No graph is open."));
  if (launch.inputs.graph->nodeCount() == 0) return fail(tr("The graph has no nodes."));
  if (!train::torchModuleBuiltIn())
    return fail(
        tr("Training needs the LibTorch module, and this build has none "
           "(configured with DOPPLER_TORCH=OFF)."));
  // The dashboard's values hold the stage's options and the architecture's, as `doppler
  // train`'s command line does.
  train::TrainConfig config;
  policy::PolicyConfig asked;
  bool architectureGiven = false;
  try {
    ParamValues stageValues;
    for (const auto& [name, value] : launch.values) {
      if (train::isArchitectureParam(name))
        architectureGiven = true;
      else
        stageValues[name] = value;
    }
    config = train::trainConfigFor(launch.stage, *launch.inputs.graph, stageValues);
    asked = train::architectureFor(launch.values);
  } catch (const std::exception& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  if (launch.stage == train::Stage::Real && launch.fromCheckpoint.isEmpty())
    return fail(
        tr("Stage III refines a trained policy: start from a checkpoint or a stored run "
           "(stage II's)."));
  QDir folder(launch.checkpointFolder);
  if (!folder.mkpath(QStringLiteral(".")))
    return fail(tr("Cannot create the checkpoint folder %1").arg(launch.checkpointFolder));
  QString name = QString::fromStdString(launch.inputs.graph->name);
  name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
  checkpoint_ = folder.filePath(
      QStringLiteral("train-%1-%2-%3.pt")
          .arg(name.isEmpty() ? QStringLiteral("graph") : name,
               QString::fromLatin1(train::toString(launch.stage)),
               QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
  config.checkpoint_path = checkpoint_.toStdString();
  inputs_ = launch.inputs;
  planned_ = config.episodes;
  runId_.reset();
  bestAssignment_.clear();
  bestOrder_.clear();
  bestMakespan_ = NAN;
  gate_ = std::make_shared<PauseGate>();
  running_ = true;

  // What the worker owns: copies of the inputs, so the document may change meanwhile.
  auto graph = launch.inputs.graph;
  auto devices = launch.inputs.devices;
  const std::string devicesSpec = launch.inputs.devicesSpec;
  QString graphFile = launch.graphSource;
  if (QFileInfo(graphFile).isFile()) graphFile = QFileInfo(graphFile).absoluteFilePath();
  QString from = launch.fromCheckpoint;
  if (!from.isEmpty() && QFileInfo(from).isFile()) from = QFileInfo(from).absoluteFilePath();
  const std::string session = launch.sessionPath.toStdString();
  const std::shared_ptr<PauseGate> gate = gate_;
  const std::string checkpoint = checkpoint_.toStdString();

  jobs_->start<Outcome>(
      JobSlot::Training,
      [=, this](const JobContext& ctx) {
        const train::TorchModule& torch = train::loadTorchModule();
        // A checkpoint brings its own architecture; asking for another is refused, as
        // `doppler train --from` refuses it.
        policy::PolicyConfig architecture = asked;
        if (!from.isEmpty()) {
          const policy::PolicyConfig stored = torch.loadPolicy(from.toStdString())->architecture();
          if (architectureGiven && !(stored == asked))
            throw InputError(from.toStdString(), "architecture",
                             "checkpoint holds a policy of another architecture (" +
                                 stored.describe() + "); the dashboard asks for " +
                                 asked.describe());
          architecture = stored;
        }
        sessions::RunStore store(session);
        sessions::RunSpec spec = sessions::trainRunSpec(
            {graphFile.toStdString(), 1e-6, devicesSpec, from.toStdString(), checkpoint}, config,
            architecture);
        spec.graph_id = store.putGraph(*graph);
        spec.device_set_id = store.putDeviceSet(*devices);
        const int64_t run = store.beginRun(spec);
        ctx.post([this, run, episodes = config.episodes] {
          runId_ = run;
          Q_EMIT started(episodes);
        });
        Outcome outcome;
        try {
          sessions::MetricWriter metrics(store, run);
          const train::TrainRequest request{*graph, *devices, config, architecture,
                                            from.toStdString()};
          const train::TrainResult result =
              torch.train(request, ctx.cancel(), [&](const train::TrainProgress& p) {
                sessions::appendTrainMetrics(metrics, p);
                ctx.post([this, p] {
                  if (!p.best_assignment.empty()) {
                    bestAssignment_ = p.best_assignment;
                    bestOrder_ = p.best_order;
                    bestMakespan_ = p.best_makespan_us;
                  }
                  Q_EMIT progressed(p);
                });
                gate->waitWhilePaused(ctx.cancel());
              });
          metrics.flush();
          const sessions::TrainRunOutcome done =
              sessions::finishTrainRun(store, run, *graph, *devices, config, result, checkpoint);
          outcome.cancelled = result.cancelled;
          outcome.greedy_makespan_us = done.greedy_makespan_us;
          outcome.lower_bound_us = done.lower_bound_us;
          if (!result.best_assignment.empty()) {
            ctx.post([this, a = result.best_assignment, o = result.best_order,
                      m = result.best_makespan_us] {
              bestAssignment_ = a;
              bestOrder_ = o;
              bestMakespan_ = m;
            });
          }
        } catch (const std::exception& e) {
          try {
            store.finishRun(run, sessions::RunStatus::Failed, e.what());
          } catch (...) {
            // The store is failing too; the next open marks the run interrupted.
          }
          throw;
        }
        return outcome;
      },
      [this](Outcome o) {
        running_ = false;
        Q_EMIT finished(o.cancelled, o.greedy_makespan_us, o.lower_bound_us);
      },
      [this](const QString& message) {
        running_ = false;
        Q_EMIT failed(message);
      });
  return true;
}

}  // namespace doppler::studio

#include "app/studio/panels/fleet_controller.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>

#include "app/studio/jobs/job_runner.h"
#include "core/common/input_error.h"
#include "core/fleet/learn/fleet_methods.h"
#include "core/fleet/sim/baselines.h"
#include "core/fleet/world/trace_reader.h"
#include "core/train/torch_module.h"
#include "sessions/fleet_runs.h"
#include "sessions/metric_writer.h"
#include "sessions/run_store.h"

namespace doppler::studio {

namespace fs = doppler::fleet::sim;
namespace fl = doppler::fleet::learn;

namespace {

// A run whose job failed is marked failed with the reason; if the store is failing too, the next
// open marks it interrupted.
void markFailed(sessions::RunStore* store, int64_t run, const std::exception& e) {
  if (!store) return;
  try {
    store->finishRun(run, sessions::RunStatus::Failed, e.what());
  } catch (...) {
  }
}

// Thrown from inside the simulator (at the next slot) when the job is cancelled.
struct FleetCancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// A method with a progress report and a cancellation check at every slot: the simulators call
// allocate() once per slot, in order, so this is where a run can stop and count.
class ProgressPolicy : public fs::SchedulingPolicy {
 public:
  ProgressPolicy(std::unique_ptr<fs::SchedulingPolicy> inner, const CancelToken& cancel,
                 std::function<void(int)> onSlot)
      : inner_(std::move(inner)), cancel_(cancel), onSlot_(std::move(onSlot)) {}
  std::string name() const override { return inner_->name(); }
  void reset(const fs::FleetModel& fleet, uint64_t seed) override { inner_->reset(fleet, seed); }
  fs::Allocation allocate(const fs::SlotState& state) override {
    if (cancel_.cancelled()) throw FleetCancelled();
    onSlot_(state.slot);
    return inner_->allocate(state);
  }
  fs::SlotExplanation explain() const override { return inner_->explain(); }
  bool serverTargets(const fs::SlotState& state, const std::vector<double>& routed,
                     std::vector<int>& targets) override {
    return inner_->serverTargets(state, routed, targets);
  }
  // Forwarded like every other virtual: without it the studio ran torta's request-level
  // simulation without its server scoring, and showed figures `fleet simulate` does not give.
  bool scoresServers() const override { return inner_->scoresServers(); }

 private:
  std::unique_ptr<fs::SchedulingPolicy> inner_;
  CancelToken cancel_;
  std::function<void(int)> onSlot_;
};

// Every method by name, the learned one from the checkpoint (fleet_methods.h).
std::unique_ptr<fs::SchedulingPolicy> makeMethod(const std::string& name,
                                                 const std::string& checkpoint) {
  return fl::makeFleetPolicy(name, checkpoint);
}

double startHourUtc(const std::string& trace) {
  if (trace == "synthetic") return 12;  // demand.h: the synthetic demand starts at 12:00 UTC
  try {
    return fleet::loadTrace(trace).startHourUtc();
  } catch (...) {
    return 0;  // the run itself reports a bad trace
  }
}

struct Outcome {
  bool cancelled = false;
  QString summary;
  QString checkpoint;  // train: the checkpoint written
};

}  // namespace

FleetController::FleetController(JobRunner* jobs, views::FleetRunModel* model, QObject* parent)
    : QObject(parent), jobs_(jobs), model_(model) {}

FleetController::~FleetController() = default;

std::vector<std::string> FleetController::methodNames() {
  return fl::fleetMethodNames();
}

bool FleetController::trainAvailable(QString* why) {
  if (train::torchModuleBuiltIn()) return true;
  if (why)
    *why =
        tr("Training the learned method (torta) needs LibTorch; this build has none "
           "(DOPPLER_TORCH=OFF)");
  return false;
}

bool FleetController::start(const FleetJob& job, QString* error) {
  if (running_) {
    if (error) *error = tr("A fleet run is running: cancel it first");
    return false;
  }
  std::vector<std::string> methods;
  if (job.kind == FleetJobKind::Simulate) {
    if (job.settings.method.empty()) {
      if (error) *error = tr("Choose a method to simulate");
      return false;
    }
    methods = {job.settings.method};
  } else if (job.kind == FleetJobKind::Compare) {
    methods = job.settings.methods;
    if (methods.empty()) {
      if (error) *error = tr("Tick at least one method to compare");
      return false;
    }
  } else {
    QString why;
    if (!trainAvailable(&why)) {
      if (error) *error = why;
      return false;
    }
  }
  running_ = true;
  runId_.reset();
  if (job.kind == FleetJobKind::Train) {
    startTraining(job);
    return true;
  }
  const bool compare = job.kind == FleetJobKind::Compare;
  const int seeds = compare ? std::max(1, job.settings.seeds) : 1;
  const fs::RunOptions options = job.settings.options;
  const std::string checkpoint = job.settings.checkpoint;
  const std::string session = job.sessionPath.toStdString();
  const std::string what = compare ? "compare" : methods.front();
  // OT-only beside the others on the first seed, when not one of them: the regret's reference.
  const bool withReference = std::find(methods.begin(), methods.end(),
                                       views::FleetRunModel::kReferenceMethod) == methods.end();
  Q_EMIT started(compare ? tr("compare: %1 methods × %2 seeds").arg(methods.size()).arg(seeds)
                         : tr("simulate: %1").arg(QString::fromStdString(methods.front())));

  jobs_->start<Outcome>(
      JobSlot::Fleet,
      [=, this](const JobContext& ctx) {
        // Every method is built before anything runs: an unknown name fails first.
        for (const std::string& m : methods) makeMethod(m, checkpoint);
        fs::RunOptions first = options;
        const fs::PreparedScenario prepared = fs::prepareScenario(first);
        views::FleetScenarioInfo info;
        info.topology = prepared.scenario.world.topology;
        info.trace = prepared.scenario.demand.source;
        info.fidelity = sessions::fleetFidelityName(options.fidelity);
        info.slots = options.slots;
        info.slot_seconds = options.slot_seconds;
        info.seed = options.seed;
        info.seeds = seeds;
        info.load_factor = prepared.capacity.load_factor;
        info.start_utc_hour = startHourUtc(options.trace);
        info.start_week_hour = prepared.scenario.demand.start_week_hour;
        auto world = std::make_shared<const fleet::World>(prepared.scenario.world);
        ctx.post([this, world, info, methods] { model_->reset(world, info, methods); });

        // The run store, as `fleet simulate|compare` records.
        std::unique_ptr<sessions::RunStore> store;
        int64_t run = 0;
        if (!session.empty()) {
          store = std::make_unique<sessions::RunStore>(session);
          nlohmann::json extra = nlohmann::json::object();
          if (compare) extra = {{"seeds", seeds}, {"methods", methods}};
          sessions::RunSpec spec = sessions::fleetRunSpec(what, options, extra);
          spec.graph_id = store->putGraph(sessions::fleetRunGraph(options.topology));
          spec.device_set_id = store->putDeviceSet(sessions::fleetRunDevices(prepared));
          run = store->beginRun(spec);
          ctx.post([this, run] { runId_ = run; });
        }

        const int runs = seeds * static_cast<int>(methods.size()) + (withReference ? 1 : 0);
        const int total = runs * options.slots;
        int done = 0;
        auto last = std::chrono::steady_clock::now();
        auto runOne = [&](const fs::PreparedScenario& p, const fs::RunOptions& o,
                          const std::string& m) {
          const QString label =
              QString::fromStdString(m) + (seeds > 1 ? tr(", seed %1").arg(o.seed) : QString());
          ProgressPolicy policy(makeMethod(m, checkpoint), ctx.cancel(), [&](int slot) {
            // At most ~20 reports a second reach the GUI.
            const auto now = std::chrono::steady_clock::now();
            if (now - last < std::chrono::milliseconds(50) && slot + 1 < o.slots) return;
            last = now;
            ctx.post([this, d = done + slot, total, label] { Q_EMIT progressed(d, total, label); });
          });
          fs::SimResult r = fs::runPolicy(p, policy, o);
          done += o.slots;
          ctx.post([this, d = done, total, label] { Q_EMIT progressed(d, total, label); });
          return r;
        };

        Outcome outcome;
        try {
          fs::Comparison c;
          c.methods = methods;
          fs::SimResult shown;
          for (int k = 0; k < seeds; ++k) {
            fs::RunOptions o = options;
            o.seed = options.seed + static_cast<uint64_t>(k);
            const fs::PreparedScenario p = k == 0 ? prepared : fs::prepareScenario(o);
            c.capacity.push_back(p.capacity);
            for (const std::string& m : methods) {
              auto r = std::make_shared<fs::SimResult>(runOne(p, o, m));
              c.runs[m].push_back(r->metrics);
              if (k == 0) {
                if (!compare) shown = *r;
                ctx.post([this, m, r] { model_->setResult(m, r); });
              } else {
                ctx.post([this, m, metrics = r->metrics] { model_->addSeedMetrics(m, metrics); });
              }
            }
            if (k == 0 && withReference) {
              auto r = std::make_shared<fs::SimResult>(
                  runOne(p, o, views::FleetRunModel::kReferenceMethod));
              ctx.post([this, r] { model_->setResult(views::FleetRunModel::kReferenceMethod, r); });
            }
          }
          if (store) {
            if (compare) {
              store->setFigures(run, sessions::fleetCompareFigures(c));
            } else {
              {
                sessions::MetricWriter metrics(*store, run);
                sessions::appendFleetSeries(metrics, shown);
                metrics.flush();
              }
              store->setFigures(run, fs::allFigures(shown.metrics));
            }
            store->finishRun(run, sessions::RunStatus::Finished);
          }
          const QString recorded =
              store ? tr("run %1 recorded · ").arg(run) : tr("not recorded · ");
          if (compare) {
            std::string best;
            double bestResponse = 0;
            for (const std::string& m : methods) {
              double sum = 0;
              for (const fs::FleetMetrics& x : c.runs[m]) sum += x.e2e_s.mean;
              const double mean = sum / static_cast<double>(c.runs[m].size());
              if (best.empty() || mean < bestResponse) {
                best = m;
                bestResponse = mean;
              }
            }
            outcome.summary = recorded + tr("%1 methods × %2 seeds; lowest mean response: %3, "
                                            "%4 s")
                                             .arg(methods.size())
                                             .arg(seeds)
                                             .arg(QString::fromStdString(best))
                                             .arg(bestResponse, 0, 'f', 3);
          } else {
            outcome.summary = recorded + tr("%1: mean response %2 s, SLO %3%, power $%4")
                                             .arg(QString::fromStdString(methods.front()))
                                             .arg(shown.metrics.e2e_s.mean, 0, 'f', 3)
                                             .arg(100 * shown.metrics.slo_attainment, 0, 'f', 1)
                                             .arg(shown.metrics.power_cost_usd, 0, 'f', 2);
          }
        } catch (const FleetCancelled&) {
          outcome.cancelled = true;
          outcome.summary =
              store ? tr("cancelled; run %1 kept as cancelled").arg(run) : tr("cancelled");
          if (store) store->finishRun(run, sessions::RunStatus::Cancelled);
        } catch (const std::exception& e) {
          markFailed(store.get(), run, e);
          throw;
        }
        return outcome;
      },
      [this](Outcome o) {
        running_ = false;
        Q_EMIT finished(o.cancelled, o.summary);
      },
      [this](const QString& message) {
        running_ = false;
        Q_EMIT failed(message);
      });
  return true;
}

void FleetController::startTraining(const FleetJob& job) {
  // As `doppler fleet train` (app/cli/cmd_fleet_train.cpp): the scenario's seeds start at
  // kTrainSeedBase, the form's seed seeds the networks; the checkpoint goes beside the session.
  fl::FleetTrainRequest request;
  request.scenario = job.settings.options;
  request.scenario.seed = fl::kTrainSeedBase;
  request.config.episodes = job.settings.episodes;
  request.config.seed = job.settings.options.seed;
  const QString folder =
      job.sessionPath.isEmpty() ? QDir::tempPath() : QFileInfo(job.sessionPath).absolutePath();
  const QString stem =
      QFileInfo(QString::fromStdString(request.scenario.topology)).completeBaseName();
  request.out = QDir(folder)
                    .filePath(QStringLiteral("fleet-%1-%2.pt")
                                  .arg(stem, QDateTime::currentDateTimeUtc().toString(
                                                 QStringLiteral("yyyyMMdd-HHmmss"))))
                    .toStdString();
  const std::string session = job.sessionPath.toStdString();
  trainHistory_.clear();
  Q_EMIT started(tr("train torta: %1 episodes").arg(request.config.episodes));
  jobs_->start<Outcome>(
      JobSlot::Fleet,
      [=, this](const JobContext& ctx) {
        const fs::PreparedScenario prepared = fs::prepareScenario(request.scenario);
        std::unique_ptr<sessions::RunStore> store;
        int64_t run = 0;
        if (!session.empty()) {
          store = std::make_unique<sessions::RunStore>(session);
          const nlohmann::json extra = {{"episodes", request.config.episodes},
                                        {"train_seeds", request.config.train_seeds},
                                        {"out", request.out},
                                        {"from", ""}};
          sessions::RunSpec spec = sessions::fleetRunSpec("train", request.scenario, extra);
          spec.graph_id = store->putGraph(sessions::fleetRunGraph(request.scenario.topology));
          spec.device_set_id = store->putDeviceSet(sessions::fleetRunDevices(prepared));
          run = store->beginRun(spec);
          ctx.post([this, run] { runId_ = run; });
        }
        Outcome outcome;
        try {
          std::optional<sessions::MetricWriter> metrics;
          if (store) metrics.emplace(*store, run);
          const fl::FleetTrainResult result =
              fl::trainFleetPolicy(request, ctx.cancel(), [&](const fl::FleetTrainProgress& p) {
                if (p.phase == "predictor") {
                  ctx.post([this, n = p.episodes] {
                    Q_EMIT progressed(0, n, tr("training the demand predictor"));
                  });
                  return;
                }
                if (p.phase != "ppo") return;
                if (metrics) {
                  metrics->append("reward", p.episode, p.reward);
                  metrics->append("response_s", p.episode, p.response_s);
                  metrics->append("ot_response_s", p.episode, p.ot_response_s);
                }
                ctx.post([this, p] {
                  trainHistory_.push_back(p);
                  Q_EMIT trainProgressed();
                  Q_EMIT progressed(p.episode, p.episodes,
                                    tr("episode %1: response %2 s (OT %3 s)")
                                        .arg(p.episode)
                                        .arg(p.response_s, 0, 'f', 3)
                                        .arg(p.ot_response_s, 0, 'f', 3));
                });
              });
          if (metrics) metrics->flush();
          const fleet::learn::FleetTrainTail last = fleet::learn::lastEpisodes(result);
          const size_t tail = last.episodes;
          const double lastResponse = last.response_s, lastOt = last.ot_response_s;
          if (store) {
            store->setFigures(run, fleet::learn::trainFigures(result));  // as `fleet train`
            store->finishRun(run, result.cancelled ? sessions::RunStatus::Cancelled
                                                   : sessions::RunStatus::Finished);
          }
          outcome.cancelled = result.cancelled;
          outcome.checkpoint = QString::fromStdString(result.checkpoint);
          outcome.summary =
              (store ? tr("run %1 recorded · ").arg(run) : QString()) +
              tr("%1 episodes in %2 s; last %3: response %4 s against OT's %5 s; predictor "
                 "accuracy %6; checkpoint %7")
                  .arg(result.episodes_done)
                  .arg(result.train_s, 0, 'f', 1)
                  .arg(tail)
                  .arg(lastResponse, 0, 'f', 3)
                  .arg(lastOt, 0, 'f', 3)
                  .arg(result.predictor_accuracy, 0, 'f', 3)
                  .arg(QFileInfo(outcome.checkpoint).fileName());
        } catch (const std::exception& e) {
          markFailed(store.get(), run, e);
          throw;
        }
        return outcome;
      },
      [this](Outcome o) {
        running_ = false;
        if (!o.checkpoint.isEmpty()) Q_EMIT checkpointWritten(o.checkpoint);
        Q_EMIT finished(o.cancelled, o.summary);
      },
      [this](const QString& message) {
        running_ = false;
        Q_EMIT failed(message);
      });
}

void FleetController::cancel() {
  if (running_) jobs_->cancel(JobSlot::Fleet);
}

}  // namespace doppler::studio

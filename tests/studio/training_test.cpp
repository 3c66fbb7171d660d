// Training from the studio (offscreen, real LibTorch training on the job runner, a real session
// file): a run started from the dashboard reports progress and finishes, recorded as `doppler
// train` records one; cancelled midway it ends `cancelled` with its rows kept; paused it waits;
// its best placement opens in the decision stepper.
#include <QDockWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/stepper_session.h"
#include "app/studio/panels/training_controller.h"
#include "app/studio/window/main_window.h"
#include "core/train/torch_module.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "tests/studio/studio_test_support.h"
#include "views/training/training_dashboard.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;

class TrainingTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  QTemporaryDir dir_;

  QString db() const { return dir_.filePath("runs.sqlite"); }

 private Q_SLOTS:
  void initTestCase() {
    if (!train::torchModuleBuiltIn()) QSKIP("built without LibTorch (DOPPLER_TORCH=OFF)");
  }
  void init() {
    qputenv("DOPPLER_STUDIO_DB", db().toLocal8Bit());
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
    w_->trainingPage()->show();
    QVERIFY(w_->trainingPage()->dock()->isVisible());
  }
  void cleanup() {
    if (w_ && w_->trainingPage()->controller()->running()) {
      w_->trainingPage()->controller()->cancel();
      w_->jobs()->waitIdle(120000);
    }
    delete w_;
    w_ = nullptr;
  }

  void aRunFromTheDashboardReportsFinishesAndIsRecorded() {
    TrainingDashboard* d = w_->trainingPage()->dashboard();
    d->setStage(train::Stage::Imitation);
    d->setValues({{"episodes", "6"}, {"eval-every", "3"}, {"hidden", "16"}, {"mp-steps", "2"}});
    TrainingController* c = w_->trainingPage()->controller();
    QSignalSpy progress(c, &TrainingController::progressed);
    QSignalSpy finished(c, &TrainingController::finished);
    QSignalSpy failed(c, &TrainingController::failed);
    Q_EMIT d->startRequested();
    QVERIFY2(c->running(), qPrintable(d->statusText()));
    QVERIFY2(finished.wait(180000),
             qPrintable(failed.isEmpty() ? d->statusText() : failed.first().at(0).toString()));
    QCOMPARE(finished.first().at(0).toBool(), false);  // not cancelled
    QVERIFY(progress.count() >= 6);
    QCOMPARE(d->state(), TrainingState::Finished);
    QVERIFY(c->runId().has_value());
    QVERIFY(QFileInfo::exists(c->checkpoint()));
    // Recorded as the CLI records a training run.
    sessions::RunStore store(db().toStdString());
    const sessions::RunInfo run = sessions::getRun(store, *c->runId());
    QCOMPARE(run.kind, std::string("train"));
    QCOMPARE(run.method, std::string("doppler"));
    QCOMPARE(run.status, sessions::RunStatus::Finished);
    for (const char* key :
         {"graph_file", "scale", "devices", "stage", "from", "out", "train_config", "architecture"})
      QVERIFY2(run.params.contains(key), key);
    QCOMPARE(run.params["train_config"]["episodes"].get<long>(), 6L);
    QCOMPARE(run.params["architecture"]["hidden"].get<int>(), 16);  // the dashboard's choice
    QCOMPARE(run.params["architecture"]["mp_steps"].get<int>(), 2);
    QVERIFY(run.figures.count("makespan_us"));
    QVERIFY(!sessions::loadSeries(store, run.id, "makespan_us").steps.empty());
    QCOMPARE(sessions::listCheckpoints(store, run.id).size(), size_t(1));
    // Its best episode opens in the stepper, at the end.
    QVERIFY(!c->bestAssignment().empty());
    Q_EMIT d->showBestRequested();
    QVERIFY(w_->stepperPage()->session()->active());
    QCOMPARE(w_->stepperPage()->session()->branch().assignment, c->bestAssignment());
    QCOMPARE(w_->stepperPage()->session()->step(), w_->stepperPage()->session()->steps());
  }

  void aCancelledRunKeepsItsRows() {
    TrainingDashboard* d = w_->trainingPage()->dashboard();
    d->setStage(train::Stage::Imitation);
    d->setValues({{"episodes", "100000"}});
    TrainingController* c = w_->trainingPage()->controller();
    QSignalSpy progress(c, &TrainingController::progressed);
    QSignalSpy finished(c, &TrainingController::finished);
    Q_EMIT d->startRequested();
    QVERIFY(progress.wait(180000));
    // Paused, it holds; resumed, it goes on.
    Q_EMIT d->pauseRequested(true);
    QVERIFY(c->paused());
    QCOMPARE(d->state(), TrainingState::Paused);
    Q_EMIT d->pauseRequested(false);
    QVERIFY(!c->paused());
    Q_EMIT d->cancelRequested();
    QVERIFY(finished.wait(180000));
    QCOMPARE(finished.first().at(0).toBool(), true);
    QCOMPARE(d->state(), TrainingState::Cancelled);
    sessions::RunStore store(db().toStdString());
    const sessions::RunInfo run = sessions::getRun(store, *c->runId());
    QCOMPARE(run.status, sessions::RunStatus::Cancelled);
    const auto rows = sessions::loadSeries(store, run.id, "makespan_us").steps.size();
    QVERIFY(rows >= 1);
    QVERIFY(rows < 100000);
    QVERIFY(QFileInfo::exists(c->checkpoint()));
  }

  // Closing the window while a run is paused ends it: the job runner's shutdown cancel reaches
  // the paused worker (a hang here would time the test out).
  void closingWhilePausedEndsTheRun() {
    TrainingDashboard* d = w_->trainingPage()->dashboard();
    d->setStage(train::Stage::Imitation);
    d->setValues({{"episodes", "100000"}, {"hidden", "16"}, {"mp-steps", "2"}});
    TrainingController* c = w_->trainingPage()->controller();
    QSignalSpy progress(c, &TrainingController::progressed);
    Q_EMIT d->startRequested();
    QVERIFY(progress.wait(180000));
    Q_EMIT d->pauseRequested(true);
    QVERIFY(c->paused());
    delete w_;
    w_ = nullptr;
    // The run is not left "running" for ever: the store still opens and lists it.
    sessions::RunStore store(db().toStdString());
    QVERIFY(!sessions::listRuns(store).empty());
  }

  // Stage III from the dashboard: with a policy to start from, the improvement simulation
  // expects shows before anything runs; the run executes its episodes for real and is recorded
  // with its measured figures and its log.
  void stageThreeShowsItsExpectationAndExecutes() {
    TrainingDashboard* d = w_->trainingPage()->dashboard();
    TrainingController* c = w_->trainingPage()->controller();
    QSignalSpy finished(c, &TrainingController::finished);
    QSignalSpy failed(c, &TrainingController::failed);
    d->setStage(train::Stage::Imitation);
    d->setValues({{"episodes", "4"}, {"hidden", "16"}, {"mp-steps", "2"}});
    Q_EMIT d->startRequested();
    QVERIFY2(finished.wait(180000), qPrintable(d->statusText()));
    const QString policy = c->checkpoint();
    QVERIFY(QFileInfo::exists(policy));

    d->setStage(train::Stage::Real);
    Q_EMIT d->settingsChanged();
    QTRY_VERIFY_WITH_TIMEOUT(d->expectationText().contains(QStringLiteral("choose a trained")),
                             10000);
    d->setCheckpointFile(policy);
    Q_EMIT d->settingsChanged();
    QTRY_VERIFY_WITH_TIMEOUT(d->expectationText().contains(QStringLiteral("than critical-path")),
                             60000);

    d->setValues({{"episodes", "4"},
                  {"eval-every", "2"},
                  {"repeat", "1"},
                  {"target-ms", "2"},
                  {"distill", "0"}});
    finished.clear();
    Q_EMIT d->startRequested();
    QVERIFY2(c->running(), qPrintable(d->statusText()));
    QVERIFY2(finished.wait(180000),
             qPrintable(failed.isEmpty() ? d->statusText() : failed.first().at(0).toString()));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(d->expectationText().contains(QStringLiteral("than critical-path")));
    sessions::RunStore store(db().toStdString());
    const sessions::RunInfo run = sessions::getRun(store, *c->runId());
    QCOMPARE(run.params["stage"].get<std::string>(), std::string("real"));
    QCOMPARE(run.status, sessions::RunStatus::Finished);
    QVERIFY(run.figures.count("best_measured_makespan_us"));
    QVERIFY(run.figures.at("best_measured_makespan_us") > 0);
    bool logged = false;
    for (const sessions::Note& n : sessions::listNotes(store, run.id))
      logged = logged || n.text.find("judged by real executions") != std::string::npos;
    QVERIFY(logged);
  }

  void aBadSettingIsRefusedBeforeAnythingStarts() {
    TrainingDashboard* d = w_->trainingPage()->dashboard();
    d->setStage(train::Stage::Simulation);
    QString error;
    TrainingLaunch launch;
    const SnapshotPtr s = w_->document()->snapshot();
    launch.inputs = PlacementInputs{s->graph, s->devices, s->costs, s->devices_spec};
    launch.stage = train::Stage::Simulation;
    launch.values = {{"lr", "-3"}};
    launch.sessionPath = db();
    launch.checkpointFolder = dir_.filePath("ckpt");
    QVERIFY(!w_->trainingPage()->controller()->start(launch, &error));
    QVERIFY2(error.contains("lr"), qPrintable(error));
    QVERIFY(!w_->trainingPage()->controller()->running());
  }
};

DOPPLER_STUDIO_TEST_MAIN(TrainingTest)

#include "training_test.moc"

// studio.first_start: the demo session made at build time holds what it should, a new user's
// first start copies it to the default session and shows its runs (the heuristics selected, none
// compared) with its training curve filled in the Training dock, and nothing is copied over a
// session the user already has or when DOPPLER_STUDIO_DB names one.
#include "app/studio/panels/first_start.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <latch>
#include <thread>
#include <vector>

#include "app/studio/panels/runs_controller.h"
#include "app/studio/window/main_window.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "sessions/user_paths.h"
#include "tests/studio/studio_test_support.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/runs/runs_panel.h"
#include "views/training/training_charts.h"
#include "views/training/training_dashboard.h"

using namespace doppler;

namespace {

#ifdef DOPPLER_TEST_TORCH
constexpr bool kTorch = true;
#else
constexpr bool kTorch = false;
#endif

int countKind(const std::vector<sessions::RunInfo>& runs, const std::string& kind) {
  return static_cast<int>(
      std::count_if(runs.begin(), runs.end(), [&](const auto& r) { return r.kind == kind; }));
}

std::unique_ptr<studio::MainWindow> openWindow() {
  studio::StudioOptions options;  // not fresh: a first start is a real start
  auto w = std::make_unique<studio::MainWindow>(options);
  w->resize(1600, 1000);
  w->show();
  return w;
}

}  // namespace

class FirstStartTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir data_;

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(data_.isValid());
    qputenv("XDG_DATA_HOME", data_.path().toLocal8Bit());
    qunsetenv("DOPPLER_STUDIO_DB");
  }

  void theBuildTimeSessionHoldsThreeHeuristicsAndATraining() {
    const QString demo = studio::shippedDemoSession();
    QVERIFY2(!demo.isEmpty(), "no demo session in the build tree");
    sessions::OpenOptions readOnly;
    readOnly.mode = sessions::OpenMode::ReadOnly;
    sessions::RunStore store(demo.toStdString(), readOnly);
    const std::vector<sessions::RunInfo> runs = sessions::listRuns(store);
    std::vector<std::string> methods;
    for (const sessions::RunInfo& run : runs) {
      QCOMPARE(run.status, sessions::RunStatus::Finished);
      QCOMPARE(run.graph_name, std::string("llama-block"));
      QCOMPARE(run.device_count, 4);
      if (run.kind == "place") methods.push_back(run.method);
    }
    QCOMPARE(methods, (std::vector<std::string>{"critical-path", "heft", "etf"}));
    QCOMPARE(countKind(runs, "train"), kTorch ? 1 : 0);
    for (const sessions::RunInfo& run : runs) {
      if (run.kind != "train") continue;
      QCOMPARE(run.params.value("stage", ""), std::string("sim"));
      QVERIFY(sessions::loadSeries(store, run.id, "makespan_us").steps.size() >= 10);
      QVERIFY(!sessions::loadSeries(store, run.id, "greedy_makespan_us").steps.empty());
      const auto checkpoints = sessions::listCheckpoints(store, run.id);
      QCOMPARE(checkpoints.size(), size_t(1));
      QCOMPARE(QFileInfo(QString::fromStdString(checkpoints[0].path)).absoluteFilePath(),
               QFileInfo(demo).absoluteDir().filePath(QStringLiteral("demo-policy.pt")));
    }
  }

  void aFirstStartCopiesTheDemoAndShowsItsRuns() {
    const QString target = QString::fromStdString(sessions::defaultSessionPath());
    QVERIFY(!QFileInfo::exists(target));
    auto w = openWindow();
    QVERIFY(w->firstStart());
    QVERIFY(QFileInfo::exists(target));
    QCOMPARE(QFileInfo(w->sessionPath()).absoluteFilePath(), QFileInfo(target).absoluteFilePath());

    const auto& runs = w->runsPage()->controller()->runs();
    QCOMPARE(countKind(runs, "place"), 3);
    QCOMPARE(countKind(runs, "train"), kTorch ? 1 : 0);
    QVERIFY(w->runsPage()->dock()->isVisible());

    // Nothing compared unasked: the graph shows the one placement the header names, the tuner
    // is at hand and the three heuristics wait selected for the user's Compare.
    QVERIFY(!w->graphView()->graphScene()->comparing());
    QVERIFY(w->docks()->tunerDock()->isVisible());
    QCOMPARE(w->runsPage()->panel()->selectedRuns().size(), qsizetype(3));

    if (kTorch) {
      QVERIFY(!w->trainingPage()->dock()->isVisible());  // filled, one menu entry away
      QCOMPARE(w->trainingPage()->dashboard()->state(), views::TrainingState::Finished);
      // The stored run has no best episode to open: the buttons say so instead of failing.
      QVERIFY(!w->trainingPage()->dashboard()->bestPlacementAvailable());
      auto* openBest = w->trainingPage()->dashboard()->findChild<QPushButton*>("openBestInStepper");
      QVERIFY(openBest && !openBest->isEnabled());
      QVERIFY(openBest->toolTip().contains(QStringLiteral("kept its final placement")));
      sessions::RunStore store(target.toStdString());
      const sessions::RunInfo& trained =
          *std::find_if(runs.begin(), runs.end(), [](const auto& r) { return r.kind == "train"; });
      // One report per stored makespan point: the curve drawn is the stored one, its episodes
      // on the episode axis and its distillation updates on their own.
      const views::TrainingCharts* charts = w->trainingPage()->dashboard()->charts();
      QCOMPARE(charts->reportCount() + charts->distillReportCount(),
               long(sessions::loadSeries(store, trained.id, "makespan_us").steps.size()));
      QVERIFY(charts->distillReportCount() > 0);
      // The copied checkpoint is the run's latest, so it resolves wherever the build tree goes.
      const auto checkpoints = sessions::listCheckpoints(store, trained.id);
      QVERIFY(!checkpoints.empty());
      QCOMPARE(QString::fromStdString(checkpoints.back().path),
               QFileInfo(target).absoluteDir().filePath(QStringLiteral("demo-policy.pt")));
      QVERIFY(QFileInfo::exists(QString::fromStdString(checkpoints.back().path)));
    }
  }

  void aSecondStartKeepsTheUsersSession() {
    const std::string target = sessions::defaultSessionPath();
    {
      sessions::RunStore store(target);
      store.deleteRun(sessions::listRuns(store).front().id);  // the user's own change
    }
    auto w = openWindow();
    QVERIFY(!w->firstStart());
    QCOMPARE(countKind(w->runsPage()->controller()->runs(), "place"), 2);
  }

  void aNamedSessionIsNeverReplacedByTheDemo() {
    QTemporaryDir other;
    qputenv("XDG_DATA_HOME", other.path().toLocal8Bit());
    qputenv("DOPPLER_STUDIO_DB", other.filePath(QStringLiteral("mine.sqlite")).toLocal8Bit());
    QString error;
    QVERIFY(!studio::installDemoSession(&error));
    QVERIFY(error.isEmpty());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(sessions::defaultSessionPath())));
    qunsetenv("DOPPLER_STUDIO_DB");
    qputenv("XDG_DATA_HOME", data_.path().toLocal8Bit());
  }

  // Studios making their first start at the same moment: one installs the demo, the others see
  // it there; none reports an error or leaves a half-made copy beside it.
  void studiosStartingTogetherInstallTheDemoOnce() {
    QTemporaryDir other;
    qputenv("XDG_DATA_HOME", other.path().toLocal8Bit());
    const QString demo = studio::shippedDemoSession();
    QVERIFY(!demo.isEmpty());
    constexpr int kStudios = 6;
    for (int round = 0; round < 4; ++round) {
      QDir(other.path()).removeRecursively();
      QDir().mkpath(other.path());
      std::vector<int> installed(kStudios, 0);
      std::vector<QString> errors(kStudios);
      std::latch go(kStudios);
      std::vector<std::thread> studios;
      for (int i = 0; i < kStudios; ++i)
        studios.emplace_back([&, i] {
          go.arrive_and_wait();
          installed[i] = studio::installDemoSession(&errors[i], demo) ? 1 : 0;
        });
      for (std::thread& t : studios) t.join();
      QCOMPARE(std::count(installed.begin(), installed.end(), 1), 1L);
      for (const QString& e : errors) QVERIFY2(e.isEmpty(), qPrintable(e));
      QStringList left =
          QDir(QFileInfo(QString::fromStdString(sessions::defaultSessionPath())).absolutePath())
              .entryList(QDir::Files | QDir::Hidden);
      left.removeAll(QStringLiteral("runs.sqlite"));
      left.removeAll(QStringLiteral("demo-policy.pt"));
      QVERIFY2(left.isEmpty(), qPrintable(left.join(QStringLiteral(", "))));
      {
        sessions::OpenOptions readOnly;
        readOnly.mode = sessions::OpenMode::ReadOnly;
        sessions::RunStore store(sessions::defaultSessionPath(), readOnly);
        QCOMPARE(countKind(sessions::listRuns(store), "place"), 3);
      }
    }
    qputenv("XDG_DATA_HOME", data_.path().toLocal8Bit());
  }
};

DOPPLER_STUDIO_TEST_MAIN(FirstStartTest)
#include "first_start_test.moc"

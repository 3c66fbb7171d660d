// The shipped general policy in the heuristic tuner (offscreen), as a user picks it: method
// "doppler" is a registered method like any other (core/train/doppler_method.h), listed in the
// tuner and the toolbar where the shipped weights exist, placed through the same path as every
// search, and the result is what `doppler place --method doppler` prints for the same graph,
// devices, parameters, seed, cost model and discipline; it shows like any method's (delta,
// history, toolbar, timing).
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/window/main_window.h"
#include "core/graph/graph_io.h"
#include "core/train/doppler_method.h"
#include "tests/studio/studio_test_support.h"
#include "views/common/theme.h"
#include "views/tuner/settings_history_chart.h"
#include "views/tuner/tuner_widget.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;

class TunerGeneralTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  QTemporaryDir dir_;

  template <typename T>
  T* find(const char* name) {
    return w_->findChild<T*>(QString::fromLatin1(name));
  }

  nlohmann::json cli(QStringList args) { return qtest::cliOnDocument(w_, dir_, std::move(args)); }

  // Picks the general policy in the tuner's method list, as a user does, and waits for it.
  bool chooseGeneralPolicy() {
    auto* method = find<QComboBox>("method");
    const int i = method->findData(QString::fromLatin1(train::kDopplerMethod));
    if (i < 0) return false;
    method->setCurrentIndex(i);
    return w_->jobs()->waitIdle(120000);
  }

  // The snapshot's placement is the CLI's: same makespan, every node on the same device.
  static bool sameAsCli(const PlacementSnapshot& s, const nlohmann::json& cli) {
    if (cli.empty() || s.makespan() != cli["makespan_us"].get<double>()) {
      qWarning() << "makespan" << s.makespan() << "vs the CLI's"
                 << (cli.empty() ? -1.0 : cli["makespan_us"].get<double>());
      return false;
    }
    for (int v = 0; v < s.graph->nodeCount(); ++v)
      if (s.assignment[v] != cli["assignment"][s.graph->node(v).id].get<int>()) return false;
    return true;
  }

 private Q_SLOTS:
  void init() {
    qputenv("DOPPLER_STUDIO_DB", dir_.filePath("runs.sqlite").toLocal8Bit());
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
  }
  void cleanup() {
    delete w_;
    w_ = nullptr;
  }

  // Listed in the tuner and the toolbar exactly where the shipped weights exist, as a registered
  // method: a bare tuner lists it too.
  void listedWhereTheWeightsExist() {
    const QString general = shippedGeneralPolicyPath();
    const QString id = QString::fromLatin1(train::kDopplerMethod);
    QCOMPARE(w_->docks()->tuner()->hasMethod(id), !general.isEmpty());
    QCOMPARE(find<QComboBox>("toolbarMethod")->findText(id) >= 0, !general.isEmpty());
    QCOMPARE(w_->document()->generalPolicy(), general);
    TunerWidget bare;
    QCOMPARE(bare.hasMethod(id), !general.isEmpty());
    // Placing needs the exported weights only, so every build offers it (the repository has them).
    QVERIFY(general.endsWith(QStringLiteral("policies/general.weights")));
  }

  // Selecting it searches from the policy's starts as `doppler place --method doppler` does
  // (without a time limit, so both are the seed's alone), on the search slot with its budget, and
  // the result shows like any method's.
  void selectingItPlacesAsPlaceMethodDoppler() {
    if (shippedGeneralPolicyPath().isEmpty())
      QSKIP("resources/data/policies/general.weights is missing");
    const SnapshotPtr before = w_->document()->snapshot();
    const int points = w_->docks()->history()->pointCount();
    QVERIFY(chooseGeneralPolicy());
    QCOMPARE(w_->document()->snapshot()->resolved_params.at("decode"), std::string("search"));
    auto* time = find<QDoubleSpinBox>("param_time_ms");
    QVERIFY(time);
    time->setValue(0);
    QVERIFY(find<QSpinBox>("budget")->isEnabled());  // a search
    find<QSpinBox>("budget")->setValue(300);
    QVERIFY(w_->jobs()->waitIdle(120000));
    const SnapshotPtr s = w_->document()->snapshot();
    QVERIFY(s && s != before);
    QCOMPARE(s->settings.method, std::string(train::kDopplerMethod));
    QCOMPARE(s->resolved_params.at("time_ms"), std::string("0"));
    QCOMPARE(s->evaluations, 300L);
    QVERIFY(sameAsCli(
        *s, cli({"place", "--method", "doppler", "--param", "time_ms=0", "--budget", "300"})));
    QVERIFY(s->previous_makespan_us);
    QCOMPARE(w_->docks()->tuner()->makespanText(), formatDuration(s->makespan()));
    QVERIFY(w_->docks()->history()->pointCount() > points);
    QCOMPARE(find<QComboBox>("toolbarMethod")->currentText(), QStringLiteral("doppler"));
    QVERIFY(!find<QLabel>("error")->isVisible());
  }

  // The decodes, seed, cost model and discipline from the tuner are `doppler place`'s options; a
  // new device set is placed at once too.
  void decodesSeedAndSimulationSettingsAsPlace() {
    if (shippedGeneralPolicyPath().isEmpty())
      QSKIP("resources/data/policies/general.weights is missing");
    QVERIFY(chooseGeneralPolicy());
    auto* decode = find<QComboBox>("param_decode");
    QVERIFY(decode);
    decode->setCurrentIndex(decode->findText(QStringLiteral("sample")));
    find<QSpinBox>("param_samples")->setValue(8);
    find<QSpinBox>("seed")->setValue(7);
    find<QComboBox>("costModel")->setCurrentIndex(1);   // links
    find<QComboBox>("discipline")->setCurrentIndex(1);  // priority
    QVERIFY(w_->jobs()->waitIdle(120000));
    SnapshotPtr s = w_->document()->snapshot();
    QCOMPARE(s->resolved_params.at("decode"), std::string("sample"));
    QCOMPARE(s->settings.seed, uint64_t(7));
    QCOMPARE(s->settings.cost_model, CostModel::Links);
    QCOMPARE(s->settings.discipline, Discipline::Priority);
    const QStringList args = {"place",   "--method",     "doppler", "--param", "decode=sample",
                              "--param", "samples=8",    "--seed",  "7",       "--cost-model",
                              "links",   "--discipline", "priority"};
    QVERIFY(sameAsCli(*s, cli(args)));

    auto* devices = find<QComboBox>("toolbarDevices");
    devices->setCurrentIndex(devices->findData("8xV100-NVLink"));
    QVERIFY(w_->jobs()->waitIdle(120000));
    s = w_->document()->snapshot();
    QCOMPARE(s->devices->size(), 8);
    QCOMPARE(s->settings.method, std::string(train::kDopplerMethod));
    QVERIFY(sameAsCli(*s, cli(args)));
  }

  // Local search offers the policy's placement as its start where the policy can run, and the
  // search from it is `doppler place -m local-search -p start=doppler`'s.
  void localSearchStartsFromThePolicy() {
    auto* method = find<QComboBox>("method");
    method->setCurrentIndex(method->findData(QStringLiteral("local-search")));
    QVERIFY(w_->jobs()->waitIdle(120000));
    auto* start = find<QComboBox>("param_start");
    QVERIFY(start);
    const int i = start->findText(QStringLiteral("doppler"));
    if (shippedGeneralPolicyPath().isEmpty()) {
      QCOMPARE(i, -1);
      return;
    }
    QVERIFY(i >= 0);
    find<QSpinBox>("budget")->setValue(300);
    QVERIFY(w_->jobs()->waitIdle(120000));
    start->setCurrentIndex(i);
    QVERIFY(w_->jobs()->waitIdle(120000));
    const SnapshotPtr s = w_->document()->snapshot();
    QCOMPARE(s->settings.method, std::string("local-search"));
    QCOMPARE(s->resolved_params.at("start"), std::string("doppler"));
    QCOMPARE(s->evaluations, 300L);
    const nlohmann::json placed =
        cli({"place", "--method", "local-search", "--param", "start=doppler", "--budget", "300"});
    QVERIFY(sameAsCli(*s, placed));
    // The tuner says where the search began: the policy's own makespan.
    QVERIFY(s->start_makespan_us);
    QCOMPARE(*s->start_makespan_us, placed["start_makespan_us"].get<double>());
    QVERIFY(find<QLabel>("timing")->text().contains(formatDuration(*s->start_makespan_us)));
    QVERIFY(!find<QLabel>("error")->isVisible());
  }
};

DOPPLER_STUDIO_TEST_MAIN(TunerGeneralTest)
#include "tuner_general_test.moc"

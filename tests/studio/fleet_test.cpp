// The fleet workbench in the studio (offscreen), driven as a person would: the Fleet perspective
// from its menu action, the form filled in, Simulate / Compare clicked, the job runner waited
// on, the slider moved and the heatmap clicked. What the views show is checked against the
// SimResults the runs produced: the map's flows are the allocation's routed shares x arrivals,
// the heatmap's cells are the per-region series, the decision trace's difference is allocation
// − reference and its regret the slot's response minus OT-only's; the runs land in the run store
// (a real SQLite file) as `fleet simulate|compare` records them, and cancel ends one cancelled.
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimeEdit>
#include <QtTest>
#include <cmath>

#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/fleet_controller.h"
#include "app/studio/panels/runs_controller.h"
#include "app/studio/window/main_window.h"
#include "core/fleet/world/topology.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "tests/studio/studio_test_support.h"
#include "views/fleet/fleet_charts_view.h"
#include "views/fleet/fleet_decision_view.h"
#include "views/fleet/fleet_heatmap_view.h"
#include "views/fleet/fleet_map_view.h"
#include "views/fleet/fleet_run_model.h"
#include "views/fleet/fleet_workbench.h"
#include "views/fleet/map_projection.h"

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;
namespace fs = doppler::fleet::sim;

namespace {

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// A result of `regions` regions over `slots` slots with the given per-slot mean responses, one
// request arriving per region and slot, and allocations that are the identity.
std::shared_ptr<fs::SimResult> fakeResult(int regions, const std::vector<double>& response) {
  auto r = std::make_shared<fs::SimResult>();
  const int slots = static_cast<int>(response.size());
  r->series.mean_response_s = response;
  r->series.arrivals.assign(slots, regions);
  r->series.queued.assign(slots, 0);
  r->series.power_usd.assign(slots, 0);
  r->region_series.regions = regions;
  const size_t n = static_cast<size_t>(slots) * regions;
  for (auto* v :
       {&r->region_series.arrivals, &r->region_series.routed, &r->region_series.queued,
        &r->region_series.utilization, &r->region_series.capacity_rps, &r->region_series.pool_rps})
    v->assign(n, 1.0);
  r->region_series.on_servers.assign(n, 1);
  r->region_series.powered_servers.assign(n, 1);
  r->allocations.assign(slots, fs::Allocation::identity(regions));
  r->explanations.assign(slots, {});
  return r;
}

}  // namespace

class FleetStudioTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  std::unique_ptr<QTemporaryDir> dir_;

  QString db() const { return dir_->filePath(QStringLiteral("fleet.sqlite")); }
  FleetWorkbench* bench() const { return w_->fleetPage()->workbench(); }
  FleetRunModel* model() const { return w_->fleetPage()->model(); }

  // The form as a person fills it in: abilene, few slots of the slot model.
  void fillForm(const std::string& method, std::vector<std::string> methods, int seeds,
                int slots = 48) {
    FleetLaunchSettings s = bench()->settings();
    s.options.topology = "abilene";
    s.options.trace = "conv";
    s.options.slots = slots;
    s.options.seed = 3;
    s.options.fidelity = fs::Fidelity::Slot;
    s.method = method;
    s.methods = std::move(methods);
    s.seeds = seeds;
    bench()->setSettings(s);
  }
  void click(const char* button) {
    auto* b = bench()->findChild<QPushButton*>(QString::fromLatin1(button));
    QVERIFY(b);
    QVERIFY(b->isEnabled());
    QTest::mouseClick(b, Qt::LeftButton);
  }
  std::vector<sessions::RunInfo> storedRuns() {
    sessions::RunStore store(db().toStdString());
    return sessions::listRuns(store);
  }

 private Q_SLOTS:
  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    qputenv("DOPPLER_STUDIO_DB", db().toLocal8Bit());
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
    // The Fleet perspective from its menu entry (View > Fleet Workbench, Ctrl+Shift+F).
    auto* action = w_->findChild<QAction*>(QStringLiteral("actionFleetPerspective"));
    QVERIFY(action);
    QVERIFY(action->shortcut() == QKeySequence(QStringLiteral("Ctrl+Shift+F")));
    action->trigger();
    QVERIFY(w_->fleetPage()->active());
    QVERIFY(bench()->isVisible());
  }
  void cleanup() {
    delete w_;
    w_ = nullptr;
    dir_.reset();
  }

  void simulateShowsTheRunItProduced() {
    fillForm("skylb", {}, 1);
    click("fleetSimulate");
    QVERIFY(w_->jobs()->waitIdle(300000));
    QCOMPARE(bench()->state(), FleetJobState::Finished);
    const fs::SimResult* r = model()->result("skylb");
    const fs::SimResult* ot = model()->result("ot");
    QVERIFY2(r && ot, "skylb and OT-only beside it (the regret's reference)");
    QCOMPARE(model()->methods(), std::vector<std::string>{"skylb"});
    QCOMPARE(model()->method(), std::string("skylb"));
    QCOMPARE(model()->slots(), 48);
    QCOMPARE(static_cast<int>(r->allocations.size()), 48);

    // The slider moves the slot; the map draws that slot's flows: each the allocation's share of
    // its home region's arrivals, exactly the SimResult's; none left out above the threshold.
    int flowsSeen = 0;
    for (int t : {5, 23, 40}) {
      bench()->slotSlider()->setValue(t);
      QCOMPARE(model()->slot(), t);
      const double threshold = FleetMapView::kFlowThreshold * r->series.arrivals[t];
      std::vector<FleetFlow> expected;
      const fs::RegionSeries& rs = r->region_series;
      for (int i = 0; i < rs.regions; ++i)
        for (int j = 0; j < rs.regions; ++j) {
          const double requests = r->allocations[t].at(i, j) * rs.at(rs.arrivals, t, i);
          if (i != j && requests > 0 && requests >= threshold)
            expected.push_back({i, j, r->allocations[t].at(i, j), requests});
        }
      std::vector<FleetFlow> shown = w_->fleetPage()->workbench()->map()->shownFlows();
      QCOMPARE(shown.size(), std::min<size_t>(expected.size(), FleetMapView::kMaxFlows));
      for (const FleetFlow& f : shown) {
        QVERIFY(near(f.share, r->allocations[t].at(f.from, f.to)));
        QVERIFY(near(f.requests, f.share * rs.at(rs.arrivals, t, f.from)));
        const bool listed = std::any_of(expected.begin(), expected.end(), [&](const FleetFlow& e) {
          return e.from == f.from && e.to == f.to && near(e.requests, f.requests);
        });
        QVERIFY(listed);
      }
      for (size_t k = 1; k < shown.size(); ++k) QVERIFY(shown[k - 1].requests >= shown[k].requests);
      flowsSeen += static_cast<int>(shown.size());
    }
    QVERIFY2(flowsSeen > 0, "SkyLB sends some requests away from home at load 0.7");

    // The heatmap's cells are the per-region series, for each metric.
    FleetHeatmapView* heat = bench()->heatmap();
    const fs::RegionSeries& rs = r->region_series;
    // By default the map and the heatmap colour the share of the fleet's load, on one scale
    // with headroom: at load 0.7 the colours spread over the scale (utilization of the pool sat
    // near 1, every cell yellow). Shares add up to 1 per slot.
    QCOMPARE(heat->metric(), HeatMetric::LoadShare);
    QCOMPARE(bench()->map()->metric(), HeatMetric::LoadShare);
    const double top = model()->heatScaleMax(HeatMetric::LoadShare, "skylb");
    QVERIFY(top < 1.0);
    QVERIFY(top >= model()->heatMax(HeatMetric::LoadShare, "skylb"));
    double lowest = 1, highest = 0;
    for (int t = 0; t < model()->slots(); ++t) {
      double sum = 0;
      for (int i = 0; i < rs.regions; ++i) {
        const double v = heat->cellValue(t, i);
        sum += v;
        lowest = std::min(lowest, v / top);
        highest = std::max(highest, v / top);
      }
      QVERIFY(near(sum, 1.0));
    }
    QVERIFY2(highest - lowest > 0.6,
             qPrintable(QStringLiteral("%1 .. %2").arg(lowest).arg(highest)));
    bench()->setHeatMetric(HeatMetric::Queue);
    QCOMPARE(heat->metric(), HeatMetric::Queue);
    QCOMPARE(bench()->map()->metric(), HeatMetric::Queue);
    for (int t : {0, 17, 47})
      for (int i = 0; i < rs.regions; ++i) QCOMPARE(heat->cellValue(t, i), rs.at(rs.queued, t, i));
    bench()->setHeatMetric(HeatMetric::Utilization);
    for (int i = 0; i < rs.regions; ++i)
      QCOMPARE(heat->cellValue(30, i), rs.at(rs.utilization, 30, i));
    bench()->setHeatMetric(HeatMetric::DemandOverCapacity);
    for (int i = 0; i < rs.regions; ++i)
      QVERIFY(near(heat->cellValue(30, i),
                   rs.at(rs.arrivals, 30, i) / (rs.at(rs.pool_rps, 30, i) * 45.0)));
    // A click on a cell selects its slot and region.
    QTest::mouseClick(heat, Qt::LeftButton, {}, heat->cellCenter(12, 7).toPoint());
    QCOMPARE(model()->slot(), 12);
    QCOMPARE(model()->region(), 7);
    QCOMPARE(bench()->slotSlider()->value(), 12);

    // The decision trace: SkyLB has no plan of its own, so the reference is OT-only's plan in
    // the slot, and the difference is allocation − reference entry by entry.
    for (int t : {12, 33}) {
      QVERIFY(!model()->referenceIsOwn("skylb", t));
      const fs::Allocation d = model()->difference("skylb", t);
      QCOMPARE(d.regions, rs.regions);
      for (size_t k = 0; k < d.share.size(); ++k)
        QVERIFY(near(d.share[k], r->allocations[t].share[k] - ot->allocations[t].share[k]));
      const auto regret = model()->regret("skylb", t);
      QVERIFY(regret.has_value());
      QVERIFY(near(*regret, r->series.mean_response_s[t] - ot->series.mean_response_s[t]));
    }
    QVERIFY(bench()->decision()->summary().contains(QStringLiteral("regret")));
    // The charts draw one line per method asked for, from the run's series.
    const LineChartSpec response = bench()->charts()->spec(FleetChartsView::Metric::Response);
    QCOMPARE(response.series.size(), size_t(1));
    QCOMPARE(response.series[0].values[20], r->series.mean_response_s[20]);
    QCOMPARE(bench()->charts()->spec(FleetChartsView::Metric::Power).series[0].values,
             r->series.power_usd);

    // Recorded as `fleet simulate` records: kind fleet, the method, every figure, the queue.
    const std::vector<sessions::RunInfo> runs = storedRuns();
    QCOMPARE(runs.size(), size_t(1));
    const sessions::RunInfo& run = runs[0];
    QCOMPARE(run.kind, std::string("fleet"));
    QCOMPARE(run.method, std::string("skylb"));
    QCOMPARE(run.status, sessions::RunStatus::Finished);
    QCOMPARE(run.graph_name, std::string("fleet:abilene"));
    QCOMPARE(run.params["slots"].get<int>(), 48);
    QCOMPARE(run.params["fidelity"].get<std::string>(), std::string("slot"));
    QCOMPARE(run.seed.value_or(0), uint64_t(3));
    QCOMPARE(run.figures.at("mean_response_s"), r->metrics.e2e_s.mean);
    QVERIFY(run.figures.count("power_cost"));
    {
      sessions::RunStore store(db().toStdString());
      const sessions::Series queued = sessions::loadSeries(store, run.id, "queued");
      QCOMPARE(queued.values, r->series.queued);
    }
    QCOMPARE(w_->fleetPage()->controller()->runId().value_or(0), run.id);
    // And the Runs dock lists it.
    w_->runsPage()->controller()->refresh();
    QVERIFY(std::any_of(w_->runsPage()->controller()->runs().begin(),
                        w_->runsPage()->controller()->runs().end(),
                        [&](const sessions::RunInfo& x) { return x.id == run.id; }));
  }

  void compareRecordsEachMethodOverSeeds() {
    fillForm("ot", {"local", "skylb"}, 2, 32);
    click("fleetCompare");
    QVERIFY(w_->jobs()->waitIdle(300000));
    QCOMPARE(bench()->state(), FleetJobState::Finished);
    QCOMPARE(model()->methods(), (std::vector<std::string>{"local", "skylb"}));
    QVERIFY2(model()->result("ot"), "OT-only runs beside, for the regret");
    const std::vector<FleetMethodSummary> summaries = model()->summaries();
    QCOMPARE(summaries.size(), size_t(2));
    for (const FleetMethodSummary& s : summaries) QCOMPARE(s.seeds, 2);
    QCOMPARE(bench()->summaryTable()->rowCount(), 2);
    // Two seeds: means to three significant figures, no interval (t's quantile at one degree of
    // freedom, 12.7, made "283.993 ± 1537.580" out of two runs), and a tooltip that says why.
    for (int r = 0; r < 2; ++r)
      for (int c = 2; c < bench()->summaryTable()->columnCount() - 1; ++c) {
        const QTableWidgetItem* item = bench()->summaryTable()->item(r, c);
        QVERIFY2(!item->text().contains(QStringLiteral("±")), qPrintable(item->text()));
        QVERIFY(item->toolTip().contains(QStringLiteral("three")) ||
                item->toolTip().contains(QStringLiteral("3 or more")));
        const QString digits = QString(item->text()).remove('.').remove('-');
        QVERIFY2(digits.size() <= 4 || !item->text().contains('.'), qPrintable(item->text()));
      }
    QCOMPARE(bench()->charts()->spec(FleetChartsView::Metric::Queued).series.size(), size_t(2));

    const std::vector<sessions::RunInfo> runs = storedRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].method, std::string("compare"));
    QCOMPARE(runs[0].params["seeds"].get<int>(), 2);
    // The figures are the means over the seeds, as `fleet compare` stores them.
    for (const FleetMethodSummary& s : summaries)
      QVERIFY(
          near(runs[0].figures.at(s.method + ".mean_response_s"), s.mean.at("mean_response_s")));
  }

  // The horizon's start and profile, set in the form as a person sets them, reach the run: its
  // stored parameters and the slots' labels (the day and the UTC time, not the trace's hour).
  void theCalendarStartAndProfileReachTheRunAndItsLabels() {
    fillForm("ot", {}, 1, 16);
    auto* day = bench()->findChild<QComboBox*>(QStringLiteral("fleetStartDay"));
    auto* time = bench()->findChild<QTimeEdit*>(QStringLiteral("fleetStartTime"));
    auto* profile = bench()->findChild<QComboBox*>(QStringLiteral("fleetProfile"));
    QVERIFY(day && time && profile);
    QCOMPARE(day->currentText(), QStringLiteral("Thu"));  // the held-out default
    day->setCurrentText(QStringLiteral("Sun"));
    time->setTime(QTime(9, 30));
    profile->setCurrentText(QStringLiteral("code"));
    click("fleetSimulate");
    QVERIFY(w_->jobs()->waitIdle(300000));
    QCOMPARE(bench()->state(), FleetJobState::Finished);
    QVERIFY2(model()->slotLabel(4).contains(QStringLiteral("Sun 09:33 UTC")),
             qPrintable(model()->slotLabel(4)));
    const std::vector<sessions::RunInfo> runs = storedRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].params["horizon"].get<std::string>(), std::string("calendar"));
    QCOMPARE(runs[0].params["start"].get<std::string>(), std::string("Sun 09:30"));
    QCOMPARE(runs[0].params["profile"].get<std::string>(), std::string("code"));
  }

  void cancelEndsTheRunCancelled() {
    // A long run (the per-request simulator over 6 h), cancelled as soon as it starts: it stops
    // at its next slot.
    FleetLaunchSettings s = bench()->settings();
    s.options.topology = "abilene";
    s.options.slots = 480;
    s.options.fidelity = fs::Fidelity::Request;
    s.method = "ot";
    bench()->setSettings(s);
    click("fleetSimulate");
    QCOMPARE(bench()->state(), FleetJobState::Running);
    click("fleetCancel");
    QVERIFY(w_->jobs()->waitIdle(300000));
    QCOMPARE(bench()->state(), FleetJobState::Cancelled);
    const std::vector<sessions::RunInfo> runs = storedRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].status, sessions::RunStatus::Cancelled);
  }

  void badInputFailsBeforeARunIsRecorded() {
    FleetLaunchSettings s = bench()->settings();
    s.options.topology = "no-such-topology";
    bench()->setSettings(s);
    click("fleetSimulate");
    QVERIFY(w_->jobs()->waitIdle(60000));
    QCOMPARE(bench()->state(), FleetJobState::Failed);
    QVERIFY(bench()->stateText().contains(QStringLiteral("no-such-topology")));
    QVERIFY(storedRuns().empty());
  }

  // Spikes and outages typed into the form reach the run as the CLI's --spike and --outage; a
  // bad one fails before a run is recorded, naming the option.
  void spikesAndOutagesFromTheFormReachTheRun() {
    fillForm("ot", {}, 1, 16);
    auto* spikes = bench()->findChild<QLineEdit*>(QStringLiteral("fleetSpikes"));
    auto* outages = bench()->findChild<QLineEdit*>(QStringLiteral("fleetOutages"));
    QVERIFY(spikes && outages);
    outages->setText(QStringLiteral("99:0:10"));
    click("fleetSimulate");
    QVERIFY(w_->jobs()->waitIdle(60000));
    QCOMPARE(bench()->state(), FleetJobState::Failed);
    QVERIFY2(bench()->stateText().contains(QStringLiteral("--outage 99:0:10")),
             qPrintable(bench()->stateText()));
    QVERIFY(storedRuns().empty());

    spikes->setText(QStringLiteral("1:0:5:3, 2:0.1:5:2"));
    outages->setText(QStringLiteral("3:0:6"));
    click("fleetSimulate");
    QVERIFY(w_->jobs()->waitIdle(300000));
    QCOMPARE(bench()->state(), FleetJobState::Finished);
    const std::vector<sessions::RunInfo> runs = storedRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].params["spikes"].size(), size_t(2));
    QCOMPARE(runs[0].params["outages"][0].get<std::string>(), std::string("3:0:6"));
    // Region 3 is down for the first 6 minutes: nothing routed to it in those slots.
    const fs::SimResult* r = model()->result("ot");
    QVERIFY(r);
    for (int t = 0; t < 8; ++t) QCOMPARE(r->region_series.at(r->region_series.routed, t, 3), 0.0);
  }

  // A world around the globe: the map's seam falls in the widest empty stretch of longitude (the
  // Pacific, between Sydney and San Jose), a link whose short way crosses it (San Jose to Tokyo)
  // is drawn as two parts leaving through the edges at one latitude, and links inside the map
  // (Dublin to Frankfurt) as one. A one-continent world (abilene) does not wrap and keeps its
  // shape: the longitude scaled by the cosine of the mean latitude.
  void theMapWrapsAWorldAroundTheGlobe() {
    const fleet::World globe = fleet::buildWorld(fleet::loadTopology("intercontinental"));
    const MapProjection m = projectWorld(globe);
    QVERIFY(m.seam > 0);
    const auto index = [&](const char* name) {
      for (int i = 0; i < globe.regionCount(); ++i)
        if (globe.regions[i].name == name) return i;
      return -1;
    };
    const int sanJose = index("SanJose"), tokyo = index("Tokyo"), sydney = index("Sydney");
    QVERIFY(m.points[sanJose].x() < 0 && m.points[tokyo].x() > 0 && m.points[sydney].x() > 0);
    QVERIFY(m.wraps(sanJose, tokyo));
    const std::vector<QLineF> parts = m.parts(sanJose, tokyo);
    QCOMPARE(parts.size(), size_t{2});
    QCOMPARE(parts[0].p2().x(), -m.seam);  // out through the left edge ...
    QCOMPARE(parts[1].p1().x(), m.seam);   // ... in through the right
    QCOMPARE(parts[0].p2().y(), parts[1].p1().y());
    QVERIFY(!m.wraps(index("Dublin"), index("Frankfurt")));
    QCOMPARE(m.parts(index("Dublin"), index("Frankfurt")).size(), size_t{1});
    for (const QPointF& p : m.points) QVERIFY(m.bounds.contains(p));
    QCOMPARE(m.bounds.left(), -m.seam);

    const fleet::World usa = fleet::buildWorld(fleet::loadTopology("abilene"));
    const MapProjection a = projectWorld(usa);
    QCOMPARE(a.seam, 0.0);
    double meanLat = 0;
    for (const fleet::Region& r : usa.regions) meanLat += r.y / usa.regionCount();
    const double k = std::cos(meanLat * M_PI / 180.0);
    for (int i = 1; i < usa.regionCount(); ++i)
      QVERIFY(near(a.points[i].x() - a.points[0].x(), (usa.regions[i].x - usa.regions[0].x) * k));
  }

  void regretAndReferenceOnAConstructedCase() {
    // Two regions, three slots. The method is slower than OT-only in slot 0 (positive regret),
    // faster in slot 1 (negative), and explains slot 2 with its own plan and a fallback.
    FleetRunModel m;
    auto world = std::make_shared<fleet::World>();
    world->regions.resize(2);
    FleetScenarioInfo info;
    info.slots = 3;
    m.reset(world, info, {"learned"});
    auto mine = fakeResult(2, {2.0, 1.0, 1.0});
    auto ot = fakeResult(2, {1.5, 1.5, 1.0});
    fs::Allocation plan(2);
    plan.at(0, 0) = 0.25;
    plan.at(0, 1) = 0.75;
    plan.at(1, 1) = 1.0;
    mine->explanations[2] = {true, plan, true, "regression 12% over 4 slots"};
    mine->allocations[1].at(0, 0) = 0.4;
    mine->allocations[1].at(0, 1) = 0.6;
    m.setResult("learned", mine);
    m.setResult("ot", ot);

    QVERIFY(*m.regret("learned", 0) > 0);
    QCOMPARE(*m.regret("learned", 0), 0.5);
    QVERIFY(*m.regret("learned", 1) < 0);
    QCOMPARE(*m.regret("learned", 1), -0.5);
    QCOMPARE(*m.regret("learned", 2), 0.0);
    // Without OT-only there is nothing to measure regret against.
    FleetRunModel alone;
    alone.reset(world, info, {"learned"});
    alone.setResult("learned", mine);
    QVERIFY(!alone.regret("learned", 0).has_value());

    // Slot 1: no own plan, so OT-only's (identity) is the reference: Δ = allocation − identity.
    QVERIFY(!m.referenceIsOwn("learned", 1));
    const fs::Allocation d1 = m.difference("learned", 1);
    QCOMPARE(d1.at(0, 0), 0.4 - 1.0);
    QCOMPARE(d1.at(0, 1), 0.6);
    QCOMPARE(d1.at(1, 1), 0.0);
    // Slot 2: the method's own plan is the reference.
    QVERIFY(m.referenceIsOwn("learned", 2));
    const fs::Allocation d2 = m.difference("learned", 2);
    QCOMPARE(d2.at(0, 0), 1.0 - 0.25);
    QCOMPARE(d2.at(0, 1), -0.75);
    QCOMPARE(m.fallbackSlots("learned"), std::vector<int>{2});
    QCOMPARE(m.fallbackReason("learned", 2), QStringLiteral("regression 12% over 4 slots"));
    QVERIFY(m.fallbackReason("learned", 1).isEmpty());
    // Flows: slot 1 sends 0.6 of region 0's one request to region 1.
    const std::vector<FleetFlow> flows = m.flows("learned", 1);
    QCOMPARE(flows.size(), size_t(1));
    QCOMPARE(flows[0].from, 0);
    QCOMPARE(flows[0].to, 1);
    QCOMPARE(flows[0].requests, 0.6);

    // The decision trace: regret per slot stays (faint, out of the legend) under its trailing
    // hour's mean (three 45 s slots: the mean of what there is so far).
    m.setMethod("learned");
    m.setSlot(1);
    FleetDecisionView view(&m);
    const LineChartSpec regret = view.regretSpec();
    QCOMPARE(regret.series.size(), size_t(2));
    QVERIFY(!regret.series[0].inLegend);
    QCOMPARE(regret.series[0].values, (std::vector<double>{0.5, -0.5, 0.0}));
    QVERIFY(regret.series[1].inLegend);
    QCOMPARE(regret.series[1].values, (std::vector<double>{0.5, 0.0, 0.0}));
    // Its matrices name the regions: a cell's tooltip says home and serving region.
    world->regions[0].name = "east";
    world->regions[1].name = "west";
    view.resize(720, 520);
    (void)view.grab();
    const QRectF cells = view.matrixCells(1);
    QVERIFY(cells.width() > 20);
    const QString tip =
        view.toolTipAt(QPointF(cells.left() + cells.width() * 0.75, cells.top() + 2));
    QVERIFY2(tip.contains(QStringLiteral("home 1 east → served in 2 west")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("0.600")), qPrintable(tip));
    QVERIFY(view.toolTipAt(QPointF(1, 1)).isEmpty());
  }

  void trainThenCompareTheLearnedMethod() {
    QString why;
    if (!FleetController::trainAvailable(&why)) QSKIP(qPrintable(why));
    // A tiny training (two PPO episodes on 24 slots), as from the form.
    fillForm("ot", {}, 1, 24);
    auto* episodes = bench()->findChild<QSpinBox*>(QStringLiteral("fleetEpisodes"));
    QVERIFY(episodes);
    episodes->setValue(2);
    QVERIFY(bench()->settings().checkpoint.empty());
    click("fleetTrain");
    QVERIFY(w_->jobs()->waitIdle(600000));
    QVERIFY2(bench()->state() == FleetJobState::Finished, qPrintable(bench()->stateText()));
    QCOMPARE(w_->fleetPage()->controller()->trainHistory().size(), size_t(2));
    // The trained checkpoint is what the learned method runs from next.
    const std::string checkpoint = bench()->settings().checkpoint;
    QVERIFY(!checkpoint.empty());
    QVERIFY(QFileInfo::exists(QString::fromStdString(checkpoint)));
    std::vector<sessions::RunInfo> runs = storedRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].method, std::string("train"));
    QCOMPARE(runs[0].status, sessions::RunStatus::Finished);
    QCOMPARE(runs[0].figures.at("episodes_done"), 2.0);
    QCOMPARE(runs[0].params["episodes"].get<int>(), 2);
    {
      sessions::RunStore store(db().toStdString());
      QCOMPARE(sessions::loadSeries(store, runs[0].id, "response_s").values.size(), size_t(2));
    }

    // torta beside OT-only: its decision trace's reference is its own OT plan of the slot.
    fillForm("ot", {"torta", "ot"}, 1, 24);
    FleetLaunchSettings s = bench()->settings();
    QCOMPARE(s.checkpoint, checkpoint);
    click("fleetCompare");
    QVERIFY(w_->jobs()->waitIdle(600000));
    QVERIFY2(bench()->state() == FleetJobState::Finished, qPrintable(bench()->stateText()));
    const fs::SimResult* torta = model()->result("torta");
    QVERIFY(torta);
    int own = 0;
    for (int t = 0; t < 24; ++t) {
      if (!model()->referenceIsOwn("torta", t)) continue;
      ++own;
      const fs::Allocation d = model()->difference("torta", t);
      for (size_t k = 0; k < d.share.size(); ++k)
        QVERIFY(near(d.share[k],
                     torta->allocations[t].share[k] - torta->explanations[t].reference.share[k]));
    }
    QVERIFY2(own > 0, "torta explains its slots with the OT plan");
    QCOMPARE(static_cast<int>(model()->fallbackSlots("torta").size()), torta->fallbacks);
    QCOMPARE(storedRuns().size(), size_t(2));
  }

  void playStepsThroughTheSlotsAndLeavingRestoresThePlacementViews() {
    fillForm("ot", {}, 1, 8);
    click("fleetSimulate");
    QVERIFY(w_->jobs()->waitIdle(300000));
    model()->setSlot(0);
    bench()->setPlaying(true);
    QVERIFY(bench()->playing());
    // Play steps one slot at a time to the last and stops there.
    QTRY_COMPARE_WITH_TIMEOUT(model()->slot(), 7, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!bench()->playing(), 30000);
    QCOMPARE(bench()->slotSlider()->value(), 7);
    w_->findChild<QAction*>(QStringLiteral("actionFleetPerspective"))->trigger();
    QVERIFY(!w_->fleetPage()->active());
    QVERIFY(w_->docks()->tunerDock()->isVisible());
  }
};

DOPPLER_STUDIO_TEST_MAIN(FleetStudioTest)
#include "fleet_test.moc"

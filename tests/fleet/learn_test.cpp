// TORTA's learned layer without LibTorch (core/fleet/learn): the action's decoding, the
// observation, the per-region allocator, the safety layer, the forecast-accuracy knob and the
// policy itself over a hand-written actor (the network's edge).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/common/input_error.h"
#include "core/fleet/learn/fleet_actor.h"
#include "core/fleet/learn/region_allocator.h"
#include "core/fleet/learn/safety.h"
#include "core/fleet/learn/torta_features.h"
#include "core/fleet/learn/torta_policy.h"
#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/matching.h"
#include "core/fleet/sim/simulate.h"
#include "core/fleet/sim/slot_state.h"
#include "tests/fleet/sim_test_world.h"

namespace {

using namespace doppler::fleet;
using namespace doppler::fleet::sim;
using namespace doppler::fleet::learn;
using doppler::testing::demandOf;
using doppler::testing::gpus;
using doppler::testing::lineWorld;

// Three regions with unequal pools; the state a policy would see at `slot`.
struct Fixture {
  World world = lineWorld(3, {gpus(2, 0, 0, 0, 0), gpus(1, 1, 0, 0, 0), gpus(0, 0, 0, 0, 4)});
  FleetModel fleet{world, {}, 1000, 200};
  SlotState state(int slot = 1) const {
    SlotState s;
    s.slot = slot;
    s.slot_seconds = 45;
    s.start_s = slot * 45.0;
    s.fleet = &fleet;
    s.arrivals = {300, 50, 20};
    s.context_tokens = {300000, 50000, 20000};
    s.generated_tokens = {60000, 10000, 4000};
    s.predicted = {320, 60, 20};
    s.queued = {10, 0, 0};
    for (int r = 0; r < 3; ++r) {
      s.capacity_rps.push_back(fleet.poolRate(r) / 2);
      s.powered_rps.push_back(fleet.poolRate(r));
      s.on_servers.push_back(1);
      s.powered_servers.push_back(2);
    }
    s.utilization = {0.9, 0.5, 0.2};
    s.previous = Allocation::identity(3);
    return s;
  }
};

double column(const SlotState& s, const Allocation& a, int j) {
  double c = 0;
  for (int i = 0; i < s.regions(); ++i) c += s.arrivals[i] * a.at(i, j);
  return c;
}

TEST(FleetLearnAction, ZeroActionIsTheOtPlanBlendedWithTheLastAllocation) {
  Fixture f;
  const SlotState first = f.state(0);
  const std::vector<double> zero(actionSize(3), 0.0);
  const Allocation ot0 = otPlan(first);
  const Allocation a0 = decodeAction(first, zero);
  for (size_t k = 0; k < a0.share.size(); ++k) EXPECT_NEAR(a0.share[k], ot0.share[k], 1e-12);
  const SlotState s = f.state(1);
  const Allocation ot = otPlan(s), a = decodeAction(s, zero);
  const double eta = blendOf(0.0);
  EXPECT_NEAR(eta, 1.0 / (1.0 + std::exp(-3.0)), 1e-12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(a.at(i, j), (1 - eta) * s.previous.at(i, j) + eta * ot.at(i, j), 1e-9);
  EXPECT_NEAR(utilizationOf(zero, 3), 0.8, 1e-12);
}

TEST(FleetLearnAction, ARegionsWeightMovesLoadToItAndEveryActionIsRowStochastic) {
  Fixture f;
  const SlotState s = f.state(0);
  std::vector<double> action(actionSize(3), 0.0);
  const double before = column(s, decodeAction(s, action), 2);
  action[2] = 2.0;  // region 2's capacity marginal x e^2
  const double after = column(s, decodeAction(s, action), 2);
  EXPECT_GT(after, before + 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  for (std::vector<double> odd :
       {std::vector<double>{inf, -inf, NAN, 50, -50}, std::vector<double>{1e9, 1e9, 1e9, -1e9, 1e9},
        std::vector<double>{}}) {
    EXPECT_TRUE(isRowStochastic(decodeAction(f.state(0), odd)));
    EXPECT_TRUE(isRowStochastic(decodeAction(f.state(3), odd)));
    const double u = utilizationOf(odd, 3);
    EXPECT_GE(u, 0.5);
    EXPECT_LE(u, 0.95);
  }
}

TEST(FleetLearnObservation, HasItsSizeAndStaysFiniteWithoutPools) {
  World world = lineWorld(2, {gpus(1, 0, 0, 0, 0), gpus(0, 0, 0, 0, 0)});
  const FleetModel fleet(world, {}, 1000, 200);
  SlotState s;
  s.fleet = &fleet;
  s.slot_seconds = 45;
  s.arrivals = {5, 7};
  s.predicted = {0, 1e9};
  s.queued = {0, 3};
  s.capacity_rps = s.powered_rps = {fleet.poolRate(0), 0};
  s.utilization = {0, 0};
  s.previous = Allocation::identity(2);
  const std::vector<float> obs = observation(s, s.predicted, Allocation::uniform(2));
  ASSERT_EQ(static_cast<int>(obs.size()), observationSize(2));
  for (float x : obs) EXPECT_TRUE(std::isfinite(x));
}

TEST(FleetLearnAllocator, ProvisionsForTheForecastAndTheLowerUtilization) {
  Fixture f;
  SlotState s = f.state(1);
  s.queued = {0, 0, 0};
  RegionAllocator allocator;
  allocator.reset(3);
  const std::vector<double> routed = {50, 50, 50};
  const std::vector<int> flat = allocator.targets(s, Allocation::identity(3), routed, routed, 0.8);
  // A demand rise forecast for region 0: more servers there now, none fewer elsewhere.
  RegionAllocator again;
  again.reset(3);
  const std::vector<int> rise =
      again.targets(s, Allocation::identity(3), routed, {400, 50, 50}, 0.8);
  EXPECT_GT(rise[0], flat[0]);
  EXPECT_EQ(rise[1], flat[1]);
  // The reactive autoscaler sizes for the routed demand alone.
  EXPECT_EQ(f.fleet.serversNeeded(0, 50 / 45.0), 1);
  RegionAllocator low;
  low.reset(3);
  const std::vector<int> lower =
      low.targets(s, Allocation::identity(3), routed, {400, 50, 50}, 0.5);
  for (int r = 0; r < 3; ++r) EXPECT_GE(lower[r], rise[r]);
  for (int r = 0; r < 3; ++r)
    EXPECT_LE(lower[r], static_cast<int>(f.fleet.regionServers(r).size()));
}

TEST(FleetLearnSafety, FallsBackOnInfeasibleAllocations) {
  Fixture f;
  const SlotState s = f.state(1);
  const Allocation ot = otPlan(s);
  SafetyMonitor monitor;
  EXPECT_FALSE(monitor.check(s, ot, ot).fallback);
  Allocation broken = ot;
  broken.at(0, 0) += 0.5;  // row 0 sums to 1.5
  const SafetyVerdict v = monitor.check(s, broken, ot);
  EXPECT_TRUE(v.fallback);
  EXPECT_NE(v.reason.find("infeasible"), std::string::npos);
  Allocation nan = ot;
  nan.at(1, 1) = NAN;
  EXPECT_TRUE(monitor.check(s, nan, ot).fallback);
}

TEST(FleetLearnSafety, FallsBackWhenTheEstimatedResponseRegressesOverTheWindow) {
  Fixture f;
  SlotState s = f.state(1);
  s.arrivals = {2000, 50, 20};  // region 0 alone cannot take its own demand
  const Allocation ot = otPlan(s);
  const Allocation local = Allocation::identity(3);
  EXPECT_GT(estimatedResponse(s, local), 1.2 * estimatedResponse(s, ot));
  SafetyOptions options;
  options.window = 3;
  options.overload = 1e9;  // only the regression rule
  SafetyMonitor monitor(options);
  const SafetyVerdict v = monitor.check(s, local, ot);
  EXPECT_TRUE(v.fallback);
  EXPECT_NE(v.reason.find("regression"), std::string::npos);
  // Good slots bring the window's mean back under the threshold.
  SafetyMonitor recovering(options);
  SlotState quiet = f.state(1);
  quiet.arrivals = {1, 1, 1};
  const Allocation quietOt = otPlan(quiet);
  EXPECT_FALSE(recovering.check(quiet, quietOt, quietOt).fallback);
  EXPECT_FALSE(recovering.check(quiet, quietOt, quietOt).fallback);
  const SafetyVerdict third = recovering.check(s, local, ot);
  const double ratio = (third.learned_estimate_s + 0.05) / (third.reference_estimate_s + 0.05);
  EXPECT_EQ(third.fallback, (2.0 + ratio) / 3.0 > 1.0 + options.threshold) << ratio;
  SafetyOptions off = options;
  off.enabled = false;
  EXPECT_FALSE(SafetyMonitor(off).check(s, local, ot).fallback);
}

TEST(FleetLearnPredictor, EncodingRoundTripsAndAccuracyIsTortas) {
  for (double truth : {0.0, 1.0, 37.5, 1e4})
    for (double scale : {1.0, 12.0, 900.0})
      EXPECT_NEAR(decodePrediction(predictionTarget(truth, scale), scale), truth,
                  1e-9 * (1 + truth));
  // PA = exp(-mean relative error); slots with no request are left out.
  EXPECT_NEAR(predictionAccuracy({10, 20, 0}, {12, 15, 5}), std::exp(-(0.2 + 0.25) / 2), 1e-12);
  const PredictorEncoding e = encodePredictorInput({{10, 0}, {20, 2}}, 43200);
  ASSERT_EQ(static_cast<int>(e.input.size()), predictorInputSize(2));
  EXPECT_NEAR(e.scale[0], 16.0, 1e-12);     // window mean 15 + 1
  EXPECT_NEAR(e.input.back(), -1.0, 1e-6);  // cos at noon
}

// The network's edge: an actor with fixed outputs.
class FixedActor : public FleetActor {
 public:
  FixedActor(int n, double value, std::vector<double> forecast = {})
      : n_(n), mean_(actionSize(n), value), forecast_(std::move(forecast)) {}
  FixedActor(int n, std::vector<double> mean) : n_(n), mean_(std::move(mean)) {}
  int regions() const override { return n_; }
  ActorOutput act(const std::vector<float>& obs) const override {
    EXPECT_EQ(static_cast<int>(obs.size()), observationSize(n_));
    return {mean_, std::vector<double>(actionSize(n_), -1), 0.0};
  }
  std::vector<double> predict(const std::vector<std::vector<double>>&, double) const override {
    return forecast_;
  }
  const nlohmann::json& meta() const override { return meta_; }

 private:
  int n_;
  std::vector<double> mean_;
  std::vector<double> forecast_;
  nlohmann::json meta_ = nlohmann::json::object();
};

Demand busyDemand(int slots) {
  std::vector<doppler::testing::TestRequest> requests;
  for (int t = 0; t < slots; ++t) {
    const int count = 40 + 30 * (t % 4);
    for (int k = 0; k < count; ++k)
      requests.push_back({t * 45.0 + 44.0 * k / count, k % 3, 800, 150});
  }
  return demandOf(3, slots, 45, requests);
}

TEST(FleetLearnPolicy, ExplainsEverySlotWithItsOtPlanAndCountsFallbacks) {
  Fixture f;
  const Demand demand = busyDemand(8);
  const FleetModel fleet(f.world, {}, 800, 150);
  TortaPolicy good(std::make_shared<FixedActor>(3, 0.0));
  const SimResult r = simulateSlots(fleet, demand, good);
  ASSERT_EQ(r.explanations.size(), 8u);
  for (size_t t = 0; t < r.explanations.size(); ++t) {
    EXPECT_TRUE(r.explanations[t].has_reference);
    EXPECT_TRUE(isRowStochastic(r.explanations[t].reference));
  }
  EXPECT_EQ(r.region_series.regions, 3);
  EXPECT_EQ(r.region_series.routed.size(), 24u);
  // An actor that sends everything to the slow T4 region: the safety layer falls back, and the
  // slots it fell back use exactly the OT plan.
  TortaPolicy bad(std::make_shared<FixedActor>(3, std::vector<double>{-3, -3, 3, 5, 0}));
  const SimResult b = simulateSlots(fleet, demand, bad);
  EXPECT_GT(b.fallbacks, 0);
  EXPECT_EQ(b.metrics.fallbacks, b.fallbacks);
  int counted = 0;
  for (size_t t = 0; t < b.allocations.size(); ++t) {
    if (!b.explanations[t].fallback) continue;
    ++counted;
    EXPECT_FALSE(b.explanations[t].reason.empty());
    for (size_t k = 0; k < b.allocations[t].share.size(); ++k)
      EXPECT_DOUBLE_EQ(b.allocations[t].share[k], b.explanations[t].reference.share[k]);
  }
  EXPECT_EQ(counted, b.fallbacks);
}

TEST(FleetLearnPolicy, RefusesAFleetOfAnotherSize) {
  Fixture f;
  TortaPolicy policy(std::make_shared<FixedActor>(5, 0.0));
  EXPECT_THROW(policy.reset(f.fleet, 1), doppler::InputError);
}

TEST(FleetLearnPolicy, UsesItsPredictorUnlessAnAccuracyIsImposed) {
  Fixture f;
  const Demand demand = busyDemand(10);
  const FleetModel fleet(f.world, {}, 800, 150);
  TortaPolicy withPredictor(std::make_shared<FixedActor>(3, 0.0, std::vector<double>{1, 1, 1}));
  simulateSlots(fleet, demand, withPredictor);
  const double learned = withPredictor.forecastAccuracy();
  SimOptions exact;
  exact.forecast_accuracy = 1.0;  // the true next slot
  const FleetModel oracle(f.world, exact, 800, 150);
  TortaPolicy imposed(std::make_shared<FixedActor>(3, 0.0, std::vector<double>{1, 1, 1}));
  simulateSlots(oracle, demand, imposed);
  EXPECT_LT(learned, 0.45);  // 1 request forecast where there are dozens: PA about e^-0.95
  EXPECT_NEAR(imposed.forecastAccuracy(), 1.0, 1e-12);
}

TEST(FleetLearnForecastKnob, ImposedAccuracyIsMeasuredBack) {
  Fixture f;
  const Demand demand = busyDemand(30);
  for (double pa : {0.9, 0.6, 0.4}) {
    SimOptions options;
    options.forecast_accuracy = pa;
    const FleetModel fleet(f.world, options, 800, 150);
    TortaPolicy policy(std::make_shared<FixedActor>(3, 0.0));  // no predictor: the imposed one
    simulateSlots(fleet, demand, policy);
    // Every error is exactly ln(1 / PA) of the truth (none clipped at these accuracies); the
    // last slot forecasts itself.
    EXPECT_NEAR(policy.forecastAccuracy(), pa, 0.02) << pa;
  }
}

}  // namespace

namespace {

using doppler::fleet::sim::matchScore;
using doppler::fleet::sim::ServerView;

TEST(FleetLearnMatching, PrefersFastEmptyAndRecentlyUsedServers) {
  ServerView fast;
  fast.rate = 10;
  fast.fastest_rate = 10;
  fast.kv_tokens = 100000;
  ServerView slow = fast;
  slow.rate = 2;
  EXPECT_GT(matchScore(fast, 1000), matchScore(slow, 1000));
  ServerView busy = fast;
  busy.kv_used = 80000;
  busy.batch = 200;
  EXPECT_GT(matchScore(fast, 1000), matchScore(busy, 1000));
  ServerView warm = fast;
  warm.since_same_home_s = 5;
  EXPECT_GT(matchScore(warm, 1000), matchScore(fast, 1000));
  // A request needing most of a server's KV cache matches it at half weight.
  EXPECT_NEAR(matchScore(fast, 1000) - matchScore(fast, 60000), 0.2 * 0.5, 1e-12);
}

}  // namespace

// The baselines: every method returns a row-stochastic allocation on real slot states, and each
// one's rule gives the hand-computed answer on two- and three-region states.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/common/input_error.h"
#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/harness.h"
#include "tests/fleet/sim_test_world.h"

namespace {

using namespace doppler::fleet;
using namespace doppler::fleet::sim;
using doppler::testing::gpus;
using doppler::testing::lineWorld;

// Records every allocation it passes on, checking it.
class Checking : public SchedulingPolicy {
 public:
  explicit Checking(std::unique_ptr<SchedulingPolicy> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  void reset(const FleetModel& f, uint64_t seed) override { inner_->reset(f, seed); }
  Allocation allocate(const SlotState& s) override {
    Allocation a = inner_->allocate(s);
    EXPECT_TRUE(isRowStochastic(a, 1e-9)) << name() << " slot " << s.slot;
    ++calls;
    return a;
  }
  int calls = 0;

 private:
  std::unique_ptr<SchedulingPolicy> inner_;
};

TEST(FleetBaselines, EveryMethodReturnsRowStochasticAllocations) {
  RunOptions o;
  o.topology = "polska";
  o.slots = 24;
  o.load = 1.2;  // overloaded, so queues and spills are exercised
  const PreparedScenario p = prepareScenario(o);
  const auto [c, g] = meanTokens(p.scenario.demand);
  const FleetModel fleet(p.scenario.world, o.sim, c, g);
  for (const std::string& name : policyNames()) {
    Checking policy(makePolicy(name));
    simulateSlots(fleet, p.scenario.demand, policy);
    EXPECT_EQ(policy.calls, o.slots) << name;
  }
  EXPECT_THROW(makePolicy("psychic"), doppler::InputError);
}

// A two-region state: region 0 has `a0` arrivals, region 1 none; pools of one A100 each.
struct TwoRegions {
  World world = lineWorld(2, {gpus(1, 0, 0, 0, 0), gpus(1, 0, 0, 0, 0)});
  FleetModel fleet{world, {}, 1154, 212};
  SlotState state(double a0, double q0 = 0, double q1 = 0) const {
    SlotState s;
    s.slot = 1;
    s.slot_seconds = 45;
    s.fleet = &fleet;
    s.arrivals = {a0, 0};
    s.context_tokens = {a0 * 1154, 0};
    s.generated_tokens = {a0 * 212, 0};
    s.predicted = s.arrivals;
    s.queued = {q0, q1};
    s.capacity_rps = {fleet.poolRate(0), fleet.poolRate(1)};
    s.powered_rps = s.capacity_rps;
    s.on_servers = s.powered_servers = {1, 1};
    s.utilization = {0.5, 0.5};
    s.previous = Allocation::identity(2);
    return s;
  }
  double slotCapacity() const { return fleet.poolRate(0) * 45; }
};

TEST(FleetBaselines, LocalAndRoundRobinAreIdentityAndUniform) {
  const TwoRegions w;
  const Allocation local = makePolicy("local")->allocate(w.state(10));
  const Allocation rr = makePolicy("round-robin")->allocate(w.state(10));
  EXPECT_EQ(local.share, Allocation::identity(2).share);
  EXPECT_EQ(rr.share, Allocation::uniform(2).share);
}

TEST(FleetBaselines, WaterFillEqualisesBacklogOverCapacity) {
  const std::vector<double> even = waterFill(20, {10, 30}, {0, 0});
  EXPECT_NEAR(even[0], 5, 1e-9);
  EXPECT_NEAR(even[1], 15, 1e-9);
  // Region 0 already holds 10 queued: the level 2/3 leaves it nothing new.
  const std::vector<double> skewed = waterFill(20, {10, 30}, {10, 0});
  EXPECT_NEAR(skewed[0], 0, 1e-9);
  EXPECT_NEAR(skewed[1], 20, 1e-9);
}

TEST(FleetBaselines, LeastLoadedSplitsByEqualLoad) {
  const TwoRegions w;
  const Allocation a = makePolicy("least-loaded")->allocate(w.state(10));
  EXPECT_NEAR(a.at(0, 0), 0.5, 1e-9);     // equal pools: equal shares
  const double q = w.slotCapacity() / 2;  // region 0 half full already
  const Allocation b = makePolicy("least-loaded")->allocate(w.state(q, q, 0));
  // Level L with (L C - q) + L C = q: L = q / C, so region 0 takes 0 and region 1 all.
  EXPECT_NEAR(b.at(0, 1), 1.0, 1e-9);
}

TEST(FleetBaselines, SkyLbStaysLocalUntilOverflowThenSpillsTheExcess) {
  const TwoRegions w;
  const double room = 0.8 * w.slotCapacity();  // target utilization x capacity
  EXPECT_NEAR(makePolicy("skylb")->allocate(w.state(room / 2)).at(0, 0), 1.0, 1e-12);
  const Allocation spill = makePolicy("skylb")->allocate(w.state(2 * room));
  EXPECT_NEAR(spill.at(0, 0), 0.5, 1e-9);  // keeps its room, the rest goes next door
  EXPECT_NEAR(spill.at(0, 1), 0.5, 1e-9);
}

TEST(FleetBaselines, OtSendsTheExcessToTheNearestCapacity) {
  // Three regions on a line 2 ms apart, equal pools: the capacity shares are 20/20/20 of the 60
  // requests. R0 has 20 and keeps them; R1 has 40 and sends its 20 extra to R2 next door (40 ms
  // of cost) rather than to R0 with R0's own 20 moving on to R2 (120).
  const World world = lineWorld(3, {gpus(1, 0, 0, 0, 0), gpus(1, 0, 0, 0, 0), gpus(1, 0, 0, 0, 0)});
  const FleetModel fleet(world, {}, 1154, 212);
  SlotState s;
  s.fleet = &fleet;
  s.slot_seconds = 45;
  s.arrivals = {20, 40, 0};
  s.context_tokens = s.generated_tokens = {0, 0, 0};
  s.queued = {0, 0, 0};
  s.utilization = {0, 0, 0};
  s.previous = Allocation::identity(3);
  const Allocation a = makePolicy("ot")->allocate(s);
  EXPECT_NEAR(a.at(0, 0), 1.0, 1e-6);
  EXPECT_NEAR(a.at(1, 1), 0.5, 1e-6);
  EXPECT_NEAR(a.at(1, 2), 0.5, 1e-6);
  EXPECT_NEAR(a.at(2, 2), 1.0, 1e-12);  // no requests: serves itself
}

// The power term (OtCost): three equal A100 pools on a line, R2's electricity three times the
// others'. Latency alone over balanced columns keeps a third of R2's requests at home whatever
// the price; with the power term the columns are capacities at 80% of a pool and R2's requests go
// to R1 next door, where a request's electricity costs a third.
TEST(FleetBaselines, OtPowerTermFillsTheCheaperRegionsUpToTheirCap) {
  World world = lineWorld(3, {gpus(1, 0, 0, 0, 0), gpus(1, 0, 0, 0, 0), gpus(1, 0, 0, 0, 0)});
  world.regions[0].price.usd_per_kwh = world.regions[1].price.usd_per_kwh = 0.1;
  world.regions[2].price.usd_per_kwh = 0.3;
  const FleetModel fleet(world, {}, 1154, 212);
  // USD per request: the pool's draw while decoding over its rate, at the region's price.
  EXPECT_NEAR(fleet.requestPowerCost(2), fleet.gpus()[0].decode_w / fleet.poolRate(2) / 3.6e6 * 0.3,
              1e-15);
  EXPECT_NEAR(fleet.requestPowerCost(2), 3 * fleet.requestPowerCost(1), 1e-15);
  const double capacity = fleet.poolRate(0) * 45;
  SlotState s;
  s.fleet = &fleet;
  s.slot_seconds = 45;
  s.arrivals = {0, 0, 0.6 * capacity};
  s.context_tokens = s.generated_tokens = {0, 0, 0};
  s.queued = {0, 0, 0};
  s.utilization = {0, 0, 0};
  s.previous = Allocation::identity(3);
  const Allocation latencyOnly = otPlan(s);
  EXPECT_NEAR(latencyOnly.at(2, 2), 1.0 / 3, 1e-6);
  const Allocation withPower = otPlan(s, {}, OtCost{1.0, 0.8});
  EXPECT_NEAR(withPower.at(2, 1), 1.0, 1e-6);
  // More than R1 holds at its cap: R1 takes 80% of its pool, the rest goes to R0 (cheap, and
  // cheaper than staying home at three times the price).
  s.arrivals = {0, 0, 1.2 * capacity};
  const Allocation spill = otPlan(s, {}, OtCost{1.0, 0.8});
  EXPECT_NEAR(spill.at(2, 1) * 1.2, 0.8, 1e-6);
  EXPECT_NEAR(spill.at(2, 0) * 1.2, 0.4, 1e-6);
  // Past every region's cap together the power term cannot choose: the balanced plan.
  s.arrivals = {0, 0, 2.5 * capacity};
  const Allocation full = otPlan(s, {}, OtCost{1.0, 0.8});
  EXPECT_EQ(full.share, otPlan(s).share);
}

TEST(FleetBaselines, SmoothedOtMovesAFractionTowardThePlan) {
  const TwoRegions w;
  const Allocation plan = makePolicy("ot")->allocate(w.state(10));
  const Allocation smooth = makePolicy("ot-smoothed")->allocate(w.state(10));
  // previous = identity: (1 - eta) * 1 + eta * plan
  EXPECT_NEAR(smooth.at(0, 1), kSmoothedOtEta * plan.at(0, 1), 1e-9);
}

TEST(FleetBaselines, MilpKeepsTheTargetLoadAndRoutesTheRestNearby) {
  const TwoRegions w;
  const double room = std::floor(0.8 * w.slotCapacity());
  const double arrivals = room + 40;
  const Allocation a = makePolicy("milp")->allocate(w.state(arrivals));
  // Staying costs nothing and moving costs 4 ms + the switch weight, so region 0 keeps exactly
  // its room and the 40 over it go next door (overload costs more than either).
  EXPECT_NEAR(a.at(0, 0) * arrivals, room, 1e-6);
  EXPECT_NEAR(a.at(0, 1) * arrivals, 40, 1e-6);
  MilpOptions bb;
  bb.lp_first = false;  // CBC's branch and bound gives the same optimum
  const Allocation b = makeMilpPolicy(bb)->allocate(w.state(arrivals));
  EXPECT_NEAR(b.at(0, 1) * arrivals, 40, 1e-6);
}

}  // namespace

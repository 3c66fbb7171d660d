// The per-request simulator on worlds small enough to check by hand: one request's timeline
// against the catalogue's roofline, batched prefill, the KV-cache limit, rejection with a reason,
// network delay, conservation, bad policies and seeds.
#include <gtest/gtest.h>

#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/harness.h"
#include "core/fleet/sim/simulate.h"
#include "tests/fleet/sim_test_world.h"

namespace {

using namespace doppler::fleet;
using namespace doppler::fleet::sim;
using doppler::testing::demandOf;
using doppler::testing::gpus;
using doppler::testing::lineWorld;

SimResult runFixed(const World& world, const Demand& demand, const Allocation& a,
                   SimOptions options = {}) {
  const auto [c, g] = meanTokens(demand);
  const FleetModel fleet(world, options, c, g);
  FixedPolicy policy("fixed", a);
  return simulateRequests(fleet, demand, policy);
}

TEST(FleetRequestSim, OneRequestTakesPrefillPlusItsDecodeSteps) {
  const World world = lineWorld(1, {gpus(0, 1, 0, 0, 0)});  // one H100
  const Demand demand = demandOf(1, 2, 45, {{1.0, 0, 1000, 101}});
  const FleetMetrics m = runFixed(world, demand, Allocation::identity(1)).metrics;
  const GpuSpec& h100 = gpuSpec(GpuType::H100);
  const double prefill = prefillSeconds(h100, world.model, 1000, world.roofline);
  // 100 decode steps at batch 1 with the context growing 1001 -> 1100; memory-bound, so the step
  // is linear in the context and the steps take 100 steps at the mean context (1051).
  const double decode = 100 * decodeStepSeconds(h100, world.model, 1, 1051, world.roofline);
  EXPECT_EQ(m.served, 1);
  EXPECT_NEAR(m.ttft_s.mean, prefill, 1e-12);
  EXPECT_NEAR(m.e2e_s.mean, prefill + decode, 1e-9);
  EXPECT_NEAR(m.tpot_s.mean, decode / 100, 1e-12);
  EXPECT_EQ(m.queue_s.mean, 0);
  EXPECT_EQ(m.cross_region_share, 0);
  // Energy: prefill and decode at their draws, the rest of the 90 s idle.
  const double busy = prefill + decode;
  EXPECT_NEAR(m.energy_kwh * 3.6e6,
              prefill * h100.prefill_w + decode * h100.decode_w + (90 - busy) * h100.idle_w, 1e-6);
}

TEST(FleetRequestSim, RequestsArrivingTogetherArePrefilledInOneIteration) {
  const World world = lineWorld(1, {gpus(0, 1, 0, 0, 0)});
  const Demand demand = demandOf(1, 1, 45, {{2.0, 0, 1000, 1}, {2.0, 0, 1000, 1}});
  const FleetMetrics m = runFixed(world, demand, Allocation::identity(1)).metrics;
  const double both = prefillSeconds(gpuSpec(GpuType::H100), world.model, 2000, world.roofline);
  // One output token each: done at the end of the shared prefill.
  EXPECT_NEAR(m.ttft_s.p99, both, 1e-12);
  EXPECT_NEAR(m.e2e_s.mean, both, 1e-12);
  EXPECT_EQ(m.served, 2);
}

TEST(FleetRequestSim, KvCacheLimitMakesTheSecondRequestWait) {
  // A T4 holds 3,780 tokens of KV for Llama-2-7B (docs/fleet.md): two requests of 2,100 tokens
  // cannot run together, so the second waits for the first to finish.
  const World world = lineWorld(1, {gpus(0, 0, 0, 0, 1)});
  const Demand demand = demandOf(1, 4, 45, {{0.0, 0, 2000, 100}, {0.0, 0, 2000, 100}});
  const FleetMetrics m = runFixed(world, demand, Allocation::identity(1)).metrics;
  ASSERT_EQ(m.served, 2);
  const GpuSpec& t4 = gpuSpec(GpuType::T4);
  const double alone = prefillSeconds(t4, world.model, 2000, world.roofline) +
                       99 * decodeStepSeconds(t4, world.model, 1, 2050.5, world.roofline);
  EXPECT_NEAR(m.queue_s.p99, alone, 1e-6);  // the second waits exactly the first's service
  EXPECT_NEAR(m.e2e_s.p99, 2 * alone, 1e-6);
  EXPECT_NEAR(m.queue_s.p50, 0, 1e-12);
}

TEST(FleetRequestSim, RequestsNoServerCanHoldAreRejectedWithAReason) {
  const World world = lineWorld(1, {gpus(0, 0, 0, 0, 1)});
  const Demand demand = demandOf(1, 2, 45, {{0.0, 0, 5000, 10}, {1.0, 0, 500, 10}});
  const SimResult r = runFixed(world, demand, Allocation::identity(1));
  EXPECT_EQ(r.metrics.arrivals, 2);
  EXPECT_EQ(r.metrics.served, 1);
  EXPECT_EQ(r.metrics.rejected, 1);
  ASSERT_EQ(r.metrics.rejected_by_reason.size(), 1u);
  EXPECT_NE(r.metrics.rejected_by_reason.begin()->first.find("KV cache"), std::string::npos);
}

TEST(FleetRequestSim, RemoteServingAddsTheRoundTrip) {
  // R0 and R1 are 200 km apart: 200 * 1.5 / 200,000 s + 0.5 ms per hop = 2 ms one way.
  const World world = lineWorld(2, {gpus(0, 1, 0, 0, 0), gpus(0, 1, 0, 0, 0)});
  ASSERT_NEAR(world.latency.at(0, 1), 0.002, 1e-12);
  const Demand demand = demandOf(2, 1, 45, {{1.0, 0, 1000, 1}});
  Allocation away(2);
  away.at(0, 1) = away.at(1, 1) = 1.0;
  const FleetMetrics m = runFixed(world, demand, away).metrics;
  const double prefill = prefillSeconds(gpuSpec(GpuType::H100), world.model, 1000, world.roofline);
  EXPECT_NEAR(m.e2e_s.mean, prefill + 0.004, 1e-12);
  EXPECT_EQ(m.cross_region_share, 1);
  EXPECT_NEAR(m.added_network_s, 0.004, 1e-12);
}

TEST(FleetRequestSim, EveryArrivalIsServedQueuedOrRejectedUnderOverload) {
  RunOptions o;
  o.topology = "abilene";
  o.slots = 12;
  o.load = 2.0;  // twice the capacity: queues grow every slot
  o.fidelity = Fidelity::Request;
  o.sim.drain_at_end = false;
  const PreparedScenario p = prepareScenario(o);
  const SimResult r = runMethod(p, "skylb", o);  // checks the invariant every slot
  const FleetMetrics& m = r.metrics;
  EXPECT_GT(m.queued, 0);
  EXPECT_DOUBLE_EQ(m.arrivals, m.served + m.queued + m.rejected);
  EXPECT_EQ(m.arrivals, static_cast<double>(p.scenario.demand.requests.size()));
  double sum = 0;
  for (double a : r.series.arrivals) sum += a;
  EXPECT_EQ(sum, m.arrivals);
}

TEST(FleetRequestSim, DrainingAtTheEndServesEveryoneLeft) {
  RunOptions o;
  o.topology = "polska";
  o.slots = 6;
  o.load = 1.5;
  o.fidelity = Fidelity::Request;
  const SimResult r = runMethod(prepareScenario(o), "local", o);
  EXPECT_EQ(r.metrics.queued, 0);
  EXPECT_EQ(r.metrics.arrivals, r.metrics.served + r.metrics.rejected);
}

class BrokenPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "broken"; }
  Allocation allocate(const SlotState& s) override { return Allocation(s.regions(), 0.7); }
};

TEST(FleetRequestSim, AnAllocationThatIsNotRowStochasticIsRefused) {
  const World world = lineWorld(2, {gpus(1, 0, 0, 0, 0), gpus(1, 0, 0, 0, 0)});
  const Demand demand = demandOf(2, 1, 45, {{1.0, 0, 100, 10}});
  const FleetModel fleet(world, {}, 100, 10);
  BrokenPolicy broken;
  EXPECT_THROW(simulateRequests(fleet, demand, broken), std::logic_error);
  EXPECT_THROW(simulateSlots(fleet, demand, broken), std::logic_error);
}

TEST(FleetRequestSim, TheSameSeedReproducesAndAnotherRoutesDifferently) {
  RunOptions o;
  o.topology = "abilene";
  o.slots = 4;
  o.fidelity = Fidelity::Request;
  const PreparedScenario p = prepareScenario(o);
  const FleetMetrics a = runMethod(p, "round-robin", o).metrics;
  const FleetMetrics b = runMethod(p, "round-robin", o).metrics;
  EXPECT_EQ(a.e2e_s.mean, b.e2e_s.mean);
  EXPECT_EQ(a.cross_region_share, b.cross_region_share);
  o.seed = 2;  // the routing draws only: the scenario is the same prepared one
  const FleetMetrics c = runMethod(p, "round-robin", o).metrics;
  EXPECT_NE(a.cross_region_share, c.cross_region_share);
  EXPECT_EQ(a.arrivals, c.arrivals);
}

}  // namespace

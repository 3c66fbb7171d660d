// The slot-level model and the pieces both simulators share: service terms against the
// catalogue, the autoscaler, the fluid wait, quantiles and confidence intervals, allocation
// helpers, and slot-model runs checked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/harness.h"
#include "core/fleet/sim/simulate.h"
#include "core/fleet/sim/slot_state.h"
#include "tests/fleet/sim_test_world.h"

namespace {

using namespace doppler::fleet;
using namespace doppler::fleet::sim;
using doppler::testing::demandOf;
using doppler::testing::gpus;
using doppler::testing::lineWorld;

TEST(FleetSimModel, ServiceTermsMatchTheCatalogueRoofline) {
  const World world = lineWorld(1, {gpus(1, 1, 1, 1, 1)});
  const FleetModel fleet(world, {}, 1000, 200);
  for (const GpuModel& g : fleet.gpus()) {
    const GpuSpec& spec = gpuSpec(g.type);
    for (double tokens : {1.0, 100.0, 3000.0})
      EXPECT_NEAR(g.prefillSeconds(tokens), prefillSeconds(spec, world.model, tokens), 1e-15);
    for (int batch : {1, 16, 200})
      EXPECT_NEAR(g.stepSeconds(batch, batch * 1500.0),
                  decodeStepSeconds(spec, world.model, batch, 1500.0), 1e-12);
    EXPECT_EQ(g.kv_tokens, kvCapacityTokens(spec, world.model));
  }
}

TEST(FleetSimModel, AutoscalerSwitchesOnFastestFirstUntilTheTargetLoad) {
  const World world = lineWorld(1, {gpus(2, 1, 0, 0, 1)});
  const FleetModel fleet(world, {}, 1154, 212);
  const std::vector<int>& list = fleet.regionServers(0);
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(fleet.gpus()[fleet.servers()[list[0]].gpu].type, GpuType::H100);
  EXPECT_EQ(fleet.gpus()[fleet.servers()[list[3]].gpu].type, GpuType::T4);
  const double h100 = fleet.serverRate(static_cast<int>(GpuType::H100));
  const double a100 = fleet.serverRate(static_cast<int>(GpuType::A100));
  EXPECT_EQ(fleet.serversNeeded(0, 0), 1);  // one stays on
  EXPECT_EQ(fleet.serversNeeded(0, 0.8 * h100), 1);
  EXPECT_EQ(fleet.serversNeeded(0, 0.8 * (h100 + a100) - 1e-9), 2);
  EXPECT_EQ(fleet.serversNeeded(0, 1e9), 4);  // never more than the pool
}

TEST(FleetSimModel, FluidWaitMatchesHandComputedCases) {
  EXPECT_EQ(fluidWait(0, 0.5, 1, 100), 0);
  // 10 queued, none arriving, 1/s served: empties at 10 s; mean backlog 10 * 10 / 2 / 100.
  EXPECT_NEAR(fluidWait(10, 0, 1, 100), 0.5, 1e-12);
  // Overloaded 2/s into 1/s from empty over 10 s: backlog grows to 10, mean 5, wait 5 s.
  EXPECT_NEAR(fluidWait(0, 2, 1, 10), 5, 1e-12);
  EXPECT_TRUE(std::isinf(fluidWait(1, 1, 0, 10)));
}

TEST(FleetSimModel, LittlesLawFixedPointHolds) {
  const World world = lineWorld(1, {gpus(1, 0, 0, 0, 0)});
  const FleetModel fleet(world, {}, 1154, 212);
  const GpuModel& a100 = fleet.gpus()[static_cast<int>(GpuType::A100)];
  const double lambda = 2.0;
  const SteadyState s = serverSteadyState(a100, lambda, 1154, 212, 256, false);
  // N = lambda * (prefill + 211 * TPOT): the batch is what the arrival rate keeps in service.
  EXPECT_NEAR(s.batch, lambda * (s.prefill_s + 211 * s.tpot_s), 1e-9 * s.batch);
  EXPECT_NEAR(s.prefill_share, lambda * s.prefill_s, 1e-12);
  // Saturated: the batch is what the KV cache holds (docs/fleet.md: 89 on an A100).
  EXPECT_EQ(serverSteadyState(a100, lambda, 1154, 212, 256, true).batch, 89);
}

TEST(FleetSimMetrics, WeightedQuantilesAndTheMean) {
  WeightedSamples s;
  for (int v = 1; v <= 100; ++v) s.add(v);
  const Distribution d = s.summarize();
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
  EXPECT_EQ(d.p50, 50);
  EXPECT_EQ(d.p90, 90);
  EXPECT_EQ(d.p95, 95);
  EXPECT_EQ(d.p99, 99);
  WeightedSamples w;  // weight 3 on 1, 1 on 10: the median is 1, the mean 3.25
  w.add(10, 1);
  w.add(1, 3);
  const Distribution e = w.summarize();
  EXPECT_EQ(e.p50, 1);
  EXPECT_EQ(e.p90, 10);
  EXPECT_DOUBLE_EQ(e.mean, 3.25);
}

TEST(FleetSimMetrics, ConfidenceIntervalUsesStudentT) {
  // {1, 2, 3}: sd 1, n 3, t(2) = 4.303.
  EXPECT_NEAR(ci95HalfWidth({1, 2, 3}), 4.303 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(ci95HalfWidth({5}), 0);
  EXPECT_EQ(studentT975(100), 1.96);
}

TEST(FleetSimPolicy, AllocationHelpers) {
  Allocation a(2);
  a.at(0, 0) = 2;
  a.at(0, 1) = -1;   // clipped
  normalizeRows(a);  // row 1 is all zero: it serves itself
  EXPECT_EQ(a.at(0, 0), 1);
  EXPECT_EQ(a.at(0, 1), 0);
  EXPECT_EQ(a.at(1, 1), 1);
  EXPECT_TRUE(isRowStochastic(a));
  EXPECT_FALSE(isRowStochastic(Allocation(2, 0.6)));
  EXPECT_DOUBLE_EQ(switchCost(Allocation::identity(2), Allocation::uniform(2)), 1.0);
  EXPECT_EQ(switchedRows(Allocation::identity(2), Allocation::uniform(2), 0.01), 2);
}

TEST(FleetSlotSim, LightLoadResponseIsPrefillPlusDecodeAtTheBatchLittleGives) {
  // 45 requests of 1,000 + 101 tokens in one slot into one H100: 1 request/s.
  std::vector<doppler::testing::TestRequest> rs;
  for (int k = 0; k < 45; ++k) rs.push_back({k + 0.5, 0, 1000, 101});
  const World world = lineWorld(1, {gpus(0, 1, 0, 0, 0)});
  const Demand demand = demandOf(1, 1, 45, rs);
  const FleetModel fleet(world, {}, 1000, 101);
  FixedPolicy local("local", Allocation::identity(1));
  const FleetMetrics m = simulateSlots(fleet, demand, local).metrics;
  const SteadyState s =
      serverSteadyState(fleet.gpus()[static_cast<int>(GpuType::H100)], 1.0, 1000, 101, 256, false);
  EXPECT_EQ(m.served, 45);
  EXPECT_EQ(m.queue_s.mean, 0);
  EXPECT_NEAR(m.ttft_s.mean, s.prefill_s, 1e-12);
  EXPECT_NEAR(m.e2e_s.mean, s.prefill_s + 100 * s.tpot_s, 1e-12);
  // Busy the prefill and decode shares of the slot; utilization 1 request/s over the H100's
  // full rate at these sizes.
  EXPECT_NEAR(m.busy_share, s.prefill_share + s.decode_share, 1e-12);
  const double rate =
      servingRequestsPerSecond(world.catalog[static_cast<int>(GpuType::H100)], world.model, 1000,
                               101, world.roofline, SimOptions{}.max_batch);
  EXPECT_NEAR(m.utilization, 1.0 / rate, 1e-12);
}

TEST(FleetSlotSim, OverloadQueuesTheExcessAndConserves) {
  // 3 requests/s into a region whose one A100 serves about 4.5/s at these sizes... scaled down:
  // 400 requests in a 45 s slot is ~8.9/s, about twice the capacity.
  std::vector<doppler::testing::TestRequest> rs;
  for (int k = 0; k < 400; ++k) rs.push_back({k * 45.0 / 400, 0, 1154, 212});
  const World world = lineWorld(1, {gpus(1, 0, 0, 0, 0)});
  const Demand demand = demandOf(1, 1, 45, rs);
  const FleetModel fleet(world, {}, 1154, 212);
  FixedPolicy local("local", Allocation::identity(1));
  const FleetMetrics m = simulateSlots(fleet, demand, local).metrics;
  const double capacity = 45 * fleet.serverRate(static_cast<int>(GpuType::A100));
  EXPECT_NEAR(m.served, capacity, 1e-9);
  EXPECT_NEAR(m.queued, 400 - capacity, 1e-9);
  EXPECT_DOUBLE_EQ(m.arrivals, m.served + m.queued + m.rejected);
  // The fluid wait of arrivals at 400/45 per s into capacity/45 per s, from empty.
  EXPECT_NEAR(m.queue_s.mean, fluidWait(0, 400 / 45.0, capacity / 45, 45), 1e-9);
}

TEST(FleetSlotSim, RoutingToARegionWithoutServersIsRejected) {
  const World world = lineWorld(2, {gpus(1, 0, 0, 0, 0), gpus(0, 0, 0, 0, 0)});
  const Demand demand = demandOf(2, 1, 45, {{1, 0, 100, 10}, {2, 0, 100, 10}});
  const FleetModel fleet(world, {}, 100, 10);
  FixedPolicy away("away", Allocation::uniform(2));
  const FleetMetrics m = simulateSlots(fleet, demand, away).metrics;
  EXPECT_NEAR(m.rejected, 1, 1e-12);
  EXPECT_NEAR(m.served, 1, 1e-12);
  EXPECT_EQ(m.rejected_by_reason.count("no server in the region fits the model"), 1u);
}

TEST(FleetSlotSim, LoadTargetingHitsTheAskedLoad) {
  RunOptions o;
  o.topology = "gabriel";
  o.slots = 160;  // a whole number of trace copies' worth (2 h)
  o.load = 0.6;
  const PreparedScenario p = prepareScenario(o);
  EXPECT_NEAR(p.capacity.load_factor, 0.6, 0.06);
  EXPECT_GT(p.rate_scale, 1);
}

TEST(FleetSlotSim, SeedsReproduce) {
  RunOptions o;
  o.topology = "polska";
  o.slots = 30;
  const FleetMetrics a = runMethod(prepareScenario(o), "sdib", o).metrics;
  const FleetMetrics b = runMethod(prepareScenario(o), "sdib", o).metrics;
  EXPECT_EQ(a.e2e_s.mean, b.e2e_s.mean);
  EXPECT_EQ(a.power_cost_usd, b.power_cost_usd);
  o.seed = 9;
  const FleetMetrics c = runMethod(prepareScenario(o), "sdib", o).metrics;
  EXPECT_NE(a.e2e_s.mean, c.e2e_s.mean);
}

}  // namespace

namespace {

// Utilization is served work over available capacity: with the autoscaler asked to keep twice
// the capacity on for the same demand (load 0.3, so the pools hold it) it falls by a third or
// more in both simulators, while the busy share, the old figure, hardly moves (a server decoding
// a batch of one counts as busy). In the request simulator a region can pass 1 a little: its
// requests are not all of the mean sizes the full rate is computed at.
TEST(FleetMetricsMeaning, UtilizationFallsWhenMoreCapacityIsSwitchedOnForTheSameDemand) {
  for (Fidelity fidelity : {Fidelity::Slot, Fidelity::Request}) {
    RunOptions o;
    o.slots = 24;
    o.load = 0.3;
    o.fidelity = fidelity;
    const PreparedScenario p = prepareScenario(o);
    o.sim.target_utilization = 0.8;
    const FleetMetrics tight = runMethod(p, "ot", o).metrics;
    o.sim.target_utilization = 0.4;
    const FleetMetrics loose = runMethod(p, "ot", o).metrics;
    EXPECT_LT(loose.utilization, 0.67 * tight.utilization)
        << loose.utilization << " vs " << tight.utilization;
    EXPECT_GT(tight.utilization, 0.5);
    EXPECT_LE(tight.utilization, 1.05);
    EXPECT_GT(loose.busy_share, 0.8 * tight.busy_share);
    for (double u : tight.region_utilization)
      EXPECT_LE(u, fidelity == Fidelity::Slot ? 1.0 + 1e-9 : 1.1);
    EXPECT_LE(tight.jain_index, 1.0 + 1e-12);
  }
}

}  // namespace

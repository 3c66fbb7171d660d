// Demand: every trace request lands exactly once (per copy) in one slot and one region; the
// spreading follows the seed and the regions' time of day; synthetic demand keeps its rate.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/common/input_error.h"
#include "core/fleet/world/demand.h"
#include "core/fleet/world/scenario.h"

namespace {

using namespace doppler::fleet;

const Trace& conv() {
  static const Trace trace = loadTrace("conv");
  return trace;
}
const World& abilene() {
  static const World world = buildWorld(loadTopology("abilene"));
  return world;
}

// The totals agree with the request list, slot by slot and region by region.
void expectTotalsMatchRequests(const Demand& d, const DemandOptions& o) {
  SlotTotals recount;
  recount.slots = d.totals.slots;
  recount.regions = d.totals.regions;
  recount.requests.assign(d.totals.requests.size(), 0);
  std::vector<long long> context(d.totals.requests.size(), 0);
  for (const Request& r : d.requests) {
    ASSERT_GE(r.arrival_s, 0);
    ASSERT_LT(r.arrival_s, d.horizon_s);
    ASSERT_GE(r.home_region, 0);
    ASSERT_LT(r.home_region, d.totals.regions);
    const int slot = static_cast<int>(r.arrival_s / o.slot_seconds);
    ++recount.requests[recount.index(slot, r.home_region)];
    context[recount.index(slot, r.home_region)] += r.context_tokens;
  }
  EXPECT_EQ(recount.requests, d.totals.requests);
  EXPECT_EQ(context, d.totals.context_tokens);
  EXPECT_EQ(d.totals.totalRequests(), static_cast<long long>(d.requests.size()));
  for (size_t i = 1; i < d.requests.size(); ++i)
    ASSERT_LE(d.requests[i - 1].arrival_s, d.requests[i].arrival_s);
}

TEST(FleetDemand, OnceEveryTraceRequestAppearsExactlyOnce) {
  DemandOptions o;
  o.horizon = HorizonRule::Once;  // 480 x 45 s = 6 h covers the 58-minute trace
  const Demand d = spreadTrace(conv(), abilene(), o);
  ASSERT_EQ(d.requests.size(), 19366u);
  EXPECT_EQ(d.totals.totalRequests(), 19366);
  std::vector<int> seen(conv().requests.size(), 0);
  for (const Request& r : d.requests) ++seen[r.trace_index];
  for (int s : seen) ASSERT_EQ(s, 1);
  expectTotalsMatchRequests(d, o);
  // Slots after the trace's hour are empty: 3,502 s end in slot 77.
  const std::vector<int> perSlot = d.totals.requestsPerSlot();
  EXPECT_GT(perSlot[77], 0);
  for (int s = 78; s < 480; ++s) ASSERT_EQ(perSlot[s], 0);
}

TEST(FleetDemand, TilingLaysCopiesEndToEndOverTheHorizon) {
  DemandOptions o;
  o.horizon = HorizonRule::Tile;  // 480 x 45 s
  const Demand d = spreadTrace(conv(), abilene(), o);
  // One copy spans 3,501.7 s plus one mean gap: 6 h take 7 copies, the last one cut.
  EXPECT_EQ(d.copies, 7);
  std::set<std::pair<int, int>> keys;
  for (const Request& r : d.requests) ASSERT_TRUE(keys.insert({r.copy, r.trace_index}).second);
  const double period = conv().span_s * (1 + 1.0 / (conv().requests.size() - 1));
  size_t expected = 0;
  for (int copy = 0; copy < 7; ++copy)
    for (const TraceRequest& r : conv().requests) expected += copy * period + r.arrival_s < 21600.0;
  EXPECT_EQ(d.requests.size(), expected);
  EXPECT_GT(d.requests.size(), 6 * 19366u);
  expectTotalsMatchRequests(d, o);
}

TEST(FleetDemand, StretchFitsOneCopyIntoTheHorizon) {
  DemandOptions o;
  o.horizon = HorizonRule::Stretch;
  const Demand d = spreadTrace(conv(), abilene(), o);
  EXPECT_EQ(d.requests.size(), 19366u);
  EXPECT_GT(d.requests.back().arrival_s, 21600.0 * 0.99);
  EXPECT_NEAR(d.trace_time_scale, 21600.0 / (conv().span_s * (1 + 1.0 / 19365)), 1e-9);
}

TEST(FleetDemand, SpreadingIsDeterministicGivenTheSeed) {
  DemandOptions o;
  o.slots = 80;
  const Demand a = spreadTrace(conv(), abilene(), o), b = spreadTrace(conv(), abilene(), o);
  EXPECT_EQ(a.totals.requests, b.totals.requests);
  o.seed = 2;
  EXPECT_NE(spreadTrace(conv(), abilene(), o).totals.requests, a.totals.requests);
}

TEST(FleetDemand, RegionsShareFollowsTheirLocalTime) {
  // Two regions of equal weight, 180 degrees apart, no bursts: at 14:00 UTC the one at
  // longitude 0 is at its peak (weight 1.5), the other at its trough (0.5): a 3:1 split.
  World world = abilene();
  world.regions.resize(2);
  world.regions[0].longitude = 0;
  world.regions[1].longitude = 180;
  world.regions[0].degree = world.regions[1].degree = 2;
  DemandOptions o;
  o.slots = 1;
  o.slot_seconds = 1e-6;  // the whole hour evaluated at 14:00
  o.spread.start_utc_hour = 14;
  o.spread.burst_probability = 0;
  const std::vector<double> w = slotWeights(world, o, 14);
  EXPECT_NEAR(w[0] / w[1], 3.0, 1e-6);
  o.slot_seconds = 3600;
  o.horizon = HorizonRule::Once;
  const Demand d = spreadTrace(conv(), world, o);
  const std::vector<long long> perRegion = d.totals.requestsPerRegion();
  const double share = static_cast<double>(perRegion[0]) / 19366;
  // Slot middle is 14:30, close to the peak: the share is near 0.75 (binomial sd 0.003).
  EXPECT_NEAR(share, 0.75, 0.02);
}

TEST(FleetDemand, BurstsRaiseARegionsWeightForTheirDuration) {
  DemandOptions o;
  o.slots = 480;
  o.spread.burst_probability = 0.05;
  o.spread.burst_factor = 3;
  o.spread.diurnal_amplitude = 0;  // weights are then the degree, or 3x the degree in a burst
  const std::vector<double> w = slotWeights(abilene(), o, 0);
  int bursting = 0;
  for (int s = 0; s < o.slots; ++s)
    for (int r = 0; r < abilene().regionCount(); ++r) {
      const double base = abilene().regions[r].degree;
      const double v = w[static_cast<size_t>(s) * abilene().regionCount() + r];
      ASSERT_TRUE(v == base || v == 3 * base) << v;
      bursting += v == 3 * base;
    }
  EXPECT_GT(bursting, 0);
}

TEST(FleetDemand, SyntheticDemandKeepsItsRateAndCountsEveryRequest) {
  DemandOptions o;
  o.seed = 11;
  const SyntheticOptions s;
  const Demand d = syntheticDemand(abilene(), o, s);
  expectTotalsMatchRequests(d, o);
  // Expected 5.53/s * 21,600 s = 119,460 requests; Poisson sd ~346 (bursts add a little).
  const double expected = s.mean_rate_per_s * 21600;
  EXPECT_NEAR(static_cast<double>(d.requests.size()), expected, 0.03 * expected);
  std::vector<double> context;
  for (const Request& r : d.requests) {
    ASSERT_GE(r.context_tokens, 1);
    ASSERT_LE(r.context_tokens, s.max_context);
    ASSERT_LE(r.generated_tokens, s.max_generated);
    context.push_back(r.context_tokens);
  }
  EXPECT_NEAR(fitLogNormal(context).mu, s.context.mu, 0.02);
  // Same seed, same demand.
  EXPECT_EQ(syntheticDemand(abilene(), o, s).totals.requests, d.totals.requests);
}

TEST(FleetDemand, ScenarioBuildsWorldAndDemandFromNames) {
  ScenarioOptions options;
  options.topology = "polska";
  options.trace = "code";
  options.demand.slots = 40;
  const Scenario sc = buildScenario(options);
  EXPECT_EQ(sc.world.regionCount(), 12);
  EXPECT_EQ(sc.demand.source, "code");
  EXPECT_EQ(sc.demand.totals.regions, 12);
  const CapacityEstimate c = estimateCapacity(sc.world, sc.demand);
  EXPECT_GT(c.fleet_requests_per_s, 0);
  EXPECT_NEAR(c.load_factor, c.demand_requests_per_s / c.fleet_requests_per_s, 1e-12);
}

// A tiny time scale or a huge horizon asks for billions of requests: refused by the estimate,
// before anything is allocated (it ran out of memory).
TEST(FleetDemand, RefusesADemandTooLargeToHoldBeforeBuildingIt) {
  DemandOptions o;
  o.time_scale = 1e-9;
  try {
    spreadTrace(conv(), abilene(), o);
    ADD_FAILURE() << "accepted";
  } catch (const doppler::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("above the limit"), std::string::npos) << e.what();
  }
  o = DemandOptions{};
  o.slots = 10;
  o.slot_seconds = 1e9;  // 3 x 10^14 requests tiled; the tile count no longer fits an int
  EXPECT_THROW(spreadTrace(conv(), abilene(), o), doppler::InputError);
  o = DemandOptions{};
  o.slots = 2'000'000;
  EXPECT_THROW(spreadTrace(conv(), abilene(), o), doppler::InputError);
  SyntheticOptions fast;
  fast.mean_rate_per_s = 1e6;  // 2.16 x 10^10 requests over 6 h
  EXPECT_THROW(syntheticDemand(abilene(), DemandOptions{}, fast), doppler::InputError);
  // The limit is a field: just under it the same demand is built.
  o = DemandOptions{};
  o.slots = 4;
  o.max_requests = 100;
  EXPECT_THROW(spreadTrace(conv(), abilene(), o), doppler::InputError);
  o.max_requests = 1e6;
  EXPECT_GT(spreadTrace(conv(), abilene(), o).requests.size(), 0u);
}

}  // namespace

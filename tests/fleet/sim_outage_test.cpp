// Outages in the slot-level simulator (region_events.h): while a region is down it powers no
// server and serves nothing; what a policy sends there goes to the row's other regions or the
// nearest region up; its queue moves; every request is still accounted for; afterwards its
// servers come back cold. The harness refuses an outage for the request-level simulator and an
// outage of every region at once.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/input_error.h"
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

// Three regions on a line, each with the same pool; steady demand at every region for 12 slots.
struct Case {
  World world = lineWorld(3, {gpus(1, 1, 1, 1, 1), gpus(1, 1, 1, 1, 1), gpus(1, 1, 1, 1, 1)});
  Demand demand;
  Case() {
    std::vector<doppler::testing::TestRequest> requests;
    for (int k = 0; k < 12 * 60; ++k) requests.push_back({k * 0.75, k % 3, 800, 150});
    demand = demandOf(3, 12, 45, requests);
  }
};

TEST(FleetOutage, ADownRegionServesNothingAndItsDemandGoesElsewhere) {
  Case c;
  SimOptions options;
  options.outages = {{1, 3 * 45.0, 4 * 45.0}};  // region 1, slots 3-6
  const FleetModel fleet(c.world, options, 800, 150);
  FixedPolicy local("local", Allocation::identity(3));  // sends region 1's users to region 1
  const SimResult r = simulateSlots(fleet, c.demand, local);
  const RegionSeries& rs = r.region_series;
  for (int t = 0; t < 12; ++t) {
    const bool down = t >= 3 && t < 7;
    if (down) {
      EXPECT_EQ(rs.powered_servers[static_cast<size_t>(t) * 3 + 1], 0) << t;
      EXPECT_EQ(rs.at(rs.routed, t, 1), 0.0) << t;
      // Region 1's users went to a neighbour (both are 200 km away; the first is taken).
      EXPECT_NEAR(rs.at(rs.routed, t, 0) + rs.at(rs.routed, t, 2), 60.0, 1e-9) << t;
    }
  }
  // Back from the outage, its servers start cold: none is On in the first slot after it.
  EXPECT_EQ(rs.on_servers[7 * 3 + 1], 0);
  EXPECT_GT(rs.on_servers[11 * 3 + 1], 0);
  // Every request is served or still queued; none is lost, and the run has finite latencies.
  EXPECT_NEAR(r.metrics.served + r.metrics.queued + r.metrics.rejected, r.metrics.arrivals, 1e-6);
  EXPECT_TRUE(std::isfinite(r.metrics.e2e_s.mean));
  EXPECT_GT(r.metrics.cross_region_share, 0.0);

  // Without the outage nobody leaves home.
  const FleetModel calm(c.world, {}, 800, 150);
  FixedPolicy local2("local", Allocation::identity(3));
  EXPECT_EQ(simulateSlots(calm, c.demand, local2).metrics.cross_region_share, 0.0);
}

TEST(FleetOutage, TheHarnessRefusesWhatItCannotModel) {
  RunOptions o;
  o.slots = 8;
  o.outages = {"1:0:30"};
  o.fidelity = Fidelity::Request;
  EXPECT_THROW(prepareScenario(o), doppler::InputError);
  o.fidelity = Fidelity::Slot;
  EXPECT_EQ(prepareScenario(o).outages.size(), 1u);
  o.outages.clear();
  for (int r = 0; r < 12; ++r) o.outages.push_back(std::to_string(r) + ":0:10");
  try {
    prepareScenario(o);
    FAIL() << "every region down was accepted";
  } catch (const doppler::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("every region would be down"), std::string::npos);
  }
  for (const char* bad : {"1:0", "x:0:10", "1:-1:10", "1:0:0", "1:0:ten", "12:0:10"}) {
    o.outages = {bad};
    EXPECT_THROW(prepareScenario(o), doppler::InputError) << bad;
  }
}

}  // namespace

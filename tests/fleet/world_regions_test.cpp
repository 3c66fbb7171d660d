// Regions: pools drawn within the stated ranges and reproducible from the seed, prices from the
// country table, and the World gathering it all.
#include <gtest/gtest.h>

#include "core/fleet/world/world.h"

namespace {

using namespace doppler::fleet;

TEST(FleetRegions, PoolsStayInsideTheScaledTortaRanges) {
  for (double scale : {0.1, 0.5, 1.0}) {
    PoolRule rule{scale, 7};
    for (int region = 0; region < 50; ++region) {
      const GpuPool pool = poolFor(region, rule);
      for (GpuType type : kAllGpuTypes) {
        const auto [lo, hi] = poolRange(type, scale);
        EXPECT_GE(pool.of(type), lo);
        EXPECT_LE(pool.of(type), hi);
      }
    }
  }
  // TORTA's H100 range 20-40 at scale 0.1 is 2-4.
  EXPECT_EQ(poolRange(GpuType::H100, 0.1), (std::array<int, 2>{2, 4}));
}

TEST(FleetRegions, PoolsFollowTheSeedAndTheRegion) {
  const PoolRule a{1.0, 1}, b{1.0, 2};
  EXPECT_EQ(poolFor(3, a).count, poolFor(3, a).count);
  int differences = 0;
  for (int region = 0; region < 20; ++region) {
    differences += poolFor(region, a).count != poolFor(region, b).count;
    differences += poolFor(region, a).count != poolFor(region + 1, a).count;
  }
  // Ranges of 21 values per type: equal pools by chance are rare.
  EXPECT_GT(differences, 35);
}

TEST(FleetRegions, PricesComeFromTheRegionsCountry) {
  EXPECT_EQ(basePrice("cost266", "Dublin").basis, "IE");
  EXPECT_NEAR(basePrice("cost266", "Dublin").usd_per_kwh, 0.256 * 1.0824, 1e-12);
  EXPECT_EQ(basePrice("cost266", "Helsinki").basis, "FI");
  EXPECT_EQ(basePrice("polska", "Gdansk").basis, "PL");
  EXPECT_EQ(basePrice("germany50", "Aachen").basis, "DE");
  EXPECT_EQ(basePrice("abilene", "LOSAng").basis, "US-CA");
  EXPECT_EQ(basePrice("gabriel", "R0").basis, "EU-27 average");
  // The intercontinental world: its European metros as cost266's cities, its US ones by state
  // (the same figure as abilene's PoP in that state), the rest by country.
  EXPECT_EQ(basePrice("intercontinental", "Frankfurt").basis, "DE");
  EXPECT_EQ(basePrice("intercontinental", "Ashburn").basis, "US-VA");
  EXPECT_EQ(basePrice("intercontinental", "Ashburn").usd_per_kwh,
            basePrice("abilene", "WASHng").usd_per_kwh);
  for (const auto& [metro, country] : {std::pair{"SaoPaulo", "BR"},
                                       {"Johannesburg", "ZA"},
                                       {"Mumbai", "IN"},
                                       {"Singapore", "SG"},
                                       {"Tokyo", "JP"},
                                       {"Sydney", "AU"}})
    EXPECT_EQ(basePrice("intercontinental", metro).basis, country) << metro;
  // The spread stays inside its bounds, and differs between regions.
  const double base = basePrice("cost266", "Paris").usd_per_kwh;
  for (int region = 0; region < 30; ++region) {
    const double p = electricityPrice("cost266", "Paris", region, 5).usd_per_kwh;
    EXPECT_GE(p, base * 0.9);
    EXPECT_LE(p, base * 1.1);
  }
  EXPECT_NE(electricityPrice("cost266", "Paris", 0, 5).usd_per_kwh,
            electricityPrice("cost266", "Paris", 1, 5).usd_per_kwh);
}

TEST(FleetRegions, BuildWorldGathersRegionsLatencyAndCatalogue) {
  const Topology topo = loadTopology("cost266");
  WorldOptions options;
  options.seed = 3;
  const World world = buildWorld(topo, options);
  ASSERT_EQ(world.regionCount(), 37);
  EXPECT_EQ(world.latency.n, 37);
  EXPECT_EQ(world.catalog.size(), 5u);
  EXPECT_EQ(world.model.name, "llama-2-7b");
  EXPECT_NEAR(world.warmup.migrationSeconds(), 30.7, 1e-12);  // 15.2 + 4.8 + 5.6 + 5.1
  int total = 0;
  for (const Region& region : world.regions) {
    EXPECT_EQ(region.longitude, region.x);
    EXPECT_GE(region.degree, 1);
    EXPECT_GE(region.pool.total(), 20);  // scale 0.1: at least 4+2+6+4+4
    EXPECT_LE(region.pool.total(), 30);
    total += region.pool.total();
  }
  EXPECT_EQ(world.totalPool().total(), total);
  // Same seed, same world; another seed, other pools.
  const World again = buildWorld(topo, options);
  for (int r = 0; r < world.regionCount(); ++r) {
    EXPECT_EQ(world.regions[r].pool.count, again.regions[r].pool.count);
    EXPECT_EQ(world.regions[r].price.usd_per_kwh, again.regions[r].price.usd_per_kwh);
  }
}

TEST(FleetRegions, LargerModelsWarmUpLonger) {
  const WarmupCosts base;
  const WarmupCosts big = base.scaledTo(findModel("llama-2-70b"));
  EXPECT_NEAR(big.cold_start_s / base.cold_start_s, 68.98 / 6.74, 1e-9);
}

TEST(FleetRegions, PlanarRegionsGetLongitudesAroundZero) {
  const World world = buildWorld(loadTopology("gabriel"));
  double sum = 0;
  for (const Region& region : world.regions) sum += region.longitude;
  EXPECT_NEAR(sum, 0.0, 1e-9);
  EXPECT_EQ(world.coordinates, Coordinates::PlanarKm);
}

}  // namespace

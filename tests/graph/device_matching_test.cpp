// Device matching (core/graph/device_matching.h): which devices are interchangeable, and the
// relabelling that keeps most nodes together, so renamed identical GPUs are not reported as moves.
#include "core/graph/device_matching.h"

#include <gtest/gtest.h>

using namespace doppler;

TEST(DeviceMatching, IdenticalDevicesFormOneClassAndDifferentOnesTheirOwn) {
  EXPECT_EQ(interchangeableClasses(DeviceSet::uniform(4)), (std::vector<int>{0, 0, 0, 0}));
  DeviceSet mixed = DeviceSet::uniform(4);
  mixed.devices[2].memory_gb = 32;
  EXPECT_EQ(interchangeableClasses(mixed), (std::vector<int>{0, 0, 2, 0}));
  // Same GPUs, but 0-1 and 2-3 share a fast link: 0 and 1 may swap, 0 and 2 may not (the link
  // 0-1 would become 2-1, a slow one).
  DeviceSet pairs = DeviceSet::uniform(4);
  pairs.bandwidth_gbps[0][1] = pairs.bandwidth_gbps[1][0] = 300;
  pairs.bandwidth_gbps[2][3] = pairs.bandwidth_gbps[3][2] = 300;
  EXPECT_EQ(interchangeableClasses(pairs), (std::vector<int>{0, 0, 2, 2}));
}

TEST(DeviceMatching, ARenamedPlacementMapsBackOntoTheFirst) {
  const DeviceSet d = DeviceSet::uniform(3);
  const std::vector<int> a = {0, 0, 1, 2, 2};
  const std::vector<int> b = {2, 2, 0, 1, 1};  // 0->2, 1->0, 2->1
  const std::vector<int> map = matchDevices(d, a, b);
  EXPECT_EQ(map, (std::vector<int>{1, 2, 0}));
  for (std::size_t v = 0; v < a.size(); ++v) EXPECT_EQ(map[b[v]], a[v]);
}

TEST(DeviceMatching, TheMatchingMaximisesTheNodesKeptAndPrefersTheIdentityOnTies) {
  const DeviceSet d = DeviceSet::uniform(2);
  // Swapping keeps 3 of 4 together, the identity 1 of 4.
  EXPECT_EQ(matchDevices(d, std::vector<int>{0, 0, 1, 1}, std::vector<int>{1, 1, 0, 1}),
            (std::vector<int>{1, 0}));
  // A tie (2 of 4 either way): nothing is renamed.
  EXPECT_EQ(matchDevices(d, std::vector<int>{0, 0, 1, 1}, std::vector<int>{0, 1, 0, 1}),
            (std::vector<int>{0, 1}));
  // Nodes absent from one placement (-1) count for neither.
  EXPECT_EQ(matchDevices(d, std::vector<int>{0, -1, 1}, std::vector<int>{1, 0, -1}),
            (std::vector<int>{1, 0}));
}

TEST(DeviceMatching, DevicesOfDifferentKindsAreNeverMatched) {
  DeviceSet d = DeviceSet::uniform(2);
  d.devices[1].tflops = 20;
  EXPECT_EQ(matchDevices(d, std::vector<int>{0, 0, 1}, std::vector<int>{1, 1, 0}),
            (std::vector<int>{0, 1}));
  EXPECT_THROW(matchDevices(d, std::vector<int>{0}, std::vector<int>{0, 1}), std::invalid_argument);
}

TEST(DeviceMatching, SameDevicesIgnoresNamesOnly) {
  DeviceSet a = DeviceSet::uniform(2), b = DeviceSet::uniform(2);
  b.name = "renamed";
  b.devices[0].name = std::string("x");  // a move: GCC 12 misreads assign(const char*) (-Wrestrict)
  EXPECT_TRUE(sameDevices(a, b));
  b.latency_us[0][1] = 9;
  EXPECT_FALSE(sameDevices(a, b));
  EXPECT_FALSE(sameDevices(a, DeviceSet::uniform(3)));
}

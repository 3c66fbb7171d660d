// PLC's join look-ahead (device features 16 and 17, architecture 3): when v's data could meet the
// placed inputs of its successors. A hand-made join whose two inputs each cost 200 us and send
// data that takes far longer to move (the LLaMA layer's case where the policy split them).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/policy/episode_state.h"
#include "core/policy/features.h"
#include "core/sim/cost_table.h"
#include "tests/support/graphs.h"

namespace doppler::policy {
namespace {

struct Fixture {
  DataflowGraph g = testing::splitJoin();
  DeviceSet d = DeviceSet::uniform(2);
  CostTable c{g, d};
  GraphFeatures f = graphFeatures(c);
};

// The features of node v (ready) on both devices after a is on device 0.
std::vector<float> featuresOfB(const Fixture& x, int features) {
  EpisodeState st(x.c, x.f, features);
  const auto& ready = st.ready();
  const int posA = static_cast<int>(std::find(ready.begin(), ready.end(), 0) - ready.begin());
  std::vector<double> est(2);
  st.earliestStarts(0, est.data());
  st.place(posA, 0, est[0]);
  st.earliestStarts(1, est.data());
  std::vector<float> out(2 * kDeviceFeatures, -1.0f);
  st.deviceFeatures(1, est.data(), out.data());
  return out;
}

TEST(JoinLookahead, WeighsTheJoinsTransferAgainstStartingSooner) {
  Fixture x;
  ASSERT_DOUBLE_EQ(x.c.transfer(0, 0, 1), 800);
  ASSERT_DOUBLE_EQ(x.c.transfer(1, 1, 0), 800);
  const double scale = x.f.time_scale;
  const std::vector<float> out = featuresOfB(x, kDeviceFeatures);
  const float* on0 = out.data();
  const float* on1 = out.data() + kDeviceFeatures;
  // b starts at 0 on device 1, at 200 on device 0 (after a).
  EXPECT_FLOAT_EQ(on0[4] * scale, 200);
  EXPECT_FLOAT_EQ(on1[4] * scale, 0);
  // On device 0, b finishes at 400 beside a's data: the join can start at 400, no wait. On
  // device 1, b finishes at 200 and the join waits for a transfer either way: at 1,000 on
  // device 0 (b's data moves) or on device 1 (a's does). Device 1 starts b sooner; device 0 lets
  // the join start 600 us sooner.
  EXPECT_NEAR(on0[17] * scale, 0, 1e-3);
  EXPECT_NEAR(on1[17] * scale, 800, 1e-3);
  EXPECT_NEAR(on0[16] * scale, 0, 1e-3);
  EXPECT_NEAR(on1[16] * scale, 600, 1e-3);
}

TEST(JoinLookahead, AnArchitectureTwoStateLeavesTheFeaturesAtZero) {
  Fixture x;
  const std::vector<float> wide = featuresOfB(x, kDeviceFeatures);
  const std::vector<float> narrow = featuresOfB(x, kDeviceFeaturesV2);
  for (int d = 0; d < 2; ++d) {
    for (int k = 0; k < kDeviceFeaturesV2; ++k)
      EXPECT_EQ(narrow[d * kDeviceFeatures + k], wide[d * kDeviceFeatures + k]) << d << " " << k;
    EXPECT_EQ(narrow[d * kDeviceFeatures + 16], 0.0f);
    EXPECT_EQ(narrow[d * kDeviceFeatures + 17], 0.0f);
  }
  EXPECT_GT(wide[kDeviceFeatures + 17], 0.0f);  // device 1: the join would wait
}

TEST(JoinLookahead, ANodeWithoutPlacedSiblingsWaitsForNothing) {
  Fixture x;
  EpisodeState st(x.c, x.f);
  std::vector<double> est(2);
  st.earliestStarts(0, est.data());
  std::vector<float> out(2 * kDeviceFeatures);
  st.deviceFeatures(0, est.data(), out.data());  // a first: b is not placed yet
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(out[d * kDeviceFeatures + 16], 0.0f) << d;
    EXPECT_EQ(out[d * kDeviceFeatures + 17], 0.0f) << d;
  }
}

}  // namespace
}  // namespace doppler::policy

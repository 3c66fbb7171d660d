// The step-by-step episode (core/policy/episode.h), as a decision stepper drives it: following
// SEL's and PLC's most probable choices step by step reproduces the policy's greedy episode,
// following the heuristic needs no network and reproduces critical-path, any ready node can be
// placed on any device instead, and the partial schedule grows with every step.
#include "core/policy/episode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/heuristics/list_scheduler.h"
#include "core/policy/features.h"
#include "core/policy/policy.h"
#include "core/sim/cost_table.h"
#include "tests/support/data.h"

namespace doppler::policy {
namespace {

int mostProbable(const std::vector<float>& p) {
  return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
}

TEST(Episode, SteppingGreedilyReproducesThePolicysGreedyEpisode) {
  const CostTable costs(doppler::testing::readTestGraph("ffnn_60nodes.txt"), DeviceSet::uniform(3));
  const Policy policy(PolicyConfig{32, 3, 16, 32, 16}, 5);
  const GraphFeatures features = graphFeatures(costs);
  const PolicyScores scores = policy.scores(features);
  Episode episode(costs, features, &scores);
  std::vector<float> sel, plc(costs.devices());
  std::vector<double> est(costs.devices());
  double makespan = 0;
  while (!episode.done()) {
    episode.selProbabilities(sel);
    ASSERT_EQ(sel.size(), episode.ready().size());
    const int node = episode.ready()[mostProbable(sel)];
    episode.deviceProbabilities(node, est.data(), nullptr, plc.data());
    episode.placeNode(node, mostProbable(plc));
    EXPECT_GE(episode.partialMakespan(), makespan);
    makespan = episode.partialMakespan();
  }
  const EpisodeResult greedy = policy.run(costs, features);
  EXPECT_EQ(episode.steps(), costs.nodes());
  EXPECT_EQ(episode.order(), greedy.order);
  EXPECT_EQ(episode.assignment(), greedy.assignment);
  EXPECT_DOUBLE_EQ(episode.partialMakespan(), greedy.planned_makespan_us);
}

TEST(Episode, TheHeuristicNeedsNoNetworkAndReproducesCriticalPath) {
  const CostTable costs(doppler::testing::readTestGraph("chain_mm_40nodes.txt"),
                        DeviceSet::uniform(4));
  const GraphFeatures features = graphFeatures(costs);
  Episode episode(costs, features, nullptr, Component::Heuristic, Component::Heuristic);
  std::vector<float> sel, plc(costs.devices());
  std::vector<double> est(costs.devices());
  while (!episode.done()) {
    episode.selProbabilities(sel);
    const int pos = episode.teacherNodePosition();
    EXPECT_EQ(sel[pos], 1.0f);
    const int node = episode.ready()[pos];
    episode.deviceProbabilities(node, est.data(), nullptr, plc.data());
    const int device = episode.teacherDevice(node, est.data());
    EXPECT_EQ(plc[device], 1.0f);
    episode.place(pos, device, est[device]);
  }
  const Placement cp = listSchedule(costs, ListConfig{});
  EXPECT_EQ(episode.assignment(), cp.assignment);
  EXPECT_EQ(episode.order(), cp.order);
  EXPECT_DOUBLE_EQ(episode.partialMakespan(), cp.planned->makespan_us);
  // A learned component needs the network's scores.
  EXPECT_THROW(Episode(costs, features, nullptr), std::invalid_argument);
}

TEST(Episode, AnyReadyNodeCanBePlacedOnAnyDevice) {
  const CostTable costs(doppler::testing::readTestGraph("chain_mm_40nodes.txt"),
                        DeviceSet::uniform(2));
  const GraphFeatures features = graphFeatures(costs);
  Episode episode(costs, features, nullptr, Component::Heuristic, Component::Heuristic);
  int notReady = -1;
  for (int v = 0; v < costs.nodes() && notReady < 0; ++v)
    if (std::find(episode.ready().begin(), episode.ready().end(), v) == episode.ready().end())
      notReady = v;
  ASSERT_GE(notReady, 0);
  EXPECT_THROW(episode.placeNode(notReady, 0), std::invalid_argument);
  EXPECT_THROW(episode.placeNode(episode.ready().back(), 2), std::invalid_argument);
  // Everything on device 1, last ready node first: a valid plan with no transfers.
  while (!episode.done()) episode.placeNode(episode.ready().back(), 1);
  EXPECT_TRUE(std::all_of(episode.assignment().begin(), episode.assignment().end(),
                          [](int d) { return d == 1; }));
  EXPECT_EQ(episode.plan().deviceFree(0), 0.0);
  EXPECT_DOUBLE_EQ(episode.partialMakespan(), episode.plan().load(1));
}

}  // namespace

// The path features grow as nodes times depth; a caller with a budget is told before they are
// built (training a 20,000-node transformer would have gathered 10^8 of them, about 50 GB).
TEST(GraphFeaturesPaths, TheirPairsAreCountedBeforeTheyAreBuilt) {
  const CostTable costs(doppler::testing::readTestGraph("ffnn_60nodes.txt"), DeviceSet::uniform(3));
  const GraphFeatures f = graphFeatures(costs);
  const int64_t pairs = static_cast<int64_t>(f.bpath_node.size() + f.tpath_node.size());
  EXPECT_EQ(pathPairCount(costs), pairs);
  EXPECT_NO_THROW(graphFeatures(costs, "ffnn", pairs));
  try {
    graphFeatures(costs, "ffnn", pairs - 1);
    FAIL() << "accepted more path pairs than allowed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "ffnn");
    EXPECT_NE(std::string(e.what()).find(std::to_string(pairs)), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("coarsen"), std::string::npos);
  }
}

}  // namespace doppler::policy

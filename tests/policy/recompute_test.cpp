// The batched recompute (autograd, used by training) reproduces exactly the probabilities the
// rollout decided with (plain C++), step by step, for SEL and PLC, with and without masks.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph/generators.h"
#include "core/policy/policy_impl.h"
#include "core/sim/cost_table.h"
#include "tests/support/data.h"

namespace doppler::policy {
namespace {

void checkEpisode(const CostTable& costs, const std::vector<uint8_t>& allowed, bool teacher,
                  int deviceFeatures = kDeviceFeaturesV2) {
  PolicyConfig config{32, 3, 16, 32, 16};
  config.device_features = deviceFeatures;
  Policy pol(config, 7);
  const GraphFeatures f = graphFeatures(costs);
  const GraphTensors g = toTensors(f);
  const Prepared p = prepare(pol.impl().net, g, true);
  RolloutOptions o;
  o.episode.mode = DecisionMode::Sample;
  o.episode.seed = 3;
  o.episode.allowed = allowed;
  o.keep_batch = true;
  o.teacher_targets = teacher;
  const Rollout r = rollout(p, costs, f, o);
  const StepTerms s = recompute(pol.impl().net, p, r, costs.devices(), teacher);
  const int T = costs.nodes(), D = costs.devices();
  ASSERT_EQ(static_cast<int>(r.result.steps.size()), T);
  auto selLogp = s.sel_logp.accessor<float, 1>();
  auto plcLogp = s.plc_log_probs.accessor<float, 2>();
  for (int t = 0; t < T; ++t) {
    const EpisodeStep& st = r.result.steps[t];
    float pSel = 0;
    for (size_t j = 0; j < st.candidates.size(); ++j)
      if (st.candidates[j] == st.node) pSel = st.sel_probs[j];
    EXPECT_NEAR(std::exp(selLogp[t]), pSel, 1e-4) << "step " << t;
    for (int d = 0; d < D; ++d)
      EXPECT_NEAR(std::exp(plcLogp[t][d]), st.plc_probs[d], 1e-4)
          << "step " << t << " device " << d;
  }
  // Gradients flow from both halves into the network.
  (s.sel_logp.sum() + s.plc_logp.sum()).backward();
  for (const auto& np : pol.impl().net->named_parameters())
    EXPECT_TRUE(np.value().grad().defined() && np.value().grad().abs().sum().item<double>() > 0)
        << np.key();
}

TEST(Recompute, MatchesRolloutProbabilities) {
  DataflowGraph graph = doppler::testing::readTestGraph("ffnn_60nodes.txt");
  CostTable costs(graph, DeviceSet::uniform(4));
  checkEpisode(costs, {}, false);
  checkEpisode(costs, {}, true);
}

// Architecture 3 reads the two join look-ahead features too, in both paths.
TEST(Recompute, MatchesWithTheJoinLookahead) {
  DataflowGraph graph = doppler::testing::readTestGraph("ffnn_60nodes.txt");
  CostTable costs(graph, DeviceSet::uniform(4));
  checkEpisode(costs, {}, true, kDeviceFeatures);
}

TEST(Recompute, MatchesWithDeviceMask) {
  DataflowGraph graph = doppler::testing::readTestGraph("chain_mm_40nodes.txt");
  CostTable costs(graph, DeviceSet::uniform(3));
  std::vector<uint8_t> allowed(static_cast<size_t>(costs.nodes()) * 3, 1);
  for (int v = 0; v < costs.nodes(); v += 2) allowed[static_cast<size_t>(v) * 3 + 1] = 0;
  checkEpisode(costs, allowed, false);
}

// Stage II's guided episodes: without deviation they reproduce the guide exactly; with
// deviation 1 every node leaves its guide device, never for a masked one; recompute scores the
// decisions actually taken.
TEST(Recompute, GuidedEpisodesFollowTheirGuide) {
  const CostTable costs(doppler::testing::readTestGraph("chain_mm_40nodes.txt"),
                        DeviceSet::uniform(4));
  const int n = costs.nodes(), D = costs.devices();
  Policy pol(PolicyConfig{32, 3, 16, 32, 16}, 7);
  const GraphFeatures f = graphFeatures(costs);
  const GraphTensors g = toTensors(f);
  const Prepared p = prepare(pol.impl().net, g, false);
  Assignment guide(n);
  for (int v = 0; v < n; ++v) guide[v] = (v * 7 + 3) % D;
  RolloutOptions o;
  o.episode.mode = DecisionMode::Sample;
  o.episode.seed = 11;
  o.guide = &guide;
  o.guide_deviate = 0;
  EXPECT_EQ(rollout(p, costs, f, o).result.assignment, guide);
  o.guide_deviate = 1;
  std::vector<uint8_t> allowed(static_cast<size_t>(n) * D, 1);
  for (int v = 0; v < n; ++v) allowed[static_cast<size_t>(v) * D + (guide[v] + 1) % D] = 0;
  o.episode.allowed = allowed;
  o.keep_batch = true;
  const Rollout r = rollout(p, costs, f, o);
  for (int v = 0; v < n; ++v) {
    EXPECT_NE(r.result.assignment[v], guide[v]) << "node " << v;
    EXPECT_NE(r.result.assignment[v], (guide[v] + 1) % D)
        << "node " << v << " took a masked device";
  }
  const Prepared pg = prepare(pol.impl().net, g, true);
  const StepTerms s = recompute(pol.impl().net, pg, r, D, false);
  auto plc = s.plc_log_probs.accessor<float, 2>();
  auto logp = s.plc_logp.accessor<float, 1>();
  for (int t = 0; t < n; ++t)
    EXPECT_FLOAT_EQ(logp[t], plc[t][r.result.assignment[r.result.order[t]]]) << "step " << t;
}

// A placement (no gradients) sums the path members' embeddings a chunk at a time; training
// gathers them at once. The scores must be the same bit for bit, or a trained policy would place
// differently from how it was judged in training.
TEST(Recompute, PlacementScoresEqualTrainingScoresOnAGraphOfManyPathMembers) {
  const DataflowGraph graph = generateGraph("llama-layer");
  const CostTable costs(graph, DeviceSet::uniform(4));
  const GraphFeatures f = graphFeatures(costs);
  ASSERT_GT(f.bpath_member.size(), 1024u) << "too few members for two chunks of 1024";
  ASSERT_GT(f.tpath_member.size(), 1024u);
  Policy pol(PolicyConfig{32, 3, 16, 32, 16}, 5);
  const GraphTensors g = toTensors(f);
  const Prepared placing = prepare(pol.impl().net, g, false);
  const Prepared training = prepare(pol.impl().net, g, true);
  EXPECT_EQ(placing.sel, training.sel);
  EXPECT_EQ(placing.node, training.node);
  EXPECT_EQ(placing.member, training.member);
}

}  // namespace
}  // namespace doppler::policy

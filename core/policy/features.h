#pragma once
// The networks' inputs as plain data (no LibTorch): static per-graph features, computed once per
// (graph, device set). The per-step state of an episode is in episode_state.h.
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/cost_table.h"

namespace doppler::policy {

// Node features: compute, bottom level, top level, summed input and output communication, each
// z-scored over the graph and also as log1p(x / mean x) (z-scores squash small nodes together
// when a few huge ones dominate; the log ratio keeps them apart); then the node's position in the
// graph's order (index scaled to [-1, 1], and sin/cos codes of the index) to tell apart nodes
// whose structure is identical.
constexpr int kNodeFeatures = 14;
// Message features on the bidirected graph: z-scored and log-ratio communication, forward,
// backward.
constexpr int kEdgeFeatures = 4;
// Per-device features PLC sees for the node being placed (see EpisodeState::deviceFeatures in
// episode_state.h). Every feature this build computes, the stride of every per-device feature
// row; a policy reads the first PolicyConfig::device_features of them: architecture 2 the first
// 16, architecture 3 also the two join look-ahead features.
constexpr int kDeviceFeatures = 18;
constexpr int kDeviceFeaturesV2 = 16;

struct GraphFeatures {
  int nodes = 0, devices = 0;
  std::vector<float> x;  // nodes x kNodeFeatures, row-major
  // Messages of the bidirected graph: each edge u->v gives u->v (forward) and v->u (backward).
  std::vector<int64_t> msg_src, msg_dst, msg_dir;
  std::vector<float> msg_x;    // messages x kEdgeFeatures
  std::vector<float> in_norm;  // per node: 1 / sqrt(max(1, messages into it))
  // Longest path to an exit (b-path) and from an entry (t-path) of every node, the node itself
  // included, as (node, member) pairs; path_norm scales their summed embeddings.
  std::vector<int64_t> bpath_node, bpath_member, tpath_node, tpath_member;
  float path_norm = 1;
  float member_norm = 1;       // scales a device's summed embeddings: devices / nodes
  std::vector<double> bottom;  // the teacher's priority (bottom level, unit weights)
  double time_scale = 1;       // microseconds; PLC's times are divided by it (lower bound)
  std::string fingerprint;     // identifies the graph and device set (see fingerprint())
};

// Identifies a (graph, device set) pair by its costs: "name:76n/80e/4d:<64-bit hash>".
std::string fingerprint(const CostTable& costs, const std::string& name);
// The most (node, member) path pairs placing with the policy gathers: 32 bytes each (the index
// vectors and their tensor copies) within 4 GiB or a quarter of the machine's memory.
int64_t placementPathPairs();
// Throws InputError (where = "graph") when the b- and t-paths of all nodes hold more (node,
// member) pairs than `maxPathPairs`, before allocating them. They grow as nodes times depth: a
// 20,000-node transformer has about 10^8, which training would gather into tens of GB, and a
// 1,000,000-node chain 10^12, which no machine holds. The default, placementPathPairs(), is what
// placing needs (the pairs and their tensor copies); training passes its own, smaller limit.
GraphFeatures graphFeatures(const CostTable& costs, const std::string& name = {},
                            int64_t maxPathPairs = placementPathPairs());
// The (node, member) pairs graphFeatures' b- and t-paths hold, without building them.
int64_t pathPairCount(const CostTable& costs);

// Three-way comparison with a relative tolerance of 1e-9 (as the list schedulers use).
int compareNear(double a, double b);

}  // namespace doppler::policy

#pragma once
// The networks' inputs as plain data (no LibTorch): static per-graph features, computed once per
// (graph, device set), and the per-step state of an episode (the partial plan, the ready set, the
// per-device features PLC sees and the critical-path teacher's choices).
#include <cstdint>
#include <string>
#include <vector>

#include "core/heuristics/list_scheduler.h"
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
// Per-device features PLC sees for the node being placed (see EpisodeState::deviceFeatures).
constexpr int kDeviceFeatures = 16;

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
GraphFeatures graphFeatures(const CostTable& costs, const std::string& name = {});

// The state of one episode: the plan built so far (reference cost model: a node starts on its
// device after the device's last planned node and after every input has arrived) and the ready set
// (nodes whose predecessors are all assigned).
class EpisodeState {
 public:
  EpisodeState(const CostTable& costs, const GraphFeatures& gf);

  const std::vector<int>& ready() const { return ready_; }
  bool done() const { return plan_.placedCount() == costs_.nodes(); }
  const PlanBuilder& plan() const { return plan_; }

  // Earliest start of v on every device, into est (size devices).
  void earliestStarts(int v, double* est) const;
  // PLC's features of node v on every device into out (devices x kDeviceFeatures), given the
  // earliest starts from earliestStarts: work already planned on the device; v's predecessors'
  // work on it; their earliest start and latest finish there; v's earliest start there; that
  // start and v's finish relative to the best device; the input transfer v would wait for there;
  // when the device frees up; its load relative to the mean; the share of v's input data already
  // there; the same on every device so that the device network can weigh the rest by them,
  // v's compute, its output communication and its bottom level; and the data that v's placed
  // siblings (other inputs of v's successors) send to those successors from the device, absolute
  // and as a share. Times are divided by time_scale.
  void deviceFeatures(int v, const double* est, float* out) const;

  // The critical-path teacher. Nodes: every ready node whose bottom level is the maximum within
  // 1e-9 relative (positions in ready()). Devices: every allowed device whose earliest start is
  // the minimum within 1e-9 relative (allowed may be null).
  void teacherNodes(std::vector<int>& positions) const;
  void teacherDevices(const double* est, const uint8_t* allowed, std::vector<int>& devices) const;
  // The teacher's single choices, exactly as the `critical-path` method decides (ties by lowest
  // node index; devices by earliest start, then earliest finish, then lowest index).
  int teacherNodePosition() const;
  int teacherDevice(int v, const double* est, const uint8_t* allowed) const;

  // Assigns the node at position `pos` of ready() to `dev`, starting at its earliest start.
  void place(int pos, int dev, double est);

 private:
  const CostTable& costs_;
  const GraphFeatures& gf_;
  PlanBuilder plan_;
  std::vector<int> pending_, ready_;
  mutable std::vector<double> sibling_;  // deviceFeatures' per-device scratch
};

// Three-way comparison with a relative tolerance of 1e-9 (as the list schedulers use).
int compareNear(double a, double b);

}  // namespace doppler::policy

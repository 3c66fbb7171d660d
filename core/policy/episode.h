#pragma once
// One episode of the dual policy, decided step by step in plain C++ (no LibTorch): the ready set,
// SEL's distribution over it, PLC's distribution over the devices for a chosen node, placing the
// node, and the partial schedule. Training rollouts (rollout.h) and `doppler eval` drive it in a
// loop; a decision stepper can drive it one decision at a time, overriding any of them.
//
// The network runs once per episode and leaves its outputs as PolicyScores (plain floats, from
// LoadedPolicy::scores in core/train/torch_module.h, or Policy::scores); everything an episode
// computes per step is here.
#include <cstdint>
#include <vector>

#include "core/policy/episode_state.h"
#include "core/policy/features.h"
#include "core/policy/policy_config.h"
#include "core/sim/cost_table.h"

namespace doppler::policy {

constexpr float kLeakySlope = 0.1f;  // LeakyReLU slope of the SEL and PLC decoders

// The network's outputs for one graph and device set. SEL's scores depend only on the graph, so
// they are computed for every node at once; PLC's per-step input (the device features) goes
// through its device network here, on top of the node and member terms.
struct PolicyScores {
  std::vector<float> sel;     // SEL's logit of every node
  std::vector<float> node;    // nodes x hh: PLC's node term (plc1 pre-activation, bias included)
  std::vector<float> member;  // nodes x hh: a node's contribution to its device's summed embedding
  std::vector<float> wy1, by1;  // PLC's device-feature layer: dh x df, dh
  std::vector<float> wy;        // hh x dh: plc1's columns for the device embedding
  std::vector<float> w2;        // hh: plc2's weights
  int hh = 0, dh = 0;           // head_hidden, device_hidden
  int df = kDeviceFeatures;     // device features read: the first df of each kDeviceFeatures
};

class Episode {
 public:
  // `scores` may be null only when both components follow the heuristic. `allowed`: an optional
  // nodes x devices mask (see EpisodeOptions; InputError when its size is wrong). The costs,
  // features, scores and mask must outlive the episode.
  Episode(const CostTable& costs, const GraphFeatures& features, const PolicyScores* scores,
          Component sel = Component::Learned, Component plc = Component::Learned,
          const std::vector<uint8_t>* allowed = nullptr);

  bool done() const { return state_.done(); }
  int steps() const { return static_cast<int>(order_.size()); }  // decisions taken
  // The candidates: nodes whose predecessors are all placed. Positions in this vector are what
  // selProbabilities, teacherNodePosition and place(pos, ...) refer to.
  const std::vector<int>& ready() const { return state_.ready(); }

  // SEL's probability of each ready node, into probs (size ready()); the heuristic puts 1 on its
  // pick.
  void selProbabilities(std::vector<float>& probs) const;
  // The critical-path order's pick (position in ready()).
  int teacherNodePosition() const { return state_.teacherNodePosition(); }

  // For ready node v: its earliest start on every device into est (size devices), and PLC's
  // probability of every device into probs (size devices; masked devices 0; the heuristic puts 1
  // on its earliest-start device). `features` (devices x kDeviceFeatures) receives PLC's device
  // features when PLC is learned; may be null. InputError if v has no allowed device.
  void deviceProbabilities(int v, double* est, float* features, float* probs) const;
  // The heuristic's device for v given its earliest starts (earliest start, then finish).
  int teacherDevice(int v, const double* est) const {
    return state_.teacherDevice(v, est, allowedFor(v));
  }
  // The mask row of node v, or null when every device is allowed.
  const uint8_t* allowedFor(int v) const;

  // Places the node at position `pos` of ready() on `device`, starting at `est` (its earliest
  // start there, from deviceProbabilities).
  void place(int pos, int device, double est);
  // The same for a stepper: `node` must be ready (std::invalid_argument otherwise), placed at its
  // earliest start on `device`.
  void placeNode(int node, int device);

  // The plan so far: per node device, start and finish (reference cost model), per device load.
  const PlanBuilder& plan() const { return state_.plan(); }
  const EpisodeState& state() const { return state_; }
  // The finish of the last planned node (0 before the first decision).
  double partialMakespan() const;
  const Assignment& assignment() const { return assignment_; }  // -1 for nodes not yet placed
  const std::vector<int>& order() const { return order_; }

 private:
  const CostTable& costs_;
  const PolicyScores* scores_;
  const std::vector<uint8_t>* allowed_;
  bool selLearned_, plcLearned_;
  EpisodeState state_;
  std::vector<float> sums_;  // devices x hh: the member terms of the nodes placed on each device
  mutable std::vector<float> y1_, features_;  // deviceProbabilities' scratch
  Assignment assignment_;
  std::vector<int> order_;
};

}  // namespace doppler::policy

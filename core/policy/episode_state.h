#pragma once
// The state of one episode as plain data (no LibTorch): the partial plan, the ready set, the
// per-device features PLC sees and the critical-path teacher's choices.
#include <cstdint>
#include <vector>

#include "core/heuristics/list_scheduler.h"
#include "core/policy/features.h"
#include "core/sim/cost_table.h"

namespace doppler::policy {

// The state of one episode: the plan built so far (reference cost model: a node starts on its
// device after the device's last planned node and after every input has arrived) and the ready set
// (nodes whose predecessors are all assigned).
class EpisodeState {
 public:
  // `features`: how many of the kDeviceFeatures deviceFeatures computes (the rest are left 0);
  // a policy of architecture 2 reads only the first 16, and the look-ahead is the costly part.
  EpisodeState(const CostTable& costs, const GraphFeatures& gf, int features = kDeviceFeatures);

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
  // and as a share. Then the join look-ahead (architecture 3): when v's data could be together
  // with the placed inputs of each of v's successors, if v ran on the device (its finish, or the
  // earliest over every device of the latest arrival there, whichever is later; the latest over
  // the successors), relative to the best device and to v's finish there. It is what weighs
  // starting v sooner against a transfer that the successor will wait for. Times are divided by
  // time_scale.
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
  int features_;
  // deviceFeatures' per-device scratch: siblings' data, the join look-ahead
  // (PlanBuilder::joinTimes) and its scratch.
  mutable std::vector<double> sibling_, join_, arrival_;
};

}  // namespace doppler::policy

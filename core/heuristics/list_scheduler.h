#pragma once
// A configurable list scheduler. Every classic variant the project ships (Doppler's CRIT.PATH
// teacher, HEFT, CPOP, ETF) is one ListConfig; the methods expose its knobs as ParamSpecs.
//
// The schedule a list scheduler plans uses the reference cost model: transfers never contend, a
// node on device d may start once d is free in the plan and every input has arrived (producer's
// planned finish + CostTable::transfer(e, producer's device, d)).
#include <cstdint>
#include <string>
#include <vector>

#include "core/heuristics/decision_trace.h"
#include "core/heuristics/method.h"
#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"

namespace doppler {

// Longest path from each node to an exit, counting node weights w_compute x meanCompute and edge
// weights w_comm x meanTransfer (the node's own compute included): Doppler's b-level, HEFT's
// upward rank.
std::vector<double> bottomLevels(const CostTable& costs, double w_compute = 1, double w_comm = 1);
// Longest path from an entry to each node, the node's own compute excluded (HEFT's downward rank,
// Doppler's t-level).
std::vector<double> topLevels(const CostTable& costs, double w_compute = 1, double w_comm = 1);

// A partial schedule under the reference cost model, built node by node. Every predecessor of a
// node must be placed before the node is.
class PlanBuilder {
 public:
  explicit PlanBuilder(const CostTable& costs);

  const CostTable& costs() const { return costs_; }
  bool placed(int v) const { return device_[v] >= 0; }
  int device(int v) const { return device_[v]; }
  double start(int v) const { return start_[v]; }
  double finish(int v) const { return finish_[v]; }
  // Finish of the last node planned on `dev` (0 if none).
  double deviceFree(int dev) const { return free_[dev]; }
  // Total compute planned on `dev`.
  double load(int dev) const { return load_[dev]; }
  const std::vector<int>& order() const { return order_; }
  int placedCount() const { return static_cast<int>(order_.size()); }

  // When every input of v has arrived on `dev` (0 for a node without inputs).
  double arrival(int v, int dev) const;
  // Earliest start of v on `dev`: without insertion after the device's last planned node; with
  // insertion in the first idle gap (at or after the arrival) long enough for v's compute.
  double earliestStart(int v, int dev, bool insertion) const {
    return earliestStartAfter(arrival(v, dev), v, dev, insertion);
  }
  double earliestStartAfter(double ready, int v, int dev, bool insertion) const;
  // The join look-ahead of unplaced v, given its start est[d] on every device d: when v's output
  // and the placed inputs of each of its successors could first all be on one device, if v ran on
  // d. For a successor s, the minimum over devices x of the latest arrival at x (v's finish on d
  // plus the transfer to x; each placed input's finish plus its transfer to x); into out[d], the
  // latest of these over the successors, and at least v's finish on d (a successor none of whose
  // other inputs is placed waits for v alone). Splitting the inputs of a join across devices shows
  // here as a later time. `scratch` is resized to the device count.
  void joinTimes(int v, const double* est, double* out, std::vector<double>& scratch) const;
  // Plans v on `dev` at `start` (which must not overlap another planned node on dev).
  void place(int v, int dev, double start);

  Assignment assignment() const { return device_; }
  // Nodes indexed by node, transfers for cross-device edges in edge order, the makespan.
  Schedule schedule() const;

 private:
  struct Slot {
    double start, finish;
  };
  const CostTable& costs_;
  std::vector<int> device_;
  std::vector<double> start_, finish_, free_, load_;
  std::vector<std::vector<Slot>> slots_;  // per device, by start time
  std::vector<int> order_;
};

struct ListConfig {
  enum class Selection {
    ReadyPriority,  // the ready node of highest priority, then its device by device_rule
    EarliestStart,  // ETF: the (ready node, device) pair that can start earliest
  };
  // EarliestJoin: the least PlanBuilder::joinTimes (where the node's output could soonest meet
  // its successors' placed inputs), ties by earliest finish; without placed siblings it is the
  // earliest finish.
  enum class DeviceRule { EarliestStart, EarliestFinish, LeastLoaded, EarliestJoin };
  enum class TieBreak { Index, Random, MostSuccessors };

  Selection selection = Selection::ReadyPriority;
  DeviceRule device_rule = DeviceRule::EarliestStart;
  TieBreak tie_break = TieBreak::Index;
  bool insertion = false;
  // CPOP: priority is upward + downward rank and the critical path goes to one processor.
  bool cpop = false;
  double w_compute = 1, w_comm = 1;  // bottom-level weights
  uint64_t seed = 1;                 // for TieBreak::Random
  // A priority per node from elsewhere (the general policy's SEL logits), used instead of the
  // bottom levels (ReadyPriority only; not with cpop), described in decision traces by
  // priority_name. Empty: the bottom levels.
  std::vector<double> priority = {};
  std::string priority_name = {};
};

// Runs the list scheduler: assignment, planned schedule (Placement::planned) and the order nodes
// were assigned in (Placement::order). `control` (optional) records the decisions
// (Placement::decisions) and overrides some of them (decision_trace.h).
Placement listSchedule(const CostTable& costs, const ListConfig& config,
                       const DecisionControl* control = nullptr);

ListConfig::TieBreak parseTieBreak(const std::string& s);
ListConfig::DeviceRule parseDeviceRule(const std::string& s);

}  // namespace doppler

#pragma once
// The decisions of a sequential placement method, one per node: which ready node it picked and
// which device it put that node on, with the scores that led there. The list schedulers
// (critical-path, HEFT, CPOP, ETF) and the dual policy record the same structure, so the CLI's
// `--decisions`, the run store and the studio's decision stepper treat them alike.
//
// Overrides replay a method with some decisions changed: the method runs as usual, except at an
// overridden step, where it takes the given node (which must be ready then) or the given device,
// and then goes on by its own rules from the state that choice left.
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler {

struct CandidateScore {
  int node = -1;
  double score = 0;  // the method's priority (or SEL's probability); see DecisionTrace
};

struct DeviceScore {
  int device = -1;
  double score = 0;  // the method's device key (or PLC's probability); see DecisionTrace
  double est_start_us = 0, est_finish_us = 0;  // where the node would run in the plan so far
  // The join look-ahead (PlanBuilder::joinTimes): when the node's output and its successors'
  // placed inputs could first be together, if it ran here; at least est_finish_us. Negative when
  // not recorded.
  double join_us = -1;
};

struct DecisionStep {
  std::vector<CandidateScore> ready;  // the ready set, in the method's own order
  int node = -1;
  std::vector<DeviceScore> devices;  // every device, by index
  int device = -1;
  double partial_makespan_us = 0;  // the plan's makespan once this node is placed
  bool node_overridden = false, device_overridden = false;
};

struct DecisionTrace {
  // What the scores mean, for a reader: e.g. "upward rank (us)" and whether larger is preferred.
  std::string node_score, device_score;
  bool node_higher_better = true, device_higher_better = false;
  // How equal scores are decided, for a reader: "lower node index first".
  std::string node_tie_break, device_tie_break;
  // False when the picks carry no scores (a recorded order replayed): views say so and hide them.
  bool node_scored = true;
  std::vector<DecisionStep> steps;  // step k decides the k-th node placed
};

// One changed choice. Steps count from 0. Exactly one of node and device is set (>= 0); a step
// may carry one of each.
struct DecisionOverride {
  int step = 0;
  int node = -1;    // node index
  int device = -1;  // device index
  bool operator==(const DecisionOverride&) const = default;
};

// What a caller wants from a sequential method beyond its placement.
struct DecisionControl {
  bool record = false;  // fill Placement::decisions
  std::vector<DecisionOverride> overrides;
  // Node ids for error messages (optional; indices are printed without it).
  const DataflowGraph* graph = nullptr;
};

// Applies a DecisionControl inside a method's loop: validates the overrides up front (steps and
// devices in range, no step overridden twice in the same way), answers "is step k overridden?",
// and collects the trace. Errors are InputErrors on the field "--override STEP:...".
class DecisionDriver {
 public:
  // `control` may be null (nothing recorded, nothing overridden).
  DecisionDriver(const DecisionControl* control, int nodes, int devices);

  bool recording() const { return record_; }
  bool active() const { return record_ || !byStep_.empty(); }
  // The position in `ready` of the node forced at `step`, or -1 when the step keeps the method's
  // choice. InputError when the forced node is not in `ready`.
  int forcedNodePosition(int step, const std::vector<int>& ready) const;
  // The device forced at `step`, or -1.
  int forcedDevice(int step) const;
  void record(DecisionStep d) { trace_.steps.push_back(std::move(d)); }
  DecisionTrace& trace() { return trace_; }
  DecisionTrace take() { return std::move(trace_); }

 private:
  std::string nodeName(int v) const;
  const DecisionControl* control_;
  bool record_ = false;
  std::vector<int> nodeAt_, deviceAt_;  // per step, -1 when not overridden
  std::vector<int> byStep_;             // the overridden steps
  DecisionTrace trace_;
};

}  // namespace doppler

#pragma once
// The one place-and-simulate pipeline: what `doppler place`, `doppler simulate`, the demo, the
// benchmarks and the studio's tuner all run, so their numbers agree by construction. A method
// places the graph (or a given assignment is taken as is), the assignment is checked, the
// simulator judges it, and the lower bound puts the makespan in proportion.
#include <cstdint>
#include <optional>
#include <string>

#include "core/common/cancel_token.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/heuristics/method.h"
#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"
#include "core/sim/simulator.h"

namespace doppler {

// Everything a user sets for one placement, apart from the inputs.
struct PlaceSettings {
  std::string method = "critical-path";
  ParamValues params;  // only the values that differ from the method's defaults need be here
  CostModel cost_model = CostModel::Reference;
  double noise = 0;    // log-normal sigma on every simulated duration
  uint64_t seed = 1;   // randomised methods, tie-breaking and noise
  long budget = 5000;  // simulator evaluations, for search methods
  // How each device picks its next node (docs/simulator.md#disciplines); priority and sequence
  // follow the placement's execution order (PlaceOutcome::execution_order).
  Discipline discipline = Discipline::Fifo;
  bool operator==(const PlaceSettings&) const = default;

  SimOptions simOptions() const;
};

struct PlaceRequest {
  const DataflowGraph* graph = nullptr;  // required
  const DeviceSet* devices = nullptr;    // required
  // Optional: the costs of `graph` on `devices`, for callers that place the same inputs many
  // times; built here when null.
  const CostTable* costs = nullptr;
  PlaceSettings settings;
  ProgressFn progress;  // search methods report through it, at most ~20 times a second
  CancelToken cancel;   // a cancelled search stops and returns the best assignment it has seen
  // Simulate this assignment instead of running settings.method (`doppler simulate`); then the
  // method, its parameters and the budget are not used.
  std::optional<Assignment> given;
  // The order that came with `given` (from its file), for the priority and sequence disciplines.
  // Under those, a given assignment without an order is an InputError (field "order").
  std::vector<int> given_order;
  // Sequential methods (Method::sequential): record the decisions into placement.decisions, and
  // replay with these choices changed (decision_trace.h). InputError for other methods.
  bool record_decisions = false;
  std::vector<DecisionOverride> overrides;
};

// Where PlaceOutcome::execution_order came from.
enum class OrderSource {
  Planned,      // the method's planned schedule: its nodes by planned start (executionOrder)
  Method,       // the method's own order (Placement::order), it planned no schedule
  Given,        // the order that came with a given assignment
  Topological,  // none of these: the topological order with ties by node index
};
const char* toString(OrderSource s);  // "planned", "method", "given", "topological"

struct PlaceOutcome {
  ParamValues resolved_params;  // every parameter of the method, defaults filled in
  Placement placement;          // assignment, planned schedule, order, evaluations, cancelled
  SimResult sim;  // the assignment under settings' cost model, noise, seed and discipline
  // The order the priority and sequence disciplines follow (computed under fifo too, so a
  // placement file can carry it), and where it came from.
  std::vector<int> execution_order;
  OrderSource order_source = OrderSource::Topological;
  double lower_bound_us = 0;
  double compute_ms = 0;  // wall time of the whole call

  double makespan() const { return sim.schedule.makespan_us; }
};

// The checks that need no inputs: the method exists, its parameters are valid, the budget is at
// least 1. Returns the resolved parameters. Throws InputError naming the field ("--method",
// "--param NAME", "--budget"), so a caller can check settings before loading large inputs.
Params checkSettings(const PlaceSettings& settings);

// Checks the settings and that the graph fits the device set (InputError), places, checks the
// assignment and its order (under sequence: that no device waits forever), simulates. A cancelled
// search still yields a full outcome, its best assignment simulated, with placement.cancelled set.
PlaceOutcome placeAndSimulate(const PlaceRequest& request);

// The methods that can record and replay their decisions, comma-separated (for messages).
std::string sequentialMethodNames();
// InputError ("--decisions" or "--override") when decisions are asked of a method that does not
// place node by node.
void checkDecisionsSupported(const Method& method, bool record, bool overrides);

}  // namespace doppler

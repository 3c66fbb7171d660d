#include "core/pipeline/place_and_simulate.h"

#include <chrono>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/sim/lower_bound.h"

namespace doppler {

SimOptions PlaceSettings::simOptions() const {
  SimOptions options;
  options.model = cost_model;
  options.noise = noise;
  options.seed = seed;
  options.discipline = discipline;
  return options;
}

const char* toString(OrderSource s) {
  switch (s) {
    case OrderSource::Planned:
      return "planned";
    case OrderSource::Method:
      return "method";
    case OrderSource::Given:
      return "given";
    case OrderSource::Topological:
      return "topological";
  }
  return "topological";
}

Params checkSettings(const PlaceSettings& settings) {
  const Method& method = findMethod(settings.method);
  Params params(method.params(), settings.params);
  if (settings.budget < 1) throw InputError("", "--budget", "must be at least 1");
  return params;
}

namespace {

// The execution order: the given one, the plan's, the method's, or the topological order; checked
// to be a permutation and, under sequence, to let every device run all its nodes.
void chooseOrder(const PlaceRequest& request, const DataflowGraph& graph, const CostTable& costs,
                 PlaceOutcome& out) {
  const Discipline discipline = request.settings.discipline;
  if (request.given) {
    if (!request.given_order.empty()) {
      out.execution_order = request.given_order;
      out.order_source = OrderSource::Given;
    } else if (usesOrder(discipline)) {
      throw InputError("", "order",
                       std::string("the ") + toString(discipline) +
                           " discipline needs an order, and the assignment has none (add "
                           "\"order\": [node ids], as `doppler place --json` writes)");
    }
  } else {
    out.execution_order = executionOrder(out.placement);
    out.order_source = out.placement.planned ? OrderSource::Planned : OrderSource::Method;
  }
  if (out.execution_order.empty()) {
    out.execution_order = costs.topoOrder();
    out.order_source = OrderSource::Topological;
  }
  validateOrder(out.execution_order, costs.nodes());
  if (discipline == Discipline::Sequence) {
    const int stuck = findSequenceDeadlock(costs, out.placement.assignment, out.execution_order);
    if (stuck >= 0)
      throw InputError("", "order",
                       "under the sequence discipline device " +
                           std::to_string(out.placement.assignment[stuck]) +
                           " waits forever for node '" + graph.node(stuck).id +
                           "': one of its inputs can only run after it (list every node after "
                           "its inputs)");
  }
}

}  // namespace

PlaceOutcome placeAndSimulate(const PlaceRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  if (!request.graph || !request.devices)
    throw std::invalid_argument("placeAndSimulate: the request needs a graph and a device set");
  const DataflowGraph& graph = *request.graph;
  const PlaceSettings& settings = request.settings;
  std::optional<Params> params;
  if (!request.given) params.emplace(checkSettings(settings));
  graph.checkDeviceCount(request.devices->size());

  std::optional<CostTable> built;
  if (!request.costs) built.emplace(graph, *request.devices);
  const CostTable& costs = request.costs ? *request.costs : *built;
  if (costs.nodes() != graph.nodeCount() || costs.devices() != request.devices->size())
    throw std::invalid_argument(
        "placeAndSimulate: the cost table is not of this graph and device set");

  const SimOptions sim = settings.simOptions();
  PlaceOutcome out;
  if (request.given) {
    out.placement.assignment = *request.given;
  } else {
    const Method& method = findMethod(settings.method);
    PlaceContext context{costs,         sim, settings.seed, settings.budget, request.progress,
                         request.cancel};
    DecisionControl control{request.record_decisions, request.overrides, &graph};
    checkDecisionsSupported(method, request.record_decisions, !request.overrides.empty());
    if (request.record_decisions || !request.overrides.empty()) context.decisions = &control;
    out.placement = method.place(context, *params);
    out.resolved_params = params->values();
  }
  validateAssignment(out.placement.assignment, costs);
  chooseOrder(request, graph, costs, out);
  out.sim = Simulator(costs, sim).run(out.placement.assignment, out.execution_order);
  out.lower_bound_us = lowerBound(costs).value();
  out.compute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

void checkDecisionsSupported(const Method& method, bool record, bool overrides) {
  if ((record || overrides) && !method.sequential())
    throw InputError("", overrides ? "--override" : "--decisions",
                     "method " + method.name() +
                         " does not place node by node; decisions can be recorded and "
                         "overridden for " +
                         sequentialMethodNames());
}

std::string sequentialMethodNames() {
  std::string names;
  for (const auto& m : methods())
    if (m->sequential()) names += (names.empty() ? "" : ", ") + m->name();
  return names;
}

}  // namespace doppler

#include "app/studio/placement_compute.h"

#include "core/graph/coarsening.h"

namespace doppler::studio {

PlacementInputs makeInputs(std::shared_ptr<const DataflowGraph> graph,
                           std::shared_ptr<const DeviceSet> devices, std::string spec) {
  PlacementInputs in;
  if (graph->groups) {
    in.drawing = graph;
    // The fine graph, kept alive by (and at the address inside) the coarse graph's groups, so the
    // drawing's members index exactly these nodes.
    graph = std::shared_ptr<const DataflowGraph>(graph->groups, &graph->groups->fine);
  }
  in.costs = std::make_shared<const CostTable>(*graph, *devices);  // checks the device count
  in.graph = std::move(graph);
  in.devices = std::move(devices);
  in.devicesSpec = std::move(spec);
  return in;
}

views::SnapshotPtr computePlacement(const PlacementInputs& in, const views::PlacementSettings& s,
                                    const CancelToken& cancel, ProgressFn progress,
                                    const views::PlacementSnapshot* previous) {
  PlaceRequest request;
  request.graph = in.graph.get();
  request.devices = in.devices.get();
  request.costs = in.costs.get();
  request.settings = s;
  request.progress = std::move(progress);
  request.cancel = cancel;
  PlaceOutcome outcome = placeAndSimulate(request);

  auto out = std::make_shared<views::PlacementSnapshot>();
  out->sim = std::move(outcome.sim);
  out->graph = in.graph;
  out->devices = in.devices;
  out->costs = in.costs;
  out->devices_spec = in.devicesSpec;
  out->settings = s;
  out->resolved_params = std::move(outcome.resolved_params);
  out->assignment = std::move(outcome.placement.assignment);
  out->execution_order = std::move(outcome.execution_order);
  if (outcome.placement.planned) out->planned_makespan_us = outcome.placement.planned->makespan_us;
  out->lower_bound_us = outcome.lower_bound_us;
  out->evaluations = outcome.placement.evaluations;
  out->cancelled = outcome.placement.cancelled;
  if (previous && previous->graph == in.graph && previous->devices &&
      previous->devices->size() == in.devices->size()) {
    out->previous_makespan_us = previous->makespan();
    for (size_t v = 0; v < out->assignment.size(); ++v)
      if (out->assignment[v] != previous->assignment[v]) out->moved.push_back(static_cast<int>(v));
  }
  out->compute_ms = outcome.compute_ms;
  return out;
}

}  // namespace doppler::studio

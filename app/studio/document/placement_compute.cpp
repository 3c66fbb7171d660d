#include "app/studio/document/placement_compute.h"

#include <chrono>

#include "core/common/input_error.h"
#include "core/graph/coarsening.h"
#include "core/graph/device_matching.h"
#include "core/sim/lower_bound.h"
#include "views/models/schedule_events.h"
#include "views/timeline/timeline_data.h"

namespace doppler::studio {

namespace {

// What the views would otherwise derive from the snapshot on the GUI thread, made here on the
// worker: for a million nodes, about a second of arranging and path finding.
void prepareViews(views::PlacementSnapshot& s) {
  s.timeline = std::make_shared<const views::TimelineData>(
      views::TimelineData::build(*s.graph, *s.devices, s.sim.schedule));
  s.critical = std::make_shared<const CriticalPath>(criticalPath(*s.graph, s.sim.schedule));
  s.events = std::make_shared<const views::ScheduleEvents>(
      views::ScheduleEvents::build(*s.graph, s.sim.schedule));
}

// The change against the placement shown before, when it is of the same graph on as many devices.
void compareWithPrevious(views::PlacementSnapshot& out, const PlacementInputs& in,
                         const views::PlacementSnapshot* previous) {
  if (!previous || previous->graph != in.graph || !previous->devices ||
      previous->devices->size() != in.devices->size())
    return;
  out.previous_makespan_us = previous->makespan();
  // Identical devices renamed are not moves: the new placement's devices are matched to the
  // previous one's first (an identity map when the sets differ or nothing is interchangeable).
  std::vector<int> map(in.devices->size());
  for (int d = 0; d < in.devices->size(); ++d) map[d] = d;
  if (sameDevices(*previous->devices, *in.devices))
    map = matchDevices(*in.devices, previous->assignment, out.assignment);
  for (size_t v = 0; v < out.assignment.size(); ++v) {
    const int now = out.assignment[v];
    if ((now >= 0 && now < static_cast<int>(map.size()) ? map[now] : now) !=
        previous->assignment[v])
      out.moved.push_back(static_cast<int>(v));
  }
}

}  // namespace

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
  PlaceOutcome outcome = [&] {
    try {
      return placeAndSimulate(request);
    } catch (const InputError& e) {
      // A method's refusal of the graph itself (the general policy's: too deep for it).
      if (e.file().empty() && e.where() == "graph") throw e.inFile(in.graph->name);
      throw;
    }
  }();

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
  out->start_makespan_us = outcome.placement.start_makespan_us;
  out->cancelled = outcome.placement.cancelled;
  compareWithPrevious(*out, in, previous);
  out->compute_ms = outcome.compute_ms;
  prepareViews(*out);
  return out;
}

}  // namespace doppler::studio

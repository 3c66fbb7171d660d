#pragma once
// What every view shows: one graph placed on one device set and simulated, as immutable plain
// data. Snapshots cross threads (the placement worker builds them) and are shared by the views
// through std::shared_ptr<const PlacementSnapshot>; nothing in here refers to Qt.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/heuristics/method.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/cost_table.h"
#include "core/sim/critical_path.h"
#include "core/sim/schedule.h"
#include "core/sim/simulator.h"

namespace doppler::views {

struct TimelineData;    // views/timeline/timeline_data.h
struct ScheduleEvents;  // views/models/schedule_events.h

// The settings the heuristic tuner edits: the core pipeline's, so that with a graph and a device
// set they determine a placement exactly as `doppler place` computes it.
using PlacementSettings = PlaceSettings;

struct PlacementSnapshot {
  std::shared_ptr<const DataflowGraph> graph;
  std::shared_ptr<const DeviceSet> devices;
  std::shared_ptr<const CostTable> costs;  // of graph on devices
  std::string devices_spec;                // what was asked for: a preset, a count or a file
  PlacementSettings settings;
  ParamValues resolved_params;  // every parameter of the method, defaults filled in
  Assignment assignment;
  // The order the priority and sequence disciplines follow (PlaceOutcome::execution_order).
  std::vector<int> execution_order;
  SimResult sim;
  std::optional<double> planned_makespan_us;
  double lower_bound_us = 0;
  long evaluations = 0;
  std::optional<double> start_makespan_us;  // a search's start (Placement::start_makespan_us)
  bool cancelled = false;
  double compute_ms = 0;  // wall time of place + simulate
  // sim.schedule arranged for the timeline, made by the worker that placed it (for a million
  // nodes that takes about half a second the GUI thread would otherwise spend); null where the
  // snapshot was made elsewhere: the timeline then arranges it itself.
  std::shared_ptr<const TimelineData> timeline;
  // criticalPath(*graph, sim.schedule), by the same worker (null elsewhere: the views compute it).
  std::shared_ptr<const CriticalPath> critical;
  // The events table's rows (sim.schedule's events by start), by the same worker (null elsewhere:
  // the table builds them).
  std::shared_ptr<const ScheduleEvents> events;

  // The previous placement of the same graph on the same number of devices, if any: the tuner
  // shows the change against it and the graph view outlines the nodes that moved.
  std::optional<double> previous_makespan_us;
  std::vector<int> moved;  // nodes whose device differs from the previous placement

  double makespan() const { return sim.schedule.makespan_us; }
  double meanUtilization() const {
    double s = 0;
    for (double u : sim.utilization) s += u;
    return sim.utilization.empty() ? 0 : s / static_cast<double>(sim.utilization.size());
  }
};

using SnapshotPtr = std::shared_ptr<const PlacementSnapshot>;

}  // namespace doppler::views

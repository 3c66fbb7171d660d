#pragma once
// Placing and simulating a graph exactly as `doppler place` does (same method registry, the same
// seed for the method and the simulator's noise, the same validation), producing the snapshot
// the views show. Plain C++: runs on the GUI thread for list schedulers (a few milliseconds at
// 500 nodes) and on the placement worker for search methods.
#include <memory>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/heuristics/method.h"
#include "views/common/snapshot.h"

namespace doppler::studio {

struct PlacementInputs {
  std::shared_ptr<const DataflowGraph> graph;  // what is placed, simulated and on the timeline
  std::shared_ptr<const DeviceSet> devices;
  std::shared_ptr<const CostTable> costs;
  std::string devicesSpec;
  // A coarsened file (graph with groups) as opened: `graph` is then its fine graph, every node
  // placed, and the graph view draws the file's own groups, expandable in place.
  std::shared_ptr<const DataflowGraph> drawing = {};
};

// Builds the cost table (once per graph and device set, not per placement); throws InputError if
// the graph does not fit the devices. A graph with groups is placed as its fine graph and kept as
// the drawing.
PlacementInputs makeInputs(std::shared_ptr<const DataflowGraph> graph,
                           std::shared_ptr<const DeviceSet> devices, std::string spec);

// Throws InputError on a bad setting. `previous` (may be null) is the placement shown before; if
// it is of the same graph on as many devices, the result records the makespan change and the
// nodes that moved.
views::SnapshotPtr computePlacement(const PlacementInputs& in, const views::PlacementSettings& s,
                                    const CancelToken& cancel, ProgressFn progress,
                                    const views::PlacementSnapshot* previous);

}  // namespace doppler::studio

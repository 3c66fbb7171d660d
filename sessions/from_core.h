#pragma once
// Conversions from the core's plain results (an assignment, a Schedule) to store records, with
// node ids filled in from the graph.
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/sim/schedule.h"
#include "sessions/records.h"

namespace doppler::sessions {

// `order`: the nodes in the order they were assigned (Placement::order), or empty.
PlacementRecord placementRecord(const DataflowGraph& g, const Assignment& a,
                                const std::vector<int>& order = {});
TimelineRecord timelineRecord(const DataflowGraph& g, const Schedule& s, std::string label);

}  // namespace doppler::sessions

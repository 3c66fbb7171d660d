#pragma once
// The chain of nodes that determines a simulated makespan: from the node that finishes last, back
// through whatever made each node start when it did (its latest input arriving, or its device
// finishing the node before it). Plain C++, no Qt.
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/sim/schedule.h"

namespace doppler {

struct CriticalPath {
  std::vector<int> nodes;        // in execution order
  std::vector<int> edges;        // graph edges on the path (data dependencies)
  std::vector<char> onPath;      // per node
  std::vector<char> edgeOnPath;  // per edge
};

CriticalPath criticalPath(const DataflowGraph& g, const Schedule& s);

}  // namespace doppler

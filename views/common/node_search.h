#pragma once
// Find a node: what the graph view's and the timeline's search fields match. A node matches when
// its id contains the text or its op kind is the text, both without regard to case; blank text
// matches nothing.
#include <QString>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler::views {

std::vector<int> findNodes(const DataflowGraph& graph, const QString& text);

}  // namespace doppler::views

#pragma once
// Assignment files: {"assignment": {node id: device index}} (the `place --json` output is
// accepted as is), or a bare object {node id: device index}, or an array of device indices.
#include <string>
#include <string_view>

#include "core/graph/dataflow_graph.h"
#include "core/sim/schedule.h"

namespace doppler {

// Throws InputError naming the node or index if a node is missing, unknown, or its device is
// not an integer in [0, devices).
Assignment parseAssignment(std::string_view text, const DataflowGraph& g, int devices,
                           const std::string& file = {});

}  // namespace doppler

#pragma once
// Assignment files: {"assignment": {node id: device index}} (the `place --json` output is
// accepted as is), or a bare object {node id: device index}, or an array of device indices.
// The first form may carry an order (docs/formats.md): "execution_order" or else "order", an
// array of node ids, which the priority and sequence disciplines follow.
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/sim/schedule.h"

namespace doppler {

// Throws InputError naming the node or index if a node is missing, unknown, or its device is
// not an integer in [0, devices).
Assignment parseAssignment(std::string_view text, const DataflowGraph& g, int devices,
                           const std::string& file = {});

// An assignment file with the order it carries (empty when it has none); `order_field` names the
// field it came from ("execution_order" or "order"). The order must list every node once
// (InputError naming the entry otherwise).
struct AssignmentFile {
  Assignment assignment;
  std::vector<int> order;
  std::string order_field;
};
AssignmentFile parseAssignmentFile(std::string_view text, const DataflowGraph& g, int devices,
                                   const std::string& file = {});

}  // namespace doppler

#pragma once
// Every event of a simulated schedule, compute and transfer, in start order: the rows of the
// events table (ScheduleModel). Plain data, built by the placement worker with the snapshot
// (PlacementSnapshot::events): for a million nodes, two million events and their sort took the
// GUI thread a large part of a second when the table built them itself.
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/sim/schedule.h"

namespace doppler::views {

struct ScheduleEvents {
  struct Row {
    double start, finish;
    int node;      // compute: the node; transfer: the consumer
    int transfer;  // index into schedule.transfers, or -1 for compute
  };
  std::vector<Row> rows;  // by start; at equal starts computes first, then transfers in order

  static ScheduleEvents build(const DataflowGraph& g, const Schedule& s);
};

}  // namespace doppler::views

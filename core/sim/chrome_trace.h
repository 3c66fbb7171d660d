#pragma once
// Chrome Trace Event JSON (opens in Perfetto and chrome://tracing): one process per device,
// threads for the compute, send and receive lanes, flow arrows for cross-device edges.
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/sim/schedule.h"

namespace doppler {

std::string chromeTraceJson(const DataflowGraph& g, const DeviceSet& d, const Schedule& s);

}  // namespace doppler

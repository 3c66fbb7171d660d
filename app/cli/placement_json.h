#pragma once
// The JSON shapes of `place` and `simulate` (docs/formats.md).
#include <nlohmann/json.hpp>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/sim/schedule.h"
#include "output.h"  // dump()

namespace doppler::cli {

nlohmann::json assignmentJson(const DataflowGraph& g, const Assignment& a);
nlohmann::json scheduleJson(const DataflowGraph& g,
                            const Schedule& s);  // node spans in start order
nlohmann::json transfersJson(const DataflowGraph& g, const Schedule& s);
nlohmann::json simResultJson(const DataflowGraph& g, const SimResult& r);  // simulate's object
// The fields every placing command prints (`place`, `eval`): method, simulated makespan, lower
// bound, assignment, simulated schedule, utilization, graph, devices, cost model and seed.
nlohmann::json placementJson(const std::string& method, const DataflowGraph& g, const DeviceSet& d,
                             const Assignment& a, const SimResult& r, double lower_bound_us,
                             const std::string& cost_model, uint64_t seed);

}  // namespace doppler::cli

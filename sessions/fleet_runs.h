#pragma once
// How fleet runs are recorded in the run store, shared by `doppler fleet simulate|compare`
// (app/cli/cmd_fleet_simulate.cpp) and the studio's fleet workbench, so that a run started in one
// cannot be told apart from one started in the other (docs/fleet_sim.md, "run store"):
//   - kind "fleet", method the simulated method or "compare", the seed, and params repeating the
//     run (topology and trace made absolute when they are files, slots, load, fidelity, ...);
//   - an empty graph named "fleet:TOPOLOGY" and an empty device set named after the fleet's size
//     ("12 regions, 60 GPUs"), since the store keeps a graph and a device set per run;
//   - simulate: every figure (allFigures) and a "queued" series per slot; compare: "METHOD.FIGURE"
//     figures, the means over seeds of the headline figures.
// Its own library (doppler_fleet_runs): the run store itself stays free of the fleet simulator.
#include <map>
#include <string>

#include "core/fleet/sim/harness.h"
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "sessions/records.h"

namespace doppler::sessions {

class MetricWriter;

// The name the CLI's --fidelity takes (--horizon's: fleet::toString).
std::string fleetFidelityName(fleet::sim::Fidelity fidelity);

// The spec of a fleet run of `method` ("compare" for a comparison) with `extra` params (compare:
// seeds and methods).
RunSpec fleetRunSpec(const std::string& method, const fleet::sim::RunOptions& options,
                     nlohmann::json extra = nlohmann::json::object());
DataflowGraph fleetRunGraph(const std::string& topology);
DeviceSet fleetRunDevices(const fleet::sim::PreparedScenario& prepared);

// A simulate run's series: "queued" per slot.
void appendFleetSeries(MetricWriter& metrics, const fleet::sim::SimResult& result);
// A comparison's figures: "METHOD.FIGURE", the mean over seeds of each headline figure.
std::map<std::string, double> fleetCompareFigures(const fleet::sim::Comparison& comparison);

}  // namespace doppler::sessions

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

// The shipped general policy as a tuner method, named as `doppler place --method
// doppler` names it. It is not in the heuristic registry (it loads a weights file), so the document
// places with it through computePolicyPlacement; the tuner lists it only where the shipped
// weights exist (shippedGeneralPolicyPath in studio_document.h).
inline constexpr const char* kGeneralPolicyMethod = "doppler";
// Its one parameter, "samples": best of K episodes, the greedy one and K-1 sampled (the tuner's
// seed seeds them), as `doppler eval --samples`.
std::vector<ParamSpec> generalPolicyParams();
std::string generalPolicyDescription();

// Places with a policy checkpoint exactly as `doppler eval` (and so `doppler place --method
// doppler`, samples 1) does: the network runs once on the graph and device set, the best of
// `samples` episodes is chosen under the settings' cost model and fifo, and that placement is
// simulated under the settings' discipline following the episode's order. The tuner's noise, which
// eval has no option for, applies to that simulation only. The module and the checkpoint are loaded
// on first use and kept for the process; compute_ms leaves that load out (it is the placement's
// time: network, episodes and simulation). Throws InputError on a bad setting or checkpoint.
views::SnapshotPtr computePolicyPlacement(const PlacementInputs& in,
                                          const views::PlacementSettings& s,
                                          const std::string& checkpoint,
                                          const views::PlacementSnapshot* previous);

}  // namespace doppler::studio

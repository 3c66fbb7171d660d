#pragma once
// Simulated annealing over assignments, judged by the work-conserving simulator.
#include <vector>

#include "core/heuristics/method.h"

namespace doppler {

// Where a guided search's moves go. Empty vectors mean uniform.
struct MoveHints {
  // nodes x devices: the relative chance that a move sends node v to device d (among the devices
  // other than v's own; all zero there: uniform). The general policy's PLC gives it.
  std::vector<double> device_weight;
  // The relative chance that a move starts from each node.
  std::vector<double> node_weight;
};

struct AnnealConfig {
  int restarts = 4;  // the budget is split evenly; restarts after the first reheat from the best
  double t0 = 0.02;  // initial temperature, as a fraction of the start's simulated makespan
  // Geometric factor applied to the temperature after each evaluation; 0 = automatic (from t0
  // down to t0/1000 over each restart).
  double cooling = 0;
  double p_neighbour = 0.4;  // move a node onto the device of one of its neighbours
  double p_cluster = 0.5;    // move a connected group of nodes that share a device
  int max_cluster = 8;       // largest such group
  double p_swap = 0.05;      // swap the devices of two nodes; otherwise move a node at random
  // Wall time, as well as the budget: the search stops at whichever comes first, and the
  // temperature then falls with the larger of the two fractions used (0: the budget only).
  double time_ms = 0;
  const MoveHints* hints = nullptr;  // may be null: uniform moves
};

// Anneals from `start` using exactly ctx.budget simulator evaluations (fewer only when cancelled,
// out of cfg.time_ms, or one when there is a single device), seeded by ctx.seed. Returns the best
// assignment seen (never worse than the start, by the simulator's judgement), with evaluations and
// cancelled set. `order` is what the priority and sequence disciplines follow for every assignment
// tried (ctx.sim.discipline; empty: the topological order); it is returned as Placement::order.
Placement anneal(const PlaceContext& ctx, const Assignment& start, const AnnealConfig& cfg,
                 const std::vector<int>& order = {});

}  // namespace doppler

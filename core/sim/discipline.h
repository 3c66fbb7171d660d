#pragma once
// Execution disciplines: how a device picks its next node among those assigned to it. The
// simulator and the real executor share these definitions; docs/simulator.md#disciplines is the
// contract.
//
// - fifo:     work-conserving; the node that became ready first goes first, ties by node index.
// - priority: work-conserving; the ready node earliest in the order goes first.
// - sequence: each device runs its nodes in the order given and waits for the next one while it
//             is not ready (one stream per device).
//
// An order is a permutation of the node indices. Only its restriction to each device matters:
// a device only ever chooses among its own nodes.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/sim/schedule.h"

namespace doppler {

enum class Discipline { Fifo, Priority, Sequence };

const char* toString(Discipline d);  // "fifo", "priority", "sequence"
std::string disciplineNames();       // "fifo, priority, sequence"
// InputError at `where` naming the bad value and the known ones.
Discipline disciplineFromName(std::string_view name, const std::string& where = "--discipline");
// Priority and sequence read an order; fifo does not.
inline bool usesOrder(Discipline d) {
  return d != Discipline::Fifo;
}

// InputError at `where` unless `order` lists every node in [0, nodes) exactly once.
void validateOrder(std::span<const int> order, int nodes, const std::string& where = "order");
// rank[v] = the position of node v in `order` (a valid order).
std::vector<int> orderRanks(std::span<const int> order, int nodes);
// Each device's nodes in the order `order` lists them: what `sequence` runs on each device.
std::vector<std::vector<int>> deviceSequences(const Assignment& a, std::span<const int> order,
                                              int devices);

}  // namespace doppler

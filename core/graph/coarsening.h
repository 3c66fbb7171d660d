#pragma once
// Coarsening: one graph drawn as groups of another. A 20,000-node import is too large to lay out
// or read node by node, so its chains and name scopes ("/h.3/attn/...") are merged into groups
// until at most N remain. Every group is an interval of one topological order of the fine graph,
// so the coarse graph is acyclic whatever the grouping (a path that leaves an interval cannot
// come back into it). Merged nodes sum their costs; the members are kept (GraphGroups) so the
// studio can expand a group in place and a coarsened JSON file round-trips.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler {

struct GraphGroups {
  DataflowGraph fine;                     // the graph the groups partition (has no groups itself)
  std::vector<int> group_of;              // fine node index -> coarse node index
  std::vector<std::vector<int>> members;  // coarse node index -> fine node indices, in order
};

struct CoarsenStats {
  int fine_nodes = 0;
  int coarse_nodes = 0;
  int chain_merges = 0;   // nodes merged into their chain predecessor
  int input_merges = 0;   // weight inputs ("input", one consumer) merged into their consumer
  int scope_merges = 0;   // nodes merged by a shared name scope
  int forced_merges = 0;  // neighbouring groups merged to reach the limit
  int scope_depth = -1;   // the shallowest scope depth used; -1 if no scope merge was needed
};

// Merges chains, then name-scope groups from the deepest scope up, then neighbouring groups of
// the topological order, until at most max_nodes remain (max_nodes >= 1). A graph that already
// has max_nodes or fewer comes back unchanged (no groups). A graph that has groups is coarsened
// from its fine graph. A group's id is its members' common scope (made unique), or its only
// member's id; its op is "group" unless all members share one op.
DataflowGraph coarsenGraph(const DataflowGraph& g, int max_nodes, CoarsenStats* stats = nullptr);

// The coarse graph g with the groups listed (coarse node indices) replaced by their members, in
// place: the result's groups describe what is still grouped, each expanded member becoming a group
// of one. g must have groups. Expanding every group gives a graph equal to the fine one.
DataflowGraph expandGroups(const DataflowGraph& g, std::span<const int> expand);

// The coarse graph of `fine` for a given partition (group_of: fine node -> group, groups numbered
// 0..k-1 in order of their first member). Throws InputError if the partition makes a cycle.
// coarsenGraph, expandGroups and the JSON reader all build through this.
// (Any numbering in which every group 0..k-1 has a member is accepted; coarse node i is group i.
// Errors: "groups[i]" for a cycle through group i or an empty group, "nodes[f] 'id'" and
// "edges[e]" for fine nodes and edges whose costs cannot be merged; see docs/formats.md.)
DataflowGraph groupGraph(const DataflowGraph& fine, std::vector<int> group_of);

// The name scope of a node id: "/h.3/attn/MatMul_1" -> {"h.3", "attn"} (split on '/', the last
// part is the op's own name); an id without '/' but with '.' is split on '.', an all-digit part
// joining the one before it: "h.3.attn.q_proj.weight" -> {"h.3", "attn", "q_proj"}. Else {}.
std::vector<std::string> scopeOf(std::string_view id);

}  // namespace doppler

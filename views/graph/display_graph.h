#pragma once
// What the graph view draws: the document's graph itself, or, above kCoarsenAbove nodes, a coarse
// graph of it (core/graph/coarsening.h) whose groups expand in place. The document, placement,
// simulation and timeline always work on every node; only the drawing is coarse. Plain data with
// no Qt: built on the GUI thread (coarsening 20,000 nodes takes milliseconds, the layout is what
// takes time) and shared read-only.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/sim/critical_path.h"

namespace doppler {
struct GraphGroups;
}

namespace doppler::views {

struct PlacementSnapshot;

// Graphs with more nodes than this are drawn as groups: a 400-node graph still lays out with dot
// in about a second and reads node by node when zoomed; beyond that the picture is a hairball.
inline constexpr int kCoarsenAbove = 400;
// How many groups a coarse drawing has at most (dot lays out 300 boxes in well under a second).
inline constexpr int kCoarsenTarget = 300;
// How many edges a coarse drawing has at most: dot's time grows steeply with the edges between
// groups (a 1,832-node LLaMA layer on 8 shards in 300 groups has 880 of them and took 100 s to
// lay out; in 150 groups, 474 edges, 4 s; in 100, 338 edges, 1 s), so a drawing with more is
// coarsened into fewer groups, down to kCoarsenFloor.
inline constexpr int kCoarseMaxEdges = 360;
inline constexpr int kCoarsenFloor = 40;

class DisplayGraph {
 public:
  // The drawing of `full`: full itself up to `coarsenAbove` nodes, else coarsenGraph(full, target).
  // A graph that has groups (a coarsened file) is drawn with those groups over its fine graph,
  // which is then full() (the studio places the fine graph: PlacementInputs::drawing).
  static DisplayGraph of(std::shared_ptr<const DataflowGraph> full,
                         int coarsenAbove = kCoarsenAbove, int target = kCoarsenTarget);
  // The same coarse drawing with exactly these groups of the original coarsening expanded in
  // place (every other group collapsed). `groups` are indices into base() (baseGroupOf).
  DisplayGraph withExpanded(std::vector<int> groups) const;

  const std::shared_ptr<const DataflowGraph>& full() const { return full_; }
  const std::shared_ptr<const DataflowGraph>& shown() const { return shown_; }
  // The coarsening before any expansion; null when the graph is drawn node by node.
  const std::shared_ptr<const DataflowGraph>& base() const { return base_; }
  bool coarse() const { return base_ != nullptr; }
  const std::vector<int>& expanded() const { return expanded_; }  // base groups, sorted

  int shownCount() const { return shown_ ? shown_->nodeCount() : 0; }
  int fullCount() const { return full_ ? full_->nodeCount() : 0; }
  // Drawn node of a full node (identity when not coarse); -1 if out of range.
  int shownOf(int fullNode) const;
  // Full nodes a drawn node stands for, in topological order (itself when not coarse).
  std::span<const int> members(int shownNode) const;
  int memberCount(int shownNode) const { return static_cast<int>(members(shownNode).size()); }
  bool isGroup(int shownNode) const { return memberCount(shownNode) > 1; }
  // The group of the original coarsening that a drawn node belongs to (-1 when not coarse).
  int baseGroupOf(int shownNode) const;
  // Whether a drawn node is a member of an expanded group (it collapses back into it).
  bool isExpandedMember(int shownNode) const;
  // Groups in the drawing (drawn nodes with more than one member).
  int groupCount() const;

 private:
  std::shared_ptr<const DataflowGraph> full_, shown_, base_;
  std::vector<int> expanded_;
  std::vector<int> self_;  // identity members when not coarse
};

using DisplayGraphPtr = std::shared_ptr<const DisplayGraph>;

// A placement seen through a drawing: per drawn node the device that runs most of its members'
// work, and each device's share of that work; per drawn edge whether any member edge crosses
// devices and the transfer time summed over those that do. For a drawing of the graph itself
// this is the placement as is.
struct DisplayPlacement {
  std::vector<int> device;                   // per drawn node
  std::vector<std::vector<double>> shareUs;  // per drawn node: compute time on each device
  std::vector<double> workUs;                // per drawn node: members' compute time, summed
  std::vector<char> edgeCross;               // per drawn edge
  std::vector<double> edgeTransferUs;        // per drawn edge
  std::vector<char> onCritical;              // per drawn node: some member is on the path
  std::vector<char> edgeCritical;            // per drawn edge: some member edge is on the path
};

// `assignment` overrides the snapshot's (the stepper's plan); `critical` may be null.
DisplayPlacement placementOnDisplay(const DisplayGraph& display, const PlacementSnapshot& s,
                                    const std::vector<int>& assignment,
                                    const CriticalPath* critical);

// The member a click on a drawn node selects: the one that computes longest in the placement
// (the first member without one).
int representativeMember(const DisplayGraph& display, int shownNode, const PlacementSnapshot* s);

// A group's second label line: "×64 · 12.3 GFLOP" (members and summed cost); empty for a node.
std::string groupSummary(const DisplayGraph& display, int shownNode);

}  // namespace doppler::views

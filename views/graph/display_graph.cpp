#include "views/graph/display_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/graph/coarsening.h"
#include "views/common/snapshot.h"

namespace doppler::views {

DisplayGraph DisplayGraph::of(std::shared_ptr<const DataflowGraph> full, int coarsenAbove,
                              int target) {
  DisplayGraph d;
  // A coarsened file (a graph with groups) is drawn with its own groups over its fine graph, which
  // is what the document places (PlacementInputs::drawing): the members are the placed nodes.
  if (full && full->groups) {
    d.base_ = full;
    d.shown_ = full;
    d.full_ = std::shared_ptr<const DataflowGraph>(full->groups, &full->groups->fine);
    return d;
  }
  d.full_ = std::move(full);
  d.shown_ = d.full_;
  if (!d.full_ || d.full_->nodeCount() <= coarsenAbove) {
    d.self_.resize(d.fullCount());
    for (int v = 0; v < d.fullCount(); ++v) d.self_[v] = v;
    return d;
  }
  const std::shared_ptr<const DataflowGraph>& source = d.full_;
  auto coarse = std::make_shared<const DataflowGraph>(coarsenGraph(*source, target));
  // Coarsening takes milliseconds; a layout of too many edges between groups, minutes.
  while (coarse->groups && coarse->edgeCount() > kCoarseMaxEdges && target > kCoarsenFloor) {
    target = std::max(kCoarsenFloor, target * 7 / 10);
    coarse = std::make_shared<const DataflowGraph>(coarsenGraph(*source, target));
  }
  if (!coarse->groups) {  // nothing merged
    d.self_.resize(d.fullCount());
    for (int v = 0; v < d.fullCount(); ++v) d.self_[v] = v;
    return d;
  }
  d.base_ = coarse;
  d.shown_ = coarse;
  return d;
}

DisplayGraph DisplayGraph::withExpanded(std::vector<int> groups) const {
  if (!coarse()) return *this;
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::erase_if(groups, [this](int g) { return g < 0 || g >= base_->nodeCount(); });
  DisplayGraph d = *this;
  d.expanded_ = groups;
  d.shown_ =
      groups.empty() ? base_ : std::make_shared<const DataflowGraph>(expandGroups(*base_, groups));
  return d;
}

int DisplayGraph::shownOf(int fullNode) const {
  if (fullNode < 0 || fullNode >= fullCount()) return -1;
  if (!coarse()) return fullNode;
  return shown_->groups->group_of[fullNode];
}

std::span<const int> DisplayGraph::members(int shownNode) const {
  if (shownNode < 0 || shownNode >= shownCount()) return {};
  if (!coarse()) return std::span<const int>(&self_[shownNode], 1);
  return shown_->groups->members[shownNode];
}

int DisplayGraph::baseGroupOf(int shownNode) const {
  if (!coarse()) return -1;
  const auto m = members(shownNode);
  return m.empty() ? -1 : base_->groups->group_of[m.front()];
}

bool DisplayGraph::isExpandedMember(int shownNode) const {
  const int g = baseGroupOf(shownNode);
  return g >= 0 && std::binary_search(expanded_.begin(), expanded_.end(), g);
}

int DisplayGraph::groupCount() const {
  if (!coarse()) return 0;
  int groups = 0;
  for (const auto& m : shown_->groups->members) groups += m.size() > 1;
  return groups;
}

DisplayPlacement placementOnDisplay(const DisplayGraph& display, const PlacementSnapshot& s,
                                    const std::vector<int>& assignment,
                                    const CriticalPath* critical) {
  DisplayPlacement out;
  const DataflowGraph& full = *display.full();
  const DataflowGraph& shown = *display.shown();
  const int n = shown.nodeCount();
  const int devices = s.costs ? s.costs->devices() : 0;
  const Assignment& a = assignment;
  out.device.assign(n, 0);
  out.workUs.assign(n, 0);
  out.onCritical.assign(n, 0);
  const bool haveCritical =
      critical && static_cast<int>(critical->onPath.size()) == full.nodeCount();
  if (!display.coarse()) {
    for (int v = 0; v < n; ++v) {
      out.device[v] = a[v];
      const auto& span = s.sim.schedule.nodes;
      if (v < static_cast<int>(span.size())) out.workUs[v] = span[v].finish_us - span[v].start_us;
      out.onCritical[v] = haveCritical && critical->onPath[v];
    }
  } else {
    out.shareUs.assign(n, std::vector<double>(std::max(devices, 1), 0.0));
    for (int v = 0; v < n; ++v) {
      for (int m : display.members(v)) {
        const int dev = a[m];
        // The member's compute time on its device (from the cost table: the schedule may be the
        // stepper's plan, where unplaced nodes have no span).
        const double us = s.costs ? s.costs->compute(m, dev) : 0;
        if (dev >= 0 && dev < static_cast<int>(out.shareUs[v].size())) out.shareUs[v][dev] += us;
        out.workUs[v] += us;
        if (haveCritical && critical->onPath[m]) out.onCritical[v] = 1;
      }
      const auto& share = out.shareUs[v];
      out.device[v] =
          static_cast<int>(std::max_element(share.begin(), share.end()) - share.begin());
      if (out.workUs[v] <= 0 && !display.members(v).empty())
        out.device[v] = a[display.members(v)[0]];
    }
  }
  const int edges = shown.edgeCount();
  out.edgeCross.assign(edges, 0);
  out.edgeTransferUs.assign(edges, 0);
  out.edgeCritical.assign(edges, 0);
  const bool haveEdgeCritical =
      critical && static_cast<int>(critical->edgeOnPath.size()) == full.edgeCount();
  if (!display.coarse()) {
    for (int e = 0; e < edges; ++e) {
      const Edge& edge = shown.edge(e);
      if (a[edge.src] != a[edge.dst]) {
        out.edgeCross[e] = 1;
        out.edgeTransferUs[e] = s.costs->transfer(e, a[edge.src], a[edge.dst]);
      }
      out.edgeCritical[e] = haveEdgeCritical && critical->edgeOnPath[e];
    }
    return out;
  }
  // Each full edge between two drawn nodes lands on the drawn edge that joins them.
  std::unordered_map<uint64_t, int> drawnEdge;
  drawnEdge.reserve(edges * 2);
  auto key = [](int src, int dst) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32) | static_cast<uint32_t>(dst);
  };
  for (int e = 0; e < edges; ++e) drawnEdge.emplace(key(shown.edge(e).src, shown.edge(e).dst), e);
  for (int e = 0; e < full.edgeCount(); ++e) {
    const Edge& edge = full.edge(e);
    const int su = display.shownOf(edge.src), sv = display.shownOf(edge.dst);
    if (su == sv) continue;
    const auto it = drawnEdge.find(key(su, sv));
    if (it == drawnEdge.end()) continue;
    if (a[edge.src] != a[edge.dst]) {
      out.edgeCross[it->second] = 1;
      if (s.costs) out.edgeTransferUs[it->second] += s.costs->transfer(e, a[edge.src], a[edge.dst]);
    }
    if (haveEdgeCritical && critical->edgeOnPath[e]) out.edgeCritical[it->second] = 1;
  }
  return out;
}

int representativeMember(const DisplayGraph& display, int shownNode, const PlacementSnapshot* s) {
  const auto members = display.members(shownNode);
  if (members.empty()) return -1;
  if (!s || s->graph != display.full()) return members.front();
  const auto& spans = s->sim.schedule.nodes;
  int best = members.front();
  double longest = -1;
  for (int m : members) {
    if (m >= static_cast<int>(spans.size())) continue;
    const double us = spans[m].finish_us - spans[m].start_us;
    if (us > longest) {
      longest = us;
      best = m;
    }
  }
  return best;
}

std::string groupSummary(const DisplayGraph& display, int shownNode) {
  if (!display.isGroup(shownNode)) return {};
  const Node& node = display.shown()->node(shownNode);
  char buffer[96];
  const int count = display.memberCount(shownNode);
  if (node.flops > 0) {
    const char* units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
    double f = node.flops;
    int u = 0;
    while (f >= 1000 && u < 5) {
      f /= 1000;
      ++u;
    }
    std::snprintf(buffer, sizeof buffer, "\u00d7%d \u00b7 %.*f %s", count, f < 10 ? 1 : 0, f,
                  units[u]);
  } else if (!node.compute_us.empty()) {
    double us = 0;
    for (double x : node.compute_us) us += x;
    us /= static_cast<double>(node.compute_us.size());
    if (us >= 1000)
      std::snprintf(buffer, sizeof buffer, "\u00d7%d \u00b7 %.1f ms", count, us / 1000);
    else
      std::snprintf(buffer, sizeof buffer, "\u00d7%d \u00b7 %.0f \u00b5s", count, us);
  } else {
    std::snprintf(buffer, sizeof buffer, "\u00d7%d nodes", count);
  }
  return buffer;
}

}  // namespace doppler::views

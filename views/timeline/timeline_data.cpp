#include "views/timeline/timeline_data.h"

#include <algorithm>
#include <map>

#include "views/common/theme.h"

namespace doppler::views {

TimelineData TimelineData::build(const DataflowGraph& g, const DeviceSet& d, const Schedule& s) {
  TimelineData t;
  t.devices = d.size();
  t.makespan = s.makespan_us;
  const int n = g.nodeCount();
  t.lanes.resize(t.devices);
  for (int dev = 0; dev < t.devices; ++dev) {
    TimelineLane& lane = t.lanes[dev];
    lane.kind = TimelineLane::Kind::Compute;
    lane.device = dev;
    const std::string& name = d.devices[dev].name;
    lane.label = name.empty() ? QStringLiteral("dev%1").arg(dev) : QString::fromStdString(name);
  }
  t.computeLanes = t.devices;
  for (const NodeSpan& span : s.nodes)
    if (span.node >= 0 && span.device >= 0 && span.device < t.devices)
      t.lanes[span.device].events.push_back({span.start_us, span.finish_us, span.node, -1});
  // Transfer lanes: one per directed link that carried anything, by (src, dst).
  std::map<std::pair<int, int>, int> linkLane;
  for (const TransferSpan& tr : s.transfers) {
    const auto key = std::make_pair(tr.src_device, tr.dst_device);
    if (!linkLane.count(key)) linkLane[key] = 0;
  }
  for (auto& [key, index] : linkLane) {
    index = static_cast<int>(t.lanes.size());
    TimelineLane lane;
    lane.kind = TimelineLane::Kind::Transfer;
    lane.device = key.first;
    lane.dst = key.second;
    lane.label = t.lanes[key.first].label + QStringLiteral(" → ") + t.lanes[key.second].label;
    t.lanes.push_back(std::move(lane));
  }
  for (const TransferSpan& tr : s.transfers)
    t.lanes[linkLane[{tr.src_device, tr.dst_device}]].events.push_back(
        {tr.start_us, tr.finish_us, g.edge(tr.edge).src, tr.edge});

  t.nodeLane.assign(n, -1);
  t.nodeIndex.assign(n, -1);
  t.edgeLane.assign(g.edgeCount(), -1);
  t.edgeIndex.assign(g.edgeCount(), -1);
  for (size_t l = 0; l < t.lanes.size(); ++l) {
    TimelineLane& lane = t.lanes[l];
    std::stable_sort(
        lane.events.begin(), lane.events.end(),
        [](const TimelineEvent& a, const TimelineEvent& b) { return a.start < b.start; });
    for (size_t i = 0; i < lane.events.size(); ++i) {
      const TimelineEvent& e = lane.events[i];
      lane.maxDuration = std::max(lane.maxDuration, e.finish - e.start);
      if (e.edge >= 0) {
        t.edgeLane[e.edge] = static_cast<int>(l);
        t.edgeIndex[e.edge] = static_cast<int>(i);
      } else if (e.node >= 0) {
        t.nodeLane[e.node] = static_cast<int>(l);
        t.nodeIndex[e.node] = static_cast<int>(i);
      }
    }
    t.eventCount += lane.events.size();
  }

  t.opColor.resize(n);
  t.opRank.resize(n);
  t.nodeLabels.resize(n);
  std::map<std::string, OpKind> kinds;
  for (int v = 0; v < n; ++v) {
    const std::string& op = g.node(v).op;
    OpKind& kind = kinds[op];
    kind.op = op;
    ++kind.nodes;
    if (v < static_cast<int>(s.nodes.size()))
      kind.total_us += s.nodes[v].finish_us - s.nodes[v].start_us;
    t.nodeLabels[v] = QString::fromStdString(g.node(v).id);
  }
  for (auto& [op, kind] : kinds) t.ops.push_back(kind);
  std::stable_sort(t.ops.begin(), t.ops.end(),
                   [](const OpKind& a, const OpKind& b) { return a.nodes > b.nodes; });
  std::map<std::string, int> rank;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    t.ops[i].color = Theme::opShade(static_cast<int>(i)).rgb();
    rank[t.ops[i].op] = static_cast<int>(i);
  }
  for (int v = 0; v < n; ++v) {
    t.opRank[v] = rank[g.node(v).op];
    t.opColor[v] = t.ops[t.opRank[v]].color;
  }
  for (int dev = 0; dev < t.devices; ++dev) t.deviceColor.push_back(Theme::deviceColor(dev).rgb());
  t.edges.reserve(g.edgeCount());
  t.inEdges.resize(n);
  t.outEdges.resize(n);
  for (int e = 0; e < g.edgeCount(); ++e) {
    t.edges.emplace_back(g.edge(e).src, g.edge(e).dst);
    t.outEdges[g.edge(e).src].push_back(e);
    t.inEdges[g.edge(e).dst].push_back(e);
  }
  return t;
}

size_t TimelineData::firstVisible(const TimelineLane& lane, double t) const {
  const double from = t - lane.maxDuration;
  return static_cast<size_t>(
      std::lower_bound(lane.events.begin(), lane.events.end(), from,
                       [](const TimelineEvent& e, double x) { return e.start < x; }) -
      lane.events.begin());
}

}  // namespace doppler::views

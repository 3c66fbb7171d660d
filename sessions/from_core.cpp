#include "from_core.h"

namespace doppler::sessions {

PlacementRecord placementRecord(const DataflowGraph& g, const Assignment& a,
                                const std::vector<int>& order) {
  PlacementRecord p;
  p.nodes.reserve(a.size());
  for (int v = 0; v < g.nodeCount() && v < static_cast<int>(a.size()); ++v)
    p.nodes.push_back({v, g.node(v).id, a[v]});
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int v = order[i];
    if (v < 0 || v >= static_cast<int>(a.size())) continue;
    Decision d;
    d.step = static_cast<int>(i);
    d.node = v;
    d.device = a[v];
    p.decisions.push_back(d);
  }
  return p;
}

TimelineRecord timelineRecord(const DataflowGraph& g, const Schedule& s, std::string label) {
  TimelineRecord t;
  t.label = std::move(label);
  t.makespan_us = s.makespan_us;
  for (const NodeSpan& n : s.nodes)
    if (n.node >= 0 && n.node < g.nodeCount())
      t.nodes.push_back({n.node, g.node(n.node).id, n.device, n.start_us, n.finish_us});
  for (const TransferSpan& x : s.transfers) {
    if (x.edge < 0 || x.edge >= g.edgeCount()) continue;
    const Edge& e = g.edge(x.edge);
    t.transfers.push_back({x.edge, e.src, e.dst, g.node(e.src).id, g.node(e.dst).id, x.src_device,
                           x.dst_device, x.start_us, x.finish_us});
  }
  return t;
}

}  // namespace doppler::sessions

#include "placement_json.h"

#include <algorithm>

namespace doppler::cli {

using nlohmann::json;

json assignmentJson(const DataflowGraph& g, const Assignment& a) {
  // Ordered as the graph's nodes (nlohmann's ordered_json would also do; plain object sorts).
  json out = json::object();
  for (int v = 0; v < g.nodeCount(); ++v) out[g.node(v).id] = a[v];
  return out;
}

json scheduleJson(const DataflowGraph& g, const Schedule& s) {
  std::vector<const NodeSpan*> spans;
  for (const NodeSpan& n : s.nodes)
    if (n.node >= 0) spans.push_back(&n);
  std::stable_sort(spans.begin(), spans.end(), [](const NodeSpan* x, const NodeSpan* y) {
    return x->start_us < y->start_us || (x->start_us == y->start_us && x->node < y->node);
  });
  json out = json::array();
  for (const NodeSpan* n : spans)
    out.push_back({{"node", g.node(n->node).id},
                   {"device", n->device},
                   {"start_us", n->start_us},
                   {"finish_us", n->finish_us}});
  return out;
}

json transfersJson(const DataflowGraph& g, const Schedule& s) {
  json out = json::array();
  for (const TransferSpan& t : s.transfers) {
    const Edge& e = g.edge(t.edge);
    out.push_back({{"src", g.node(e.src).id},
                   {"dst", g.node(e.dst).id},
                   {"src_device", t.src_device},
                   {"dst_device", t.dst_device},
                   {"start_us", t.start_us},
                   {"finish_us", t.finish_us}});
  }
  return out;
}

json simResultJson(const DataflowGraph& g, const SimResult& r) {
  json gaps = json::array();
  for (const IdleGap& gap : r.idle_gaps)
    gaps.push_back(
        {{"device", gap.device}, {"start_us", gap.start_us}, {"finish_us", gap.finish_us}});
  return {{"makespan_us", r.schedule.makespan_us},
          {"schedule", scheduleJson(g, r.schedule)},
          {"transfers", transfersJson(g, r.schedule)},
          {"utilization", r.utilization},
          {"busy_us", r.busy_us},
          {"idle_gaps", gaps}};
}

nlohmann::json placementJson(const std::string& method, const DataflowGraph& g, const DeviceSet& d,
                             const Assignment& a, const SimResult& r, double lower_bound_us,
                             const std::string& cost_model, uint64_t seed) {
  return {{"method", method},
          {"makespan_us", r.schedule.makespan_us},
          {"lower_bound_us", lower_bound_us},
          {"assignment", assignmentJson(g, a)},
          {"schedule", scheduleJson(g, r.schedule)},
          {"utilization", r.utilization},
          {"graph", g.name},
          {"devices", d.name},
          {"device_count", d.size()},
          {"cost_model", cost_model},
          {"seed", seed}};
}

}  // namespace doppler::cli

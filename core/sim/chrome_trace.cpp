#include "core/sim/chrome_trace.h"

#include <nlohmann/json.hpp>

#include "core/graph/json_access.h"

namespace doppler {

using nlohmann::json;

namespace {
// Lanes (thread ids) inside each device's process.
constexpr int kCompute = 0, kSend = 1, kReceive = 2;
}  // namespace

std::string chromeTraceJson(const DataflowGraph& g, const DeviceSet& d, const Schedule& s) {
  json events = json::array();
  for (int dev = 0; dev < d.size(); ++dev) {
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", dev},
                      {"tid", 0},
                      {"args", {{"name", d.devices[dev].name}}}});
    events.push_back({{"ph", "M"},
                      {"name", "process_sort_index"},
                      {"pid", dev},
                      {"tid", 0},
                      {"args", {{"sort_index", dev}}}});
    const char* lanes[] = {"compute", "send", "receive"};
    for (int lane = 0; lane < 3; ++lane)
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", dev},
                        {"tid", lane},
                        {"args", {{"name", lanes[lane]}}}});
  }
  for (const NodeSpan& n : s.nodes) {
    if (n.node < 0) continue;
    const Node& node = g.node(n.node);
    events.push_back({{"ph", "X"},
                      {"name", node.op.empty() ? node.id : node.op + " " + node.id},
                      {"cat", node.op.empty() ? "node" : node.op},
                      {"pid", n.device},
                      {"tid", kCompute},
                      {"ts", n.start_us},
                      {"dur", n.finish_us - n.start_us},
                      {"args", {{"node", node.id}, {"flops", node.flops}}}});
  }
  int flowId = 0;
  for (const TransferSpan& t : s.transfers) {
    const Edge& e = g.edge(t.edge);
    const std::string name = g.node(e.src).id + " -> " + g.node(e.dst).id;
    json args = {{"bytes", e.bytes},
                 {"from", d.devices[t.src_device].name},
                 {"to", d.devices[t.dst_device].name}};
    events.push_back({{"ph", "X"},
                      {"name", name},
                      {"cat", "transfer"},
                      {"pid", t.src_device},
                      {"tid", kSend},
                      {"ts", t.start_us},
                      {"dur", t.finish_us - t.start_us},
                      {"args", args}});
    events.push_back({{"ph", "X"},
                      {"name", name},
                      {"cat", "transfer"},
                      {"pid", t.dst_device},
                      {"tid", kReceive},
                      {"ts", t.start_us},
                      {"dur", t.finish_us - t.start_us},
                      {"args", args}});
    // A flow arrow from the producer's compute slice to the consumer's (binds to enclosing slices).
    ++flowId;
    const NodeSpan& src = s.nodes[e.src];
    const NodeSpan& dst = s.nodes[e.dst];
    events.push_back({{"ph", "s"},
                      {"id", flowId},
                      {"name", name},
                      {"cat", "edge"},
                      {"pid", src.device},
                      {"tid", kCompute},
                      {"ts", src.finish_us},
                      {"bp", "e"}});
    events.push_back({{"ph", "f"},
                      {"id", flowId},
                      {"name", name},
                      {"cat", "edge"},
                      {"pid", dst.device},
                      {"tid", kCompute},
                      {"ts", dst.start_us},
                      {"bp", "e"}});
  }
  json root = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ms"},
      {"otherData", {{"graph", g.name}, {"devices", d.name}, {"makespan_us", s.makespan_us}}}};
  return json_access::dump(root) + "\n";
}

}  // namespace doppler

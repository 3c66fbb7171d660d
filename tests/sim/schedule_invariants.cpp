#include "schedule_invariants.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace doppler::testing {

std::vector<std::string> scheduleViolations(const CostTable& c, const Assignment& a,
                                            const SimResult& r, CostModel model) {
  std::vector<std::string> bad;
  auto fail = [&](const std::string& s) {
    if (bad.size() < 20) bad.push_back(s);
  };
  const double eps = 1e-6 * std::max(1.0, r.schedule.makespan_us);
  const int n = c.nodes(), D = c.devices();
  const auto& nodes = r.schedule.nodes;
  if (static_cast<int>(nodes.size()) != n) return {"schedule has wrong node count"};
  double maxFinish = 0;
  for (int v = 0; v < n; ++v) {
    if (nodes[v].node != v || nodes[v].device != a[v])
      fail("node " + std::to_string(v) + " misplaced");
    if (nodes[v].start_us < -eps || nodes[v].finish_us < nodes[v].start_us - eps)
      fail("node " + std::to_string(v) + " has a negative span");
    maxFinish = std::max(maxFinish, nodes[v].finish_us);
  }
  if (std::abs(maxFinish - r.schedule.makespan_us) > eps) fail("makespan is not the last finish");

  // Arrival of each edge's data at its consumer.
  std::map<int, const TransferSpan*> byEdge;
  for (const TransferSpan& t : r.schedule.transfers) byEdge[t.edge] = &t;
  std::vector<double> readyAt(n, 0);
  for (int e = 0; e < c.edges(); ++e) {
    const int u = c.edgeSrc(e), w = c.edgeDst(e);
    double arrival = nodes[u].finish_us;
    if (a[u] != a[w]) {
      auto it = byEdge.find(e);
      if (it == byEdge.end()) {
        fail("cross-device edge " + std::to_string(e) + " has no transfer");
        continue;
      }
      const TransferSpan& t = *it->second;
      if (t.src_device != a[u] || t.dst_device != a[w])
        fail("transfer " + std::to_string(e) + " on the wrong link");
      if (t.start_us < nodes[u].finish_us - eps)
        fail("transfer " + std::to_string(e) + " starts before its producer ends");
      if (model == CostModel::Reference && std::abs(t.start_us - nodes[u].finish_us) > eps)
        fail("reference transfer " + std::to_string(e) + " does not start when its producer ends");
      arrival = t.finish_us;
    } else if (byEdge.count(e)) {
      fail("same-device edge " + std::to_string(e) + " has a transfer");
    }
    if (nodes[w].start_us < arrival - eps)
      fail("precedence: node " + std::to_string(w) + " starts before edge " + std::to_string(e) +
           " arrives");
    readyAt[w] = std::max(readyAt[w], arrival);
  }
  // Per device: no overlap, work conservation, FIFO by ready time.
  for (int d = 0; d < D; ++d) {
    std::vector<int> on;
    for (int v = 0; v < n; ++v)
      if (a[v] == d) on.push_back(v);
    // Zero-length nodes may share an instant with a real one: order them first.
    std::sort(on.begin(), on.end(), [&](int x, int y) {
      return nodes[x].start_us < nodes[y].start_us ||
             (nodes[x].start_us == nodes[y].start_us && nodes[x].finish_us < nodes[y].finish_us);
    });
    for (size_t i = 1; i < on.size(); ++i)
      if (nodes[on[i]].start_us < nodes[on[i - 1]].finish_us - eps)
        fail("overlap on device " + std::to_string(d) + ": nodes " + std::to_string(on[i - 1]) +
             " and " + std::to_string(on[i]));
    for (int v : on) {
      // The device must be busy during all of [ready, start): find any gap in that window.
      double cursor = readyAt[v];
      for (int x : on) {
        if (nodes[x].finish_us <= cursor + eps) continue;
        if (nodes[x].start_us > cursor + eps) break;
        cursor = std::max(cursor, nodes[x].finish_us);
        if (cursor >= nodes[v].start_us - eps) break;
      }
      if (cursor < nodes[v].start_us - eps)
        fail("work conservation: device " + std::to_string(d) + " idles at " +
             std::to_string(cursor) + " while node " + std::to_string(v) + " is ready");
      for (int w : on)
        if (readyAt[w] < readyAt[v] - eps && nodes[w].start_us > nodes[v].start_us + eps)
          fail("FIFO: node " + std::to_string(w) + " was ready before node " + std::to_string(v) +
               " but started after");
    }
  }
  // Links: one transfer at a time on each directed link.
  if (model == CostModel::Links) {
    std::map<std::pair<int, int>, std::vector<const TransferSpan*>> perLink;
    for (const TransferSpan& t : r.schedule.transfers)
      perLink[{t.src_device, t.dst_device}].push_back(&t);
    for (auto& [link, ts] : perLink) {
      std::sort(ts.begin(), ts.end(), [](auto* x, auto* y) { return x->start_us < y->start_us; });
      for (size_t i = 1; i < ts.size(); ++i)
        if (ts[i]->start_us < ts[i - 1]->finish_us - eps)
          fail("link " + std::to_string(link.first) + "->" + std::to_string(link.second) +
               " carries two transfers at once");
    }
  }
  double busySum = 0;
  for (int d = 0; d < D; ++d) busySum += r.busy_us.at(d);
  double computeSum = 0;
  for (int v = 0; v < n; ++v) computeSum += nodes[v].finish_us - nodes[v].start_us;
  if (std::abs(busySum - computeSum) > eps * n) fail("busy time does not add up");
  return bad;
}

}  // namespace doppler::testing

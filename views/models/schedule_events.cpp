#include "views/models/schedule_events.h"

#include <algorithm>

namespace doppler::views {

ScheduleEvents ScheduleEvents::build(const DataflowGraph& g, const Schedule& s) {
  ScheduleEvents events;
  std::vector<Row>& rows = events.rows;
  rows.reserve(s.nodes.size() + s.transfers.size());
  for (const NodeSpan& n : s.nodes)
    if (n.node >= 0) rows.push_back({n.start_us, n.finish_us, n.node, -1});
  for (size_t i = 0; i < s.transfers.size(); ++i) {
    const TransferSpan& t = s.transfers[i];
    rows.push_back({t.start_us, t.finish_us, g.edge(t.edge).dst, static_cast<int>(i)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.start < b.start || (a.start == b.start && a.transfer < b.transfer);
  });
  return events;
}

}  // namespace doppler::views

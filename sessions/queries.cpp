#include "queries.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "core/common/input_error.h"
#include "core/graph/device_matching.h"
#include "sessions/writer_identity.h"

namespace doppler::sessions {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double valueOrNaN(const Stmt& s, int col) {
  return s.isNull(col) ? kNaN : s.real(col);
}

void fillFiguresAndTags(Db& db, RunInfo& r) {
  Stmt f = db.prepare("SELECT name, value FROM run_figures WHERE run_id = ? ORDER BY name");
  f.bind(1, r.id);
  while (f.step()) r.figures[f.text(0)] = valueOrNaN(f, 1);
  Stmt t = db.prepare("SELECT tag FROM tags WHERE run_id = ? ORDER BY tag");
  t.bind(1, r.id);
  while (t.step()) r.tags.push_back(t.text(0));
}

}  // namespace

std::vector<RunInfo> listRuns(RunStore& store, const RunFilter& filter) {
  auto l = store.lock();
  Db& db = store.db();
  Stmt s = db.prepare(R"sql(
    SELECT r.id, r.kind, r.method, r.params, r.seed, r.status, coalesce(r.error, ''),
           r.graph_id, r.device_set_id, r.parent_id,
           coalesce(g.name, ''), coalesce(g.node_count, 0), coalesce(d.name, ''), coalesce(d.device_count, 0),
           r.started_at, coalesce(r.finished_at, ''),
           coalesce(r.writer_host, ''), coalesce(r.writer_boot, ''), coalesce(r.writer_pid, 0),
           coalesce(r.writer_start, 0)
    FROM runs r LEFT JOIN graphs g ON g.id = r.graph_id LEFT JOIN device_sets d ON d.id = r.device_set_id
    WHERE (?1 = '' OR r.kind = ?1) AND (?2 = '' OR r.method = ?2) AND (?3 = '' OR r.status = ?3)
      AND (?4 = '' OR EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id AND t.tag = ?4))
      AND (?5 IS NULL OR r.graph_id = ?5)
      AND (?6 IS NULL OR r.id IN (SELECT value FROM json_each(?6)))
    ORDER BY r.id DESC LIMIT ?7)sql");
  s.bind(1, filter.kind).bind(2, filter.method).bind(3, filter.status).bind(4, filter.tag);
  s.bind(5, filter.graph_id);
  if (filter.ids.empty())
    s.bindNull(6);
  else
    s.bind(6, nlohmann::json(filter.ids).dump());
  s.bind(7, static_cast<int64_t>(filter.limit > 0 ? filter.limit : -1));
  std::vector<RunInfo> runs;
  while (s.step()) {
    RunInfo r;
    r.id = s.int64(0);
    // Ids are positive and come newest first: anything else is a damaged runs table read
    // read-only (no quick_check on that path), and would list phantom runs.
    if (r.id <= 0 || (!runs.empty() && r.id >= runs.back().id))
      throw DamagedSession(store.path(), "the session is damaged (its run list holds a run " +
                                             std::to_string(r.id) + " out of order); " +
                                             store.recoverHint());
    r.kind = s.text(1);
    r.method = s.text(2);
    r.params = nlohmann::json::parse(s.text(3), nullptr, false);
    if (r.params.is_discarded()) r.params = nlohmann::json::object();
    if (!s.isNull(4)) r.seed = static_cast<uint64_t>(s.int64(4));
    try {
      r.status = parseRunStatus(s.text(5));
    } catch (const InputError&) {
      r.status = RunStatus::Failed;  // a status from a future version: show it as not usable
    }
    r.error = s.text(6);
    r.graph_id = s.optInt64(7);
    r.device_set_id = s.optInt64(8);
    r.parent_id = s.optInt64(9);
    r.graph_name = s.text(10);
    r.node_count = s.integer(11);
    r.device_set_name = s.text(12);
    r.device_count = s.integer(13);
    r.started_at = s.text(14);
    r.finished_at = s.text(15);
    if (r.status == RunStatus::Running && store.readOnly() &&
        writerLiveness({s.text(16), s.text(17), s.int64(18), s.int64(19)}) == Liveness::Gone)
      r.status = RunStatus::Interrupted;
    runs.push_back(std::move(r));
  }
  s.reset();
  std::reverse(runs.begin(), runs.end());
  for (RunInfo& r : runs) fillFiguresAndTags(db, r);
  return runs;
}

RunInfo getRun(RunStore& store, int64_t run) {
  RunFilter f;
  f.ids = {run};
  auto runs = listRuns(store, f);
  if (runs.empty()) store.throwNoSuchRun(run);
  return runs.front();
}

std::vector<SeriesInfo> listSeries(RunStore& store, int64_t run) {
  auto l = store.lock();
  Stmt s = store.db().prepare(R"sql(
    SELECT s.name, count(*), min(m.step), max(m.step),
           (SELECT value FROM metrics WHERE series_id = s.id ORDER BY step DESC LIMIT 1)
    FROM series s JOIN metrics m ON m.series_id = s.id
    WHERE s.run_id = ? GROUP BY s.id ORDER BY s.name)sql");
  s.bind(1, run);
  std::vector<SeriesInfo> out;
  while (s.step()) out.push_back({s.text(0), s.int64(1), s.int64(2), s.int64(3), valueOrNaN(s, 4)});
  return out;
}

Series loadSeries(RunStore& store, int64_t run, std::string_view name) {
  auto l = store.lock();
  Series out;
  out.name = std::string(name);
  Stmt s = store.db().prepare(
      "SELECT m.step, m.value FROM series s JOIN metrics m ON m.series_id = s.id "
      "WHERE s.run_id = ? AND s.name = ? ORDER BY m.step");
  s.bind(1, run).bind(2, name);
  while (s.step()) {
    out.steps.push_back(s.int64(0));
    out.values.push_back(valueOrNaN(s, 1));
  }
  return out;
}

AlignedSeries alignSeries(RunStore& store, std::span<const int64_t> runs, std::string_view name) {
  AlignedSeries out;
  out.name = std::string(name);
  out.runs.assign(runs.begin(), runs.end());
  std::vector<Series> all;
  all.reserve(runs.size());
  for (int64_t r : runs) all.push_back(loadSeries(store, r, name));
  // Union of the (sorted) step lists, then each series walked once against it.
  for (const Series& s : all) {
    std::vector<int64_t> merged;
    merged.reserve(out.steps.size() + s.steps.size());
    std::set_union(out.steps.begin(), out.steps.end(), s.steps.begin(), s.steps.end(),
                   std::back_inserter(merged));
    out.steps.swap(merged);
  }
  for (const Series& s : all) {
    std::vector<double> v(out.steps.size(), kNaN);
    std::size_t j = 0;
    for (std::size_t i = 0; i < out.steps.size() && j < s.steps.size(); ++i)
      if (out.steps[i] == s.steps[j]) v[i] = s.values[j++];
    out.values.push_back(std::move(v));
  }
  return out;
}

PlacementRecord loadPlacement(RunStore& store, int64_t run) {
  auto l = store.lock();
  PlacementRecord p;
  Stmt s = store.db().prepare(
      "SELECT node, node_id, device FROM placements WHERE run_id = ? ORDER BY node");
  s.bind(1, run);
  while (s.step()) p.nodes.push_back({s.integer(0), s.text(1), s.integer(2)});
  Stmt d = store.db().prepare(
      "SELECT step, node, device, sel_prob, plc_prob, sel_candidates, plc_probs FROM decisions "
      "WHERE run_id = ? ORDER BY step");
  d.bind(1, run);
  while (d.step()) {
    Decision x;
    x.step = d.integer(0);
    x.node = d.integer(1);
    x.device = d.integer(2);
    x.sel_prob = d.optReal(3);
    x.plc_prob = d.optReal(4);
    // The two lists are JSON the store wrote; a damaged or foreign file may hold anything there
    // (found by fuzz_session: a number where a list belongs ended the program).
    try {
      if (!d.isNull(5))
        x.sel_candidates =
            nlohmann::json::parse(d.text(5)).get<std::vector<std::pair<int, double>>>();
      if (!d.isNull(6)) x.plc_probs = nlohmann::json::parse(d.text(6)).get<std::vector<double>>();
    } catch (const nlohmann::json::exception& e) {
      throw DamagedSession(store.path(), "run " + std::to_string(run) + ", decision " +
                                             std::to_string(x.step) +
                                             ": the stored record is damaged (" + e.what() + ")");
    }
    p.decisions.push_back(std::move(x));
  }
  return p;
}

PlacementDiff placementDiff(RunStore& store, int64_t a, int64_t b) {
  const RunInfo ra = getRun(store, a), rb = getRun(store, b);
  PlacementDiff diff;
  diff.a = a;
  diff.b = b;
  diff.same_graph = ra.graph_id && ra.graph_id == rb.graph_id;
  const PlacementRecord pa = loadPlacement(store, a), pb = loadPlacement(store, b);
  std::unordered_map<std::string, int> inB;
  for (const NodePlacement& n : pb.nodes) inB[n.node_id] = n.device;
  // The nodes both runs place, with their devices, for the matching.
  std::vector<int> devA, devB;
  for (const NodePlacement& n : pa.nodes)
    if (const auto it = inB.find(n.node_id); it != inB.end()) {
      devA.push_back(n.device);
      devB.push_back(it->second);
    }
  if (ra.device_set_id && rb.device_set_id) {
    const DeviceSet setA = store.loadDeviceSet(*ra.device_set_id);
    const DeviceSet setB =
        *rb.device_set_id == *ra.device_set_id ? setA : store.loadDeviceSet(*rb.device_set_id);
    if (sameDevices(setA, setB)) {
      diff.device_map = matchDevices(setA, devA, devB);
      for (int d = 0; d < static_cast<int>(diff.device_map.size()); ++d)
        diff.devices_matched |= diff.device_map[d] != d;
    }
  }
  auto matched = [&](int device) {
    return device >= 0 && device < static_cast<int>(diff.device_map.size())
               ? diff.device_map[device]
               : device;
  };
  std::set<std::string> seen;
  for (const NodePlacement& n : pa.nodes) {
    seen.insert(n.node_id);
    auto it = inB.find(n.node_id);
    if (it == inB.end()) {
      diff.only_in_a.push_back(n.node_id);
      continue;
    }
    ++diff.compared;
    diff.moved_before_matching += it->second != n.device;
    if (matched(it->second) != n.device) diff.moved.push_back({n.node_id, n.device, it->second});
  }
  for (const NodePlacement& n : pb.nodes)
    if (!seen.count(n.node_id)) diff.only_in_b.push_back(n.node_id);
  return diff;
}

std::vector<TimelineRecord> loadTimelines(RunStore& store, int64_t run) {
  auto l = store.lock();
  Db& db = store.db();
  std::vector<TimelineRecord> out;
  Stmt t = db.prepare("SELECT id, label, makespan_us FROM timelines WHERE run_id = ? ORDER BY id");
  t.bind(1, run);
  while (t.step()) {
    TimelineRecord r;
    r.id = t.int64(0);
    r.label = t.text(1);
    r.makespan_us = valueOrNaN(t, 2);
    out.push_back(std::move(r));
  }
  for (TimelineRecord& r : out) {
    Stmt n = db.prepare(
        "SELECT node, node_id, device, start_us, finish_us FROM node_spans WHERE timeline_id = ? "
        "ORDER BY start_us, node");
    n.bind(1, r.id);
    while (n.step())
      r.nodes.push_back({n.integer(0), n.text(1), n.integer(2), n.real(3), n.real(4)});
    Stmt x = db.prepare(
        "SELECT edge, src_node, dst_node, src_id, dst_id, src_device, dst_device, start_us, "
        "finish_us "
        "FROM transfer_spans WHERE timeline_id = ? ORDER BY edge");
    x.bind(1, r.id);
    while (x.step())
      r.transfers.push_back({x.integer(0), x.integer(1), x.integer(2), x.text(3), x.text(4),
                             x.integer(5), x.integer(6), x.real(7), x.real(8)});
  }
  return out;
}

std::vector<CheckpointInfo> listCheckpoints(RunStore& store, int64_t run) {
  auto l = store.lock();
  Stmt s = store.db().prepare(
      "SELECT id, run_id, step, label, coalesce(path, ''), sha256, bytes, data IS NOT NULL, "
      "created_at "
      "FROM checkpoints WHERE run_id = ? ORDER BY id");
  s.bind(1, run);
  std::vector<CheckpointInfo> out;
  while (s.step())
    out.push_back({s.int64(0), s.int64(1), s.optInt64(2), s.text(3), s.text(4), s.text(5),
                   s.int64(6), s.int64(7) != 0, s.text(8)});
  return out;
}

std::vector<Note> listNotes(RunStore& store, std::optional<int64_t> run) {
  auto l = store.lock();
  Stmt s = store.db().prepare(
      "SELECT id, run_id, text, created_at FROM notes WHERE run_id IS ?1 ORDER BY id");
  s.bind(1, run);
  std::vector<Note> out;
  while (s.step()) out.push_back({s.int64(0), s.optInt64(1), s.text(2), s.text(3)});
  return out;
}

SummaryTable summaryTable(RunStore& store, std::span<const int64_t> runs) {
  SummaryTable t;
  t.runs.assign(runs.begin(), runs.end());
  std::vector<RunInfo> infos;
  std::vector<std::map<std::string, double>> lastValues;
  std::set<std::string> figureNames, seriesNames;
  for (int64_t id : runs) {
    infos.push_back(getRun(store, id));
    for (const auto& [name, v] : infos.back().figures) figureNames.insert(name);
    std::map<std::string, double> last;
    for (const SeriesInfo& s : listSeries(store, id)) {
      last[s.name] = s.last_value;
      seriesNames.insert(s.name);
    }
    lastValues.push_back(std::move(last));
  }
  for (const std::string& name : figureNames) {
    t.rows.push_back(name);
    std::vector<std::optional<double>> row;
    for (const RunInfo& r : infos) {
      auto it = r.figures.find(name);
      row.push_back(it == r.figures.end() ? std::nullopt : std::optional<double>(it->second));
    }
    t.values.push_back(std::move(row));
  }
  for (const std::string& name : seriesNames) {
    t.rows.push_back(name + " (last)");
    std::vector<std::optional<double>> row;
    for (const auto& last : lastValues) {
      auto it = last.find(name);
      row.push_back(it == last.end() ? std::nullopt : std::optional<double>(it->second));
    }
    t.values.push_back(std::move(row));
  }
  return t;
}

}  // namespace doppler::sessions

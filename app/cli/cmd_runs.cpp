// `doppler runs list|show|compare|export|delete|tag|note`: the run store from the command line.
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "cli_common.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "placement_json.h"
#include "run_recording.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"

namespace doppler::cli {
namespace {

using nlohmann::json;
using namespace doppler::sessions;
namespace fs = std::filesystem;

// Opens the store for a `runs` command. An explicit --db that does not exist is an error (a typo
// must not create an empty session); the default session is created on first use. Reading
// commands fall back to a read-only open where the file or its directory cannot be written.
std::unique_ptr<RunStore> openStore(const std::string& db, bool write) {
  const std::string path = resolveDbPath(db);
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (!db.empty() && !exists) throw InputError(path, "--db", "no such file");
  OpenOptions o;
  o.mode = exists ? OpenMode::ReadWriteExisting : OpenMode::ReadWrite;
  if (!write && exists) {
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    if (::access(path.c_str(), W_OK) != 0 || ::access(dir.c_str(), W_OK) != 0)
      o.mode = OpenMode::ReadOnly;
  }
  return std::make_unique<RunStore>(path, o);
}

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exactly
  return std::string(buf, res.ptr);
}

std::string shortNum(double v) {
  if (std::isnan(v)) return "nan";
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// "2025-01-02T03:04:05.678Z" -> "2025-01-02 03:04:05"
std::string shortTime(const std::string& iso) {
  if (iso.size() < 19) return iso;
  std::string t = iso.substr(0, 19);
  t[10] = ' ';
  return t;
}

json figuresJson(const std::map<std::string, double>& f) {
  json out = json::object();
  for (const auto& [k, v] : f) out[k] = std::isnan(v) ? json() : json(v);
  return out;
}

json runJson(const RunInfo& r) {
  json j = {{"id", r.id},
            {"kind", r.kind},
            {"method", r.method},
            {"status", toString(r.status)},
            {"params", r.params},
            {"seed", r.seed ? json(*r.seed) : json()},
            {"graph",
             r.graph_id ? json{{"id", *r.graph_id}, {"name", r.graph_name}, {"nodes", r.node_count}}
                        : json()},
            {"devices", r.device_set_id ? json{{"id", *r.device_set_id},
                                               {"name", r.device_set_name},
                                               {"count", r.device_count}}
                                        : json()},
            {"parent_id", r.parent_id ? json(*r.parent_id) : json()},
            {"started_at", r.started_at},
            {"finished_at", r.finished_at.empty() ? json() : json(r.finished_at)},
            {"figures", figuresJson(r.figures)},
            {"tags", r.tags}};
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

json placementJson(const PlacementRecord& p) {
  json nodes = json::array(), decisions = json::array();
  for (const NodePlacement& n : p.nodes)
    nodes.push_back({{"node", n.node_id}, {"index", n.node}, {"device", n.device}});
  for (const Decision& d : p.decisions) {
    json x = {{"step", d.step}, {"node", d.node}, {"device", d.device}};
    if (d.sel_prob) x["sel_prob"] = *d.sel_prob;
    if (d.plc_prob) x["plc_prob"] = *d.plc_prob;
    if (!d.sel_candidates.empty()) x["sel_candidates"] = d.sel_candidates;
    if (!d.plc_probs.empty()) x["plc_probs"] = d.plc_probs;
    decisions.push_back(x);
  }
  return {{"nodes", nodes}, {"decisions", decisions}};
}

json timelineJson(const TimelineRecord& t) {
  json nodes = json::array(), transfers = json::array();
  for (const NodeSpanRecord& n : t.nodes)
    nodes.push_back({{"node", n.node_id},
                     {"device", n.device},
                     {"start_us", n.start_us},
                     {"finish_us", n.finish_us}});
  for (const TransferRecord& x : t.transfers)
    transfers.push_back({{"src", x.src_id},
                         {"dst", x.dst_id},
                         {"src_device", x.src_device},
                         {"dst_device", x.dst_device},
                         {"start_us", x.start_us},
                         {"finish_us", x.finish_us}});
  return {{"label", t.label},
          {"makespan_us", t.makespan_us},
          {"schedule", nodes},
          {"transfers", transfers}};
}

json checkpointsJson(const std::vector<CheckpointInfo>& cps) {
  json out = json::array();
  for (const CheckpointInfo& c : cps)
    out.push_back({{"id", c.id},
                   {"step", c.step ? json(*c.step) : json()},
                   {"label", c.label},
                   {"path", c.path.empty() ? json() : json(c.path)},
                   {"sha256", c.sha256},
                   {"bytes", c.bytes},
                   {"stored_in_session", c.has_blob},
                   {"created_at", c.created_at}});
  return out;
}

json notesJson(const std::vector<Note>& notes) {
  json out = json::array();
  for (const Note& n : notes)
    out.push_back({{"id", n.id}, {"text", n.text}, {"created_at", n.created_at}});
  return out;
}

json diffJson(const PlacementDiff& d) {
  json moved = json::array();
  for (const MovedNode& m : d.moved)
    moved.push_back({{"node", m.node_id}, {"from", m.from}, {"to", m.to}});
  return {{"a", d.a},
          {"b", d.b},
          {"same_graph", d.same_graph},
          {"compared", d.compared},
          {"moved", moved},
          {"only_in_a", d.only_in_a},
          {"only_in_b", d.only_in_b}};
}

// Pads columns to their widest cell.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::ostringstream s;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s << line << "\n";
  }
  return s.str();
}

std::string joined(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string figure(const RunInfo& r, const char* name) {
  auto it = r.figures.find(name);
  return it == r.figures.end() ? "-" : shortNum(it->second);
}

// --- list ---------------------------------------------------------------------------------------

struct ListArgs {
  std::string db;
  RunFilter filter;
  bool json = false;
};

void runList(const ListArgs& a) {
  if (!a.filter.kind.empty()) checkRunKind(a.filter.kind);
  if (!a.filter.status.empty()) parseRunStatus(a.filter.status);
  auto store = openStore(a.db, false);
  const auto runs = listRuns(*store, a.filter);
  if (a.json) {
    json arr = json::array();
    for (const RunInfo& r : runs) arr.push_back(runJson(r));
    writeOutput("", dump({{"db", store->path()}, {"runs", arr}}));
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"id", "kind", "method", "status", "started", "graph", "devices", "makespan_us", "tags"}};
  for (const RunInfo& r : runs)
    rows.push_back(
        {std::to_string(r.id), r.kind, r.method, toString(r.status), shortTime(r.started_at),
         r.graph_name.empty() ? "-" : r.graph_name,
         r.device_set_id ? r.device_set_name + " (" + std::to_string(r.device_count) + ")" : "-",
         figure(r, "makespan_us"), joined(r.tags, ",")});
  writeOutput("", runs.empty() ? "no runs in " + store->path() + "\n" : table(rows));
}

// --- show ---------------------------------------------------------------------------------------

void runShow(const std::string& db, int64_t id, bool asJson) {
  auto store = openStore(db, false);
  const RunInfo r = getRun(*store, id);
  const auto series = listSeries(*store, id);
  const PlacementRecord placement = loadPlacement(*store, id);
  const auto timelines = loadTimelines(*store, id);
  const auto checkpoints = listCheckpoints(*store, id);
  const auto notes = listNotes(*store, id);
  std::map<int, int> perDevice;
  for (const NodePlacement& n : placement.nodes) ++perDevice[n.device];
  if (asJson) {
    json j = runJson(r);
    json s = json::array();
    for (const SeriesInfo& x : series)
      s.push_back({{"name", x.name},
                   {"points", x.points},
                   {"first_step", x.first_step},
                   {"last_step", x.last_step},
                   {"last_value", std::isnan(x.last_value) ? json() : json(x.last_value)}});
    j["series"] = s;
    json per = json::object();
    for (auto [dev, n] : perDevice) per[std::to_string(dev)] = n;
    j["placement"] = {{"nodes", placement.nodes.size()},
                      {"decisions", placement.decisions.size()},
                      {"per_device", per}};
    json t = json::array();
    for (const TimelineRecord& x : timelines)
      t.push_back({{"label", x.label},
                   {"makespan_us", x.makespan_us},
                   {"nodes", x.nodes.size()},
                   {"transfers", x.transfers.size()}});
    j["timelines"] = t;
    j["checkpoints"] = checkpointsJson(checkpoints);
    j["notes"] = notesJson(notes);
    j["db"] = store->path();
    writeOutput("", dump(j));
    return;
  }
  std::ostringstream s;
  s << "run " << r.id << "  " << r.kind << "  " << r.method << "  " << toString(r.status) << "\n";
  if (!r.error.empty()) s << "error        " << r.error << "\n";
  s << "started      " << shortTime(r.started_at);
  if (!r.finished_at.empty()) s << "   finished " << shortTime(r.finished_at);
  s << "\n";
  if (r.graph_id) s << "graph        " << r.graph_name << " (" << r.node_count << " nodes)\n";
  if (r.device_set_id) s << "devices      " << r.device_set_name << " (" << r.device_count << ")\n";
  if (r.seed) s << "seed         " << *r.seed << "\n";
  if (r.parent_id) s << "parent       run " << *r.parent_id << "\n";
  s << "params       " << r.params.dump() << "\n";
  if (!r.figures.empty()) s << "figures\n";
  for (const auto& [name, v] : r.figures)
    s << "  " << std::left << std::setw(22) << name << " " << shortNum(v) << "\n";
  if (!r.tags.empty()) s << "tags         " << joined(r.tags) << "\n";
  for (const SeriesInfo& x : series)
    s << "series       " << x.name << ": " << x.points << " points, steps " << x.first_step << ".."
      << x.last_step << ", last " << shortNum(x.last_value) << "\n";
  if (!placement.nodes.empty()) {
    s << "placement    " << placement.nodes.size() << " nodes:";
    for (auto [dev, n] : perDevice) s << " device " << dev << ": " << n << ";";
    if (!placement.decisions.empty())
      s << " decision order of " << placement.decisions.size() << " steps";
    s << "\n";
  }
  for (const TimelineRecord& t : timelines)
    s << "timeline     " << t.label << ": makespan " << shortNum(t.makespan_us) << " us, "
      << t.nodes.size() << " nodes, " << t.transfers.size() << " transfers\n";
  for (const CheckpointInfo& c : checkpoints)
    s << "checkpoint   " << c.id << (c.step ? " step " + std::to_string(*c.step) : "") << " "
      << (c.path.empty() ? "(in session)" : c.path) << " " << c.bytes << " bytes sha256 "
      << c.sha256 << "\n";
  for (const Note& n : notes)
    s << "note         " << shortTime(n.created_at) << "  " << n.text << "\n";
  writeOutput("", s.str());
}

// --- compare ------------------------------------------------------------------------------------

struct CompareArgs {
  std::string db;
  std::vector<int64_t> ids;
  std::string series;
  bool json = false;
};

void runCompare(const CompareArgs& a) {
  if (a.ids.size() < 2) throw InputError("", "runs compare", "give at least two run ids");
  auto store = openStore(a.db, false);
  std::vector<RunInfo> runs;
  for (int64_t id : a.ids) runs.push_back(getRun(*store, id));
  const SummaryTable summary = summaryTable(*store, a.ids);
  std::vector<PlacementDiff> diffs;
  for (std::size_t i = 1; i < a.ids.size(); ++i)
    diffs.push_back(placementDiff(*store, a.ids[0], a.ids[i]));
  if (a.json) {
    json rs = json::array(), rows = json::array(), ds = json::array();
    for (const RunInfo& r : runs) rs.push_back(runJson(r));
    for (std::size_t i = 0; i < summary.rows.size(); ++i) {
      json vals = json::array();
      for (const auto& v : summary.values[i])
        vals.push_back(v && !std::isnan(*v) ? json(*v) : json());
      rows.push_back({{"name", summary.rows[i]}, {"values", vals}});
    }
    for (const PlacementDiff& d : diffs) ds.push_back(diffJson(d));
    json out = {
        {"runs", rs}, {"summary", {{"runs", a.ids}, {"rows", rows}}}, {"placement_diffs", ds}};
    if (!a.series.empty()) {
      const AlignedSeries s = alignSeries(*store, a.ids, a.series);
      json vals = json::array();
      for (const auto& v : s.values) {
        json col = json::array();
        for (double x : v) col.push_back(std::isnan(x) ? json() : json(x));
        vals.push_back(col);
      }
      out["series"] = {{"name", s.name}, {"runs", s.runs}, {"steps", s.steps}, {"values", vals}};
    }
    writeOutput("", dump(out));
    return;
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const RunInfo& r : runs) header.push_back("run " + std::to_string(r.id));
  rows.push_back(header);
  auto row = [&](const std::string& name, auto cell) {
    std::vector<std::string> line = {name};
    for (const RunInfo& r : runs) line.push_back(cell(r));
    rows.push_back(line);
  };
  row("kind", [](const RunInfo& r) { return r.kind; });
  row("method", [](const RunInfo& r) { return r.method; });
  row("status", [](const RunInfo& r) { return std::string(toString(r.status)); });
  row("graph",
      [](const RunInfo& r) { return r.graph_name.empty() ? std::string("-") : r.graph_name; });
  row("devices", [](const RunInfo& r) {
    return r.device_set_id ? r.device_set_name + " (" + std::to_string(r.device_count) + ")"
                           : std::string("-");
  });
  row("seed", [](const RunInfo& r) { return r.seed ? std::to_string(*r.seed) : std::string("-"); });
  row("started", [](const RunInfo& r) { return shortTime(r.started_at); });
  for (std::size_t i = 0; i < summary.rows.size(); ++i) {
    std::vector<std::string> line = {summary.rows[i]};
    for (const auto& v : summary.values[i]) line.push_back(v ? shortNum(*v) : "-");
    rows.push_back(line);
  }
  std::ostringstream s;
  s << table(rows);
  for (const PlacementDiff& d : diffs) {
    s << "\nplacement run " << d.a << " -> run " << d.b << ": " << d.moved.size() << " of "
      << d.compared << " nodes moved"
      << (d.same_graph ? "" : " (different graphs: nodes matched by id)") << "\n";
    std::vector<std::vector<std::string>> moved = {
        {"  node", "run " + std::to_string(d.a), "run " + std::to_string(d.b)}};
    for (const MovedNode& m : d.moved)
      moved.push_back({"  " + m.node_id, std::to_string(m.from), std::to_string(m.to)});
    if (!d.moved.empty()) s << table(moved);
    if (!d.only_in_a.empty()) s << "  only in run " << d.a << ": " << joined(d.only_in_a) << "\n";
    if (!d.only_in_b.empty()) s << "  only in run " << d.b << ": " << joined(d.only_in_b) << "\n";
  }
  writeOutput("", s.str());
}

// --- export -------------------------------------------------------------------------------------

struct ExportArgs {
  std::string db;
  std::vector<int64_t> ids;
  std::string format;
  std::string table = "placement";
  std::string out;
};

// RFC 4180: quote a field holding a comma, quote or line break; double its quotes.
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csvRow(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csvField(fields[i]);
  return line + "\n";
}

std::string optNum(const std::optional<double>& v) {
  return v ? num(*v) : "";
}

std::string exportCsv(RunStore& store, const std::vector<int64_t>& ids, const std::string& what) {
  std::string out;
  if (what == "placement") {
    out += csvRow({"run_id", "node", "node_index", "device", "decision_step"});
    for (int64_t id : ids) {
      const PlacementRecord p = loadPlacement(store, id);
      std::map<int, int> stepOf;
      for (const Decision& d : p.decisions) stepOf[d.node] = d.step;
      for (const NodePlacement& n : p.nodes) {
        auto it = stepOf.find(n.node);
        out +=
            csvRow({std::to_string(id), n.node_id, std::to_string(n.node), std::to_string(n.device),
                    it == stepOf.end() ? "" : std::to_string(it->second)});
      }
    }
  } else if (what == "decisions") {
    out += csvRow({"run_id", "step", "node", "node_index", "device", "sel_prob", "plc_prob"});
    for (int64_t id : ids) {
      const PlacementRecord p = loadPlacement(store, id);
      std::map<int, std::string> idOf;
      for (const NodePlacement& n : p.nodes) idOf[n.node] = n.node_id;
      for (const Decision& d : p.decisions)
        out += csvRow({std::to_string(id), std::to_string(d.step), idOf[d.node],
                       std::to_string(d.node), std::to_string(d.device), optNum(d.sel_prob),
                       optNum(d.plc_prob)});
    }
  } else if (what == "timeline") {
    out += csvRow({"run_id", "timeline", "node", "device", "start_us", "finish_us"});
    for (int64_t id : ids)
      for (const TimelineRecord& t : loadTimelines(store, id))
        for (const NodeSpanRecord& n : t.nodes)
          out += csvRow({std::to_string(id), t.label, n.node_id, std::to_string(n.device),
                         num(n.start_us), num(n.finish_us)});
  } else if (what == "transfers") {
    out += csvRow(
        {"run_id", "timeline", "src", "dst", "src_device", "dst_device", "start_us", "finish_us"});
    for (int64_t id : ids)
      for (const TimelineRecord& t : loadTimelines(store, id))
        for (const TransferRecord& x : t.transfers)
          out +=
              csvRow({std::to_string(id), t.label, x.src_id, x.dst_id, std::to_string(x.src_device),
                      std::to_string(x.dst_device), num(x.start_us), num(x.finish_us)});
  } else if (what == "metrics") {
    out += csvRow({"run_id", "series", "step", "value"});
    for (int64_t id : ids)
      for (const SeriesInfo& info : listSeries(store, id)) {
        const Series s = loadSeries(store, id, info.name);
        for (std::size_t i = 0; i < s.steps.size(); ++i)
          out += csvRow({std::to_string(id), s.name, std::to_string(s.steps[i]), num(s.values[i])});
      }
  } else if (what == "figures") {
    out += csvRow({"run_id", "name", "value"});
    for (int64_t id : ids)
      for (const auto& [name, v] : getRun(store, id).figures)
        out += csvRow({std::to_string(id), name, num(v)});
  } else {
    throw InputError("", "--table",
                     "unknown table '" + what +
                         "' (known: placement, decisions, timeline, transfers, metrics, figures)");
  }
  return out;
}

json exportRunJson(RunStore& store, int64_t id) {
  const RunInfo r = getRun(store, id);
  json j = runJson(r);
  json series = json::object();
  for (const SeriesInfo& info : listSeries(store, id)) {
    const Series s = loadSeries(store, id, info.name);
    json vals = json::array();
    for (double v : s.values) vals.push_back(std::isnan(v) ? json() : json(v));
    series[s.name] = {{"steps", s.steps}, {"values", vals}};
  }
  j["series"] = series;
  j["placement"] = placementJson(loadPlacement(store, id));
  json tl = json::array();
  for (const TimelineRecord& t : loadTimelines(store, id)) tl.push_back(timelineJson(t));
  j["timelines"] = tl;
  j["checkpoints"] = checkpointsJson(listCheckpoints(store, id));
  j["notes"] = notesJson(listNotes(store, id));
  // The inputs themselves, so an export can be simulated again without the session.
  if (r.graph_id) j["graph_json"] = json::parse(writeGraphJson(store.loadGraph(*r.graph_id), -1));
  if (r.device_set_id)
    j["device_set_json"] =
        json::parse(writeDeviceSetJson(store.loadDeviceSet(*r.device_set_id), -1));
  return j;
}

void runExport(const ExportArgs& a) {
  std::string format = a.format;
  if (format.empty()) format = fs::path(a.out).extension() == ".csv" ? "csv" : "json";
  if (format != "csv" && format != "json")
    throw InputError("", "--format", "expected csv or json, got '" + format + "'");
  auto store = openStore(a.db, false);
  for (int64_t id : a.ids) store->requireRun(id);
  if (format == "csv") {
    writeOutput(a.out, exportCsv(*store, a.ids, a.table));
    return;
  }
  json runs = json::array();
  for (int64_t id : a.ids) runs.push_back(exportRunJson(*store, id));
  writeOutput(a.out, dump({{"format", "doppler-runs/1"}, {"runs", runs}}));
}

// --- delete, tag, note --------------------------------------------------------------------------

void runDelete(const std::string& db, const std::vector<int64_t>& ids) {
  auto store = openStore(db, true);
  for (int64_t id : ids) store->requireRun(id);  // all or none
  std::ostringstream s;
  for (int64_t id : ids) {
    store->deleteRun(id);
    s << "deleted run " << id << "\n";
  }
  writeOutput("", s.str());
}

void runTag(const std::string& db, int64_t id, const std::vector<std::string>& tags, bool remove) {
  auto store = openStore(db, true);
  store->requireRun(id);
  for (const std::string& t : tags) {
    if (t.empty()) throw InputError("", "runs tag", "a tag cannot be empty");
    if (remove)
      store->removeTag(id, t);
    else
      store->addTag(id, t);
  }
  const RunInfo r = getRun(*store, id);
  writeOutput("", "run " + std::to_string(id) +
                      " tags: " + (r.tags.empty() ? "(none)" : joined(r.tags)) + "\n");
}

void runNote(const std::string& db, int64_t id, const std::string& text) {
  auto store = openStore(db, true);
  const int64_t note = store->addNote(id, text);
  writeOutput("", "note " + std::to_string(note) + " added to run " + std::to_string(id) + "\n");
}

}  // namespace

void addRunsCommands(CLI::App& app) {
  CLI::App* runs =
      app.add_subcommand("runs", "Recorded runs: list, show, compare, export, delete, tag, note");
  runs->require_subcommand(1);

  auto la = std::make_shared<ListArgs>();
  CLI::App* list = runs->add_subcommand("list", "List recorded runs, oldest first");
  addDbOption(*list, la->db);
  list->add_option("--kind", la->filter.kind,
                   "Only runs of this kind (place, simulate, train, eval, exec, fleet)");
  list->add_option("--method", la->filter.method, "Only runs of this method");
  list->add_option("--tag", la->filter.tag, "Only runs with this tag");
  list->add_option("--status", la->filter.status, "Only runs with this status");
  list->add_option("--limit", la->filter.limit, "Only the newest N runs");
  list->add_flag("--json", la->json, "Print one JSON object");
  list->callback([la] { runList(*la); });

  struct ShowArgs {
    std::string db;
    int64_t id = 0;
    bool json = false;
  };
  auto sa = std::make_shared<ShowArgs>();
  CLI::App* show = runs->add_subcommand(
      "show", "Show one run: parameters, figures, series, placement, timelines");
  addDbOption(*show, sa->db);
  show->add_option("id", sa->id, "Run id")->required();
  show->add_flag("--json", sa->json, "Print one JSON object");
  show->callback([sa] { runShow(sa->db, sa->id, sa->json); });

  auto ca = std::make_shared<CompareArgs>();
  CLI::App* compare = runs->add_subcommand(
      "compare", "Runs side by side: summary figures, and which nodes moved between placements");
  addDbOption(*compare, ca->db);
  compare
      ->add_option("ids", ca->ids, "Two or more run ids (placements are compared with the first)")
      ->required();
  compare->add_option("--series", ca->series,
                      "With --json: also this metric series, aligned on steps");
  compare->add_flag("--json", ca->json, "Print one JSON object");
  compare->callback([ca] { runCompare(*ca); });

  auto ea = std::make_shared<ExportArgs>();
  CLI::App* exp =
      runs->add_subcommand("export", "Write runs as JSON (everything) or CSV (one table)");
  addDbOption(*exp, ea->db);
  exp->add_option("ids", ea->ids, "Run ids")->required();
  exp->add_option("--format", ea->format,
                  "csv or json (default: from --out's extension, else json)");
  exp->add_option("--table", ea->table,
                  "CSV: placement, decisions, timeline, transfers, metrics or figures")
      ->capture_default_str();
  exp->add_option("--out,-o", ea->out, "File to write (stdout if omitted)");
  exp->callback([ea] { runExport(*ea); });

  struct IdsArgs {
    std::string db;
    std::vector<int64_t> ids;
  };
  auto da = std::make_shared<IdsArgs>();
  CLI::App* del = runs->add_subcommand("delete", "Delete runs and everything recorded under them");
  addDbOption(*del, da->db);
  del->add_option("ids", da->ids, "Run ids")->required();
  del->callback([da] { runDelete(da->db, da->ids); });

  struct TagArgs {
    std::string db;
    int64_t id = 0;
    std::vector<std::string> tags;
    bool remove = false;
  };
  auto ta = std::make_shared<TagArgs>();
  CLI::App* tag = runs->add_subcommand("tag", "Add tags to a run (or remove them with --remove)");
  addDbOption(*tag, ta->db);
  tag->add_option("id", ta->id, "Run id")->required();
  tag->add_option("tags", ta->tags, "Tags")->required();
  tag->add_flag("--remove", ta->remove, "Remove the tags instead");
  tag->callback([ta] { runTag(ta->db, ta->id, ta->tags, ta->remove); });

  struct NoteArgs {
    std::string db;
    int64_t id = 0;
    std::string text;
  };
  auto na = std::make_shared<NoteArgs>();
  CLI::App* note = runs->add_subcommand("note", "Attach a free-form note to a run");
  addDbOption(*note, na->db);
  note->add_option("id", na->id, "Run id")->required();
  note->add_option("text", na->text, "The note")->required();
  note->callback([na] { runNote(na->db, na->id, na->text); });
}

}  // namespace doppler::cli

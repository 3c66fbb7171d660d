// `doppler runs list|show|compare|delete|tag|note`: the run store from the command line
// (`runs export` is in cmd_runs_export.cpp).
#include <cmath>
#include <map>
#include <sstream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/graph/json_access.h"
#include "run_recording.h"
#include "runs_common.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

using nlohmann::json;
using namespace doppler::sessions;

json diffJson(const PlacementDiff& d) {
  json moved = json::array();
  for (const MovedNode& m : d.moved)
    moved.push_back({{"node", m.node_id}, {"from", m.from}, {"to", m.to}});
  return {{"a", d.a},
          {"b", d.b},
          {"same_graph", d.same_graph},
          {"compared", d.compared},
          {"moved", moved},
          {"moved_before_matching", d.moved_before_matching},
          {"device_map", d.device_map},
          {"only_in_a", d.only_in_a},
          {"only_in_b", d.only_in_b}};
}

std::string figure(const RunInfo& r, const char* name) {
  auto it = r.figures.find(name);
  return it == r.figures.end() ? "-" : shortNumber(it->second);
}

// --- list ---------------------------------------------------------------------------------------

struct ListArgs {
  std::string db;
  RunFilter filter;
  OutputArgs output;
};

std::string listText(const std::vector<RunInfo>& runs) {
  std::vector<std::vector<std::string>> rows = {
      {"id", "kind", "method", "status", "started", "graph", "devices", "makespan_us", "tags"}};
  for (const RunInfo& r : runs)
    rows.push_back(
        {std::to_string(r.id), r.kind, r.method, toString(r.status), shortTime(r.started_at),
         r.graph_name.empty() ? "-" : r.graph_name,
         r.device_set_id ? r.device_set_name + " (" + std::to_string(r.device_count) + ")" : "-",
         figure(r, "makespan_us"), joined(r.tags, ",")});
  return textTable(rows);
}

void runList(const ListArgs& a) {
  if (!a.filter.kind.empty()) checkRunKind(a.filter.kind);
  if (!a.filter.status.empty()) parseRunStatus(a.filter.status);
  auto store = openStore(a.db, false);
  const auto runs = listRuns(*store, a.filter);
  writeResult(
      a.output,
      [&] {
        json arr = json::array();
        for (const RunInfo& r : runs) arr.push_back(runJson(r));
        return json{{"db", store->path()}, {"runs", arr}};
      },
      [&] { return runs.empty() ? "no runs in " + store->path() + "\n" : listText(runs); });
}

// --- show ---------------------------------------------------------------------------------------

struct ShowArgs {
  std::string db;
  int64_t id = 0;
  OutputArgs output;
};

// Everything `runs show` tells about one run.
struct RunDetails {
  RunInfo run;
  std::vector<SeriesInfo> series;
  PlacementRecord placement;
  std::vector<TimelineRecord> timelines;
  std::vector<CheckpointInfo> checkpoints;
  std::vector<Note> notes;
  std::map<int, int> per_device;  // nodes placed on each device
  std::string db;
};

RunDetails loadDetails(RunStore& store, int64_t id) {
  RunDetails d;
  d.run = getRun(store, id);
  d.series = listSeries(store, id);
  d.placement = loadPlacement(store, id);
  d.timelines = loadTimelines(store, id);
  d.checkpoints = listCheckpoints(store, id);
  d.notes = listNotes(store, id);
  for (const NodePlacement& n : d.placement.nodes) ++d.per_device[n.device];
  d.db = store.path();
  return d;
}

json showJson(const RunDetails& d) {
  json j = runJson(d.run);
  json s = json::array();
  for (const SeriesInfo& x : d.series)
    s.push_back({{"name", x.name},
                 {"points", x.points},
                 {"first_step", x.first_step},
                 {"last_step", x.last_step},
                 {"last_value", std::isnan(x.last_value) ? json() : json(x.last_value)}});
  j["series"] = s;
  json per = json::object();
  for (auto [dev, n] : d.per_device) per[std::to_string(dev)] = n;
  j["placement"] = {{"nodes", d.placement.nodes.size()},
                    {"decisions", d.placement.decisions.size()},
                    {"per_device", per}};
  json t = json::array();
  for (const TimelineRecord& x : d.timelines)
    t.push_back({{"label", x.label},
                 {"makespan_us", x.makespan_us},
                 {"nodes", x.nodes.size()},
                 {"transfers", x.transfers.size()}});
  j["timelines"] = t;
  j["checkpoints"] = checkpointsJson(d.checkpoints);
  j["notes"] = notesJson(d.notes);
  j["db"] = d.db;
  return j;
}

std::string showText(const RunDetails& d) {
  const RunInfo& r = d.run;
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
  s << "params       " << json_access::dump(r.params) << "\n";
  if (!r.figures.empty()) {
    std::vector<std::vector<std::string>> figures;
    for (const auto& [name, v] : r.figures) figures.push_back({"  " + name, shortNumber(v)});
    s << "figures\n" << textTable(figures);
  }
  if (!r.tags.empty()) s << "tags         " << joined(r.tags) << "\n";
  for (const SeriesInfo& x : d.series)
    s << "series       " << x.name << ": " << x.points << " points, steps " << x.first_step << ".."
      << x.last_step << ", last " << shortNumber(x.last_value) << "\n";
  if (!d.placement.nodes.empty()) {
    s << "placement    " << d.placement.nodes.size() << " nodes:";
    for (auto [dev, n] : d.per_device) s << " device " << dev << ": " << n << ";";
    if (!d.placement.decisions.empty())
      s << " decision order of " << d.placement.decisions.size() << " steps";
    s << "\n";
  }
  for (const TimelineRecord& t : d.timelines)
    s << "timeline     " << t.label << ": makespan " << shortNumber(t.makespan_us) << " us, "
      << t.nodes.size() << " nodes, " << t.transfers.size() << " transfers\n";
  for (const CheckpointInfo& c : d.checkpoints)
    s << "checkpoint   " << c.id << (c.step ? " step " + std::to_string(*c.step) : "") << " "
      << (c.path.empty() ? "(in session)" : c.path) << " " << c.bytes << " bytes sha256 "
      << c.sha256 << "\n";
  for (const Note& n : d.notes)
    s << "note         " << shortTime(n.created_at) << "  " << n.text << "\n";
  return s.str();
}

void runShow(const ShowArgs& a) {
  auto store = openStore(a.db, false);
  const RunDetails details = loadDetails(*store, a.id);
  writeResult(
      a.output, [&] { return showJson(details); }, [&] { return showText(details); });
}

// --- compare ------------------------------------------------------------------------------------

struct CompareArgs {
  std::string db;
  std::vector<int64_t> ids;
  std::string series;
  OutputArgs output;
};

// Runs side by side: their rows, the summary figures, and each placement against the first.
struct Comparison {
  std::vector<int64_t> ids;
  std::vector<RunInfo> runs;
  SummaryTable summary;
  std::vector<PlacementDiff> diffs;
};

// With `series` (--series), also that metric series aligned on steps.
json compareJson(const Comparison& c, RunStore& store, const std::string& series) {
  json rs = json::array(), rows = json::array(), ds = json::array();
  for (const RunInfo& r : c.runs) rs.push_back(runJson(r));
  for (std::size_t i = 0; i < c.summary.rows.size(); ++i) {
    json vals = json::array();
    for (const auto& v : c.summary.values[i])
      vals.push_back(v && !std::isnan(*v) ? json(*v) : json());
    rows.push_back({{"name", c.summary.rows[i]}, {"values", vals}});
  }
  for (const PlacementDiff& d : c.diffs) ds.push_back(diffJson(d));
  json out = {
      {"runs", rs}, {"summary", {{"runs", c.ids}, {"rows", rows}}}, {"placement_diffs", ds}};
  if (!series.empty()) {
    const AlignedSeries aligned = alignSeries(store, c.ids, series);
    json vals = json::array();
    for (const auto& v : aligned.values) {
      json col = json::array();
      for (double x : v) col.push_back(std::isnan(x) ? json() : json(x));
      vals.push_back(col);
    }
    out["series"] = {
        {"name", aligned.name}, {"runs", aligned.runs}, {"steps", aligned.steps}, {"values", vals}};
  }
  return out;
}

std::string compareText(const Comparison& c) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const RunInfo& r : c.runs) header.push_back("run " + std::to_string(r.id));
  rows.push_back(header);
  auto row = [&](const std::string& name, auto cell) {
    std::vector<std::string> line = {name};
    for (const RunInfo& r : c.runs) line.push_back(cell(r));
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
  for (std::size_t i = 0; i < c.summary.rows.size(); ++i) {
    std::vector<std::string> line = {c.summary.rows[i]};
    for (const auto& v : c.summary.values[i]) line.push_back(v ? shortNumber(*v) : "-");
    rows.push_back(line);
  }
  std::ostringstream s;
  s << textTable(rows);
  for (const PlacementDiff& d : c.diffs) {
    s << "\nplacement run " << d.a << " -> run " << d.b << ": " << d.moved.size() << " of "
      << d.compared << " nodes moved"
      << (d.devices_matched ? " after matching identical devices (" +
                                  std::to_string(d.moved_before_matching) + " before)"
                            : std::string())
      << (d.same_graph ? "" : " (different graphs: nodes matched by id)") << "\n";
    std::vector<std::vector<std::string>> moved = {
        {"  node", "run " + std::to_string(d.a), "run " + std::to_string(d.b)}};
    for (const MovedNode& m : d.moved)
      moved.push_back({"  " + m.node_id, std::to_string(m.from), std::to_string(m.to)});
    if (!d.moved.empty()) s << textTable(moved);
    if (!d.only_in_a.empty()) s << "  only in run " << d.a << ": " << joined(d.only_in_a) << "\n";
    if (!d.only_in_b.empty()) s << "  only in run " << d.b << ": " << joined(d.only_in_b) << "\n";
  }
  return s.str();
}

void runCompare(const CompareArgs& a) {
  if (a.ids.size() < 2) throw InputError("", "runs compare", "give at least two run ids");
  auto store = openStore(a.db, false);
  Comparison c;
  c.ids = a.ids;
  for (int64_t id : a.ids) c.runs.push_back(getRun(*store, id));
  c.summary = summaryTable(*store, a.ids);
  for (std::size_t i = 1; i < a.ids.size(); ++i)
    c.diffs.push_back(placementDiff(*store, a.ids[0], a.ids[i]));
  writeResult(
      a.output, [&] { return compareJson(c, *store, a.series); }, [&] { return compareText(c); });
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
  addOutputOptions(*list, la->output);
  list->callback([la] { runList(*la); });

  auto sa = std::make_shared<ShowArgs>();
  CLI::App* show = runs->add_subcommand(
      "show", "Show one run: parameters, figures, series, placement, timelines");
  addDbOption(*show, sa->db);
  show->add_option("id", sa->id, "Run id")->required();
  addOutputOptions(*show, sa->output);
  show->callback([sa] { runShow(*sa); });

  auto ca = std::make_shared<CompareArgs>();
  CLI::App* compare = runs->add_subcommand(
      "compare", "Runs side by side: summary figures, and which nodes moved between placements");
  addDbOption(*compare, ca->db);
  compare
      ->add_option("ids", ca->ids, "Two or more run ids (placements are compared with the first)")
      ->required();
  compare->add_option("--series", ca->series,
                      "With --json: also this metric series, aligned on steps");
  addOutputOptions(*compare, ca->output);
  compare->callback([ca] { runCompare(*ca); });

  addRunsExportCommand(*runs);

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

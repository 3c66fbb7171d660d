// `doppler runs export`: runs as JSON (everything, inputs included) or CSV (one table).
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "run_recording.h"
#include "runs_common.h"

namespace doppler::cli {
namespace {

using nlohmann::json;
using namespace doppler::sessions;
namespace fs = std::filesystem;

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exactly
  return std::string(buf, res.ptr);
}

json placementRecordJson(const PlacementRecord& p) {
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

// --- export -------------------------------------------------------------------------------------

struct ExportArgs {
  std::string db;
  std::vector<int64_t> ids;
  std::string format;
  std::string table = "placement";
  OutputArgs output;  // --out only: the format is --format
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
  j["placement"] = placementRecordJson(loadPlacement(store, id));
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
  if (format.empty()) format = fs::path(a.output.out).extension() == ".csv" ? "csv" : "json";
  if (format != "csv" && format != "json")
    throw InputError("", "--format", "expected csv or json, got '" + format + "'");
  auto store = openStore(a.db, false);
  for (int64_t id : a.ids) store->requireRun(id);
  if (format == "csv") {
    writeResult(a.output, exportCsv(*store, a.ids, a.table));
    return;
  }
  json runs = json::array();
  for (int64_t id : a.ids) runs.push_back(exportRunJson(*store, id));
  writeResult(a.output, dump({{"format", "doppler-runs/1"}, {"runs", runs}}));
}

}  // namespace

void addRunsExportCommand(CLI::App& runs) {
  auto ea = std::make_shared<ExportArgs>();
  CLI::App* exp =
      runs.add_subcommand("export", "Write runs as JSON (everything) or CSV (one table)");
  addDbOption(*exp, ea->db);
  exp->add_option("ids", ea->ids, "Run ids")->required();
  exp->add_option("--format", ea->format,
                  "csv or json (default: from --out's extension, else json)");
  exp->add_option("--table", ea->table,
                  "CSV: placement, decisions, timeline, transfers, metrics or figures")
      ->capture_default_str();
  addOutputOptions(*exp, ea->output, false, "File to write (stdout if omitted)");
  exp->callback([ea] { runExport(*ea); });
}

}  // namespace doppler::cli

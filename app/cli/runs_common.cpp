#include "runs_common.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/common/input_error.h"
#include "run_recording.h"

namespace doppler::cli {

using nlohmann::json;
using namespace doppler::sessions;
namespace fs = std::filesystem;

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
  try {
    return std::make_unique<RunStore>(path, o);
  } catch (const sessions::DamagedSession&) {
    // Refused for writing, but what can still be read is listed and exported.
    if (write || o.mode == OpenMode::ReadOnly) throw;
    o.mode = OpenMode::ReadOnly;
    return std::make_unique<RunStore>(path, o);
  }
}

std::string shortTime(const std::string& iso) {
  if (iso.size() < 19) return iso;
  std::string t = iso.substr(0, 19);
  t[10] = ' ';
  return t;
}

namespace {

json figuresJson(const std::map<std::string, double>& f) {
  json out = json::object();
  for (const auto& [k, v] : f) out[k] = std::isnan(v) ? json() : json(v);
  return out;
}

}  // namespace

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

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace doppler::cli

#pragma once
// Plain data that goes into and comes out of the run store. No SQLite, no Qt: these cross
// threads and reach the CLI and the studio's views as they are.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doppler::sessions {

// `Interrupted` is never written by a run's own process: the store sets it on open for a run
// still marked running whose writer process is gone (see writer_identity.h for the rule).
enum class RunStatus { Running, Finished, Failed, Cancelled, Interrupted };
const char* toString(RunStatus s);
RunStatus parseRunStatus(std::string_view s);  // throws InputError naming the known statuses

// The kinds of run: one per command that produces a result.
const std::vector<std::string>& runKinds();  // place, simulate, train, eval, exec, fleet
void checkRunKind(std::string_view kind);    // throws InputError naming the known kinds

struct RunSpec {
  std::string kind;    // one of runKinds()
  std::string method;  // heuristic name, policy name, "assignment", ...
  nlohmann::json params = nlohmann::json::object();  // everything needed to repeat the run
  std::optional<uint64_t> seed;
  std::optional<int64_t> graph_id, device_set_id;  // from RunStore::putGraph / putDeviceSet
  std::optional<int64_t> parent_id;  // e.g. stage III continuing a stage II run, eval of a train
};

struct RunInfo {
  int64_t id = 0;
  std::string kind, method;
  nlohmann::json params = nlohmann::json::object();
  std::optional<uint64_t> seed;
  RunStatus status = RunStatus::Running;
  std::string error;  // failed / interrupted: why
  std::optional<int64_t> graph_id, device_set_id, parent_id;
  std::string graph_name, device_set_name;
  int node_count = 0, device_count = 0;
  std::string started_at, finished_at;    // ISO 8601 UTC with milliseconds; finished_at may be ""
  std::map<std::string, double> figures;  // summary figures: makespan_us, lower_bound_us, ...
  std::vector<std::string> tags;
};

struct NodePlacement {
  int node = -1;  // index in the run's graph
  std::string node_id;
  int device = -1;
};

// One step of the decision order. Heuristics fill node and device; a policy also fills the
// probabilities it chose with and its full distributions.
struct Decision {
  int step = 0;
  int node = -1;
  int device = -1;
  std::optional<double> sel_prob, plc_prob;            // probability of the chosen node / device
  std::vector<std::pair<int, double>> sel_candidates;  // SEL: (candidate node, probability)
  std::vector<double> plc_probs;                       // PLC: probability of each device
};

struct PlacementRecord {
  std::vector<NodePlacement> nodes;  // by node index
  std::vector<Decision> decisions;   // by step; empty when the order means nothing
};

struct NodeSpanRecord {
  int node = -1;
  std::string node_id;
  int device = -1;
  double start_us = 0, finish_us = 0;
};

struct TransferRecord {
  int edge = -1;
  int src_node = -1, dst_node = -1;
  std::string src_id, dst_id;
  int src_device = -1, dst_device = -1;
  double start_us = 0, finish_us = 0;
};

// A timeline of one execution: "simulated", "planned" (a method's own schedule), "measured"...
struct TimelineRecord {
  int64_t id = 0;  // set by the store
  std::string label;
  double makespan_us = 0;
  std::vector<NodeSpanRecord> nodes;
  std::vector<TransferRecord> transfers;
};

struct CheckpointInfo {
  int64_t id = 0, run_id = 0;
  std::optional<int64_t> step;
  std::string label;
  std::string path;    // empty when the checkpoint is stored as a blob
  std::string sha256;  // of the file's or blob's bytes, hex
  int64_t bytes = 0;
  bool has_blob = false;
  std::string created_at;
};

struct Note {
  int64_t id = 0;
  std::optional<int64_t> run_id;  // empty: a note on the whole session
  std::string text, created_at;
};

struct GraphInfo {
  int64_t id = 0;
  std::string hash, name;
  int nodes = 0, edges = 0;  // device sets: nodes = devices, edges = 0
};

// One metric series; values may be NaN (stored as NULL: SQLite has no NaN).
struct Series {
  std::string name;
  std::vector<int64_t> steps;
  std::vector<double> values;
};

struct SeriesInfo {
  std::string name;
  int64_t points = 0, first_step = 0, last_step = 0;
  double last_value = 0;
};

}  // namespace doppler::sessions

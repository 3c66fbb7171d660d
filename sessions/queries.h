#pragma once
// Reading the run store for comparison: list and filter runs, metric series aligned across runs
// for one chart, which nodes moved between two placements, summary tables side by side.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sessions/records.h"
#include "sessions/run_store.h"

namespace doppler::sessions {

struct RunFilter {
  std::string kind, method, tag, status;  // empty: any
  std::optional<int64_t> graph_id;
  std::vector<int64_t> ids;  // empty: any
  int limit = 0;             // the newest `limit` runs; 0: all
};

// Oldest first (ids grow with time). On a read-only store, a run still marked running whose
// writer is gone is reported interrupted (a writable open would have marked it so).
std::vector<RunInfo> listRuns(RunStore& store, const RunFilter& filter = {});
RunInfo getRun(RunStore& store, int64_t run);  // throws InputError if there is no such run

std::vector<SeriesInfo> listSeries(RunStore& store, int64_t run);
Series loadSeries(RunStore& store, int64_t run, std::string_view name);  // empty if absent

// One metric over several runs, on the union of their steps: values[r][i] is run r's value at
// steps[i], NaN where run r has no point there.
struct AlignedSeries {
  std::string name;
  std::vector<int64_t> runs;
  std::vector<int64_t> steps;
  std::vector<std::vector<double>> values;
};
AlignedSeries alignSeries(RunStore& store, std::span<const int64_t> runs, std::string_view name);

PlacementRecord loadPlacement(RunStore& store, int64_t run);

struct MovedNode {
  std::string node_id;
  int from = -1, to = -1;  // device in run a, in run b (as run b recorded it)
};
// Nodes are matched by id, so runs on different graphs still compare where their nodes agree.
// When both runs are on the same device set, run b's interchangeable devices are first matched
// to run a's (core/graph/device_matching.h): a node moved when the device it has in run b is not
// the one matched with its device in run a, so renamed identical GPUs are not moves.
struct PlacementDiff {
  int64_t a = 0, b = 0;
  bool same_graph = false;
  int compared = 0;              // nodes placed in both runs
  std::vector<MovedNode> moved;  // in run a's node order
  std::vector<std::string> only_in_a, only_in_b;
  // device_map[d]: run a's device that run b's device d was matched with (identity when no
  // device was matched; empty when the runs' device sets differ or are not stored).
  std::vector<int> device_map;
  bool devices_matched = false;   // device_map is not the identity
  int moved_before_matching = 0;  // nodes whose device index differs
};
PlacementDiff placementDiff(RunStore& store, int64_t a, int64_t b);

std::vector<TimelineRecord> loadTimelines(RunStore& store, int64_t run);  // with every span
std::vector<CheckpointInfo> listCheckpoints(RunStore& store, int64_t run);
std::vector<Note> listNotes(RunStore& store, std::optional<int64_t> run);  // none: session notes

// Figures side by side: a row per summary figure any of the runs has, then a row
// "<series> (last)" per metric series with each run's last value. values[row][run].
struct SummaryTable {
  std::vector<int64_t> runs;
  std::vector<std::string> rows;
  std::vector<std::vector<std::optional<double>>> values;
};
SummaryTable summaryTable(RunStore& store, std::span<const int64_t> runs);

}  // namespace doppler::sessions

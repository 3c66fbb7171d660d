// Session files (sessions/): the bytes are written to a file and opened read-only, as `doppler
// runs` and the studio open a session handed to them, then every run is read the way `runs
// export` reads it (list, placement, timelines, series, checkpoints, notes, stored graph and
// device set, comparisons). A damaged, foreign or hostile file must be refused with InputError;
// anything else (a JSON exception from a stored record, a crash, a sanitizer report) is a finding.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_common.h"
#include "sessions/queries.h"
#include "sessions/session.h"

namespace {

// One file per process, rewritten for each input (RAM-backed when /dev/shm is there).
const std::string& sessionPath() {
  static const std::string path = [] {
    const std::string dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
    return dir + "/doppler-fuzz-session-" + std::to_string(::getpid()) + ".sqlite";
  }();
  return path;
}

void readEverything(const std::string& path) {
  using namespace doppler::sessions;
  Session session = Session::open(path, OpenMode::ReadOnly);
  RunStore& store = session.store();
  const std::vector<RunInfo> runs = listRuns(store);
  std::vector<int64_t> ids;
  for (const RunInfo& r : runs) {
    ids.push_back(r.id);
    getRun(store, r.id);
    loadPlacement(store, r.id);
    loadTimelines(store, r.id);
    for (const SeriesInfo& s : listSeries(store, r.id)) loadSeries(store, r.id, s.name);
    listCheckpoints(store, r.id);
    listNotes(store, r.id);
    if (r.graph_id) store.loadGraph(*r.graph_id);
    if (r.device_set_id) store.loadDeviceSet(*r.device_set_id);
  }
  listNotes(store, std::nullopt);
  summaryTable(store, ids);
  if (ids.size() >= 2) placementDiff(store, ids[0], ids[1]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = sessionPath();
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size > 0) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    std::abort();  // the fuzzer's own temporary file: nothing to learn without it
  }
  return fuzzOne(data, size, [&](std::string_view) { readEverything(path); });
}

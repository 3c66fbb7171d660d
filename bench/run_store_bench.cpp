// Run store throughput, measured the same way every time. Run on one core:
//   taskset -c 0 build/store/bench/run_store_bench
// - BM_Append*: metric rows per second (the items_per_second column). Batched is the
//   MetricWriter default (one transaction per 1000 rows); PerRowTransaction is the same writer
//   committing every row: the baseline, measured in the same run, so their ratio is the gain of
//   batching. Durable: batched with synchronous=FULL (an fsync per commit).
// - BM_Load*: the time to load a 10,000-episode run's series for a chart, one series or four
//   runs aligned on steps; OpenAndLoad includes opening the session (header checks, probe).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "sessions/metric_writer.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A fresh session file in its own temporary directory, removed afterwards.
class TempSession {
 public:
  explicit TempSession(const std::string& name) {
    dir_ = fs::temp_directory_path() / ("doppler_bench_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempSession() { fs::remove_all(dir_); }
  std::string file() const { return (dir_ / "bench.sqlite").string(); }

 private:
  fs::path dir_;
};

int64_t newRun(RunStore& s, const std::string& method) {
  RunSpec sp;
  sp.kind = "train";
  sp.method = method;
  return s.beginRun(sp);
}

// Each iteration appends 1000 rows, spread over `series` interleaved series, and leaves nothing
// buffered, so every row counted has been committed.
void appendRows(benchmark::State& state, std::size_t batchRows, bool durable, int series) {
  TempSession t("append");
  OpenOptions o;
  o.durable = durable;
  RunStore store(t.file(), o);
  const int64_t run = newRun(store, "bench");
  MetricWriterOptions w;
  w.batch_rows = batchRows;
  w.batch_interval = 0ms;
  MetricWriter writer(store, run, w);
  std::vector<int> handles;
  for (int s = 0; s < series; ++s) handles.push_back(writer.series("series" + std::to_string(s)));
  int64_t step = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1000; i += series, ++step)
      for (int s = 0; s < series; ++s)
        writer.append(handles[s], step, 0.5 * static_cast<double>(step) + s);
    writer.flush();
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  state.counters["rows_committed"] = static_cast<double>(writer.committedRows());
}

void BM_AppendBatched(benchmark::State& state) {
  appendRows(state, 1000, false, 1);
}
void BM_AppendBatched4Series(benchmark::State& state) {
  appendRows(state, 1000, false, 4);
}
void BM_AppendPerRowTransaction(benchmark::State& state) {
  appendRows(state, 1, false, 1);
}
void BM_AppendBatchedDurable(benchmark::State& state) {
  appendRows(state, 1000, true, 1);
}

// A session holding `runs` runs with a 10,000-point "reward" series each (step = episode).
void fillRuns(RunStore& store, int runs, std::vector<int64_t>& ids) {
  for (int r = 0; r < runs; ++r) {
    const int64_t id = newRun(store, "policy" + std::to_string(r));
    MetricWriter w(store, id);
    const int h = w.series("reward");
    const int loss = w.series("loss");
    for (int64_t ep = 0; ep < 10000; ++ep) {
      w.append(h, ep, -1000.0 / static_cast<double>(ep + 1) + r);
      w.append(loss, ep, 1.0 / static_cast<double>(ep + 1));  // another series in between
    }
    ids.push_back(id);
  }
}

void BM_LoadSeries10k(benchmark::State& state) {
  TempSession t("load");
  RunStore store(t.file());
  std::vector<int64_t> ids;
  fillRuns(store, 1, ids);
  RunStore reader(t.file());  // the studio's own connection
  for (auto _ : state) {
    Series s = loadSeries(reader, ids[0], "reward");
    if (s.steps.size() != 10000) state.SkipWithError("wrong size");
    benchmark::DoNotOptimize(s.values.data());
  }
  state.counters["points"] = 10000;
}

void BM_LoadAligned4x10k(benchmark::State& state) {
  TempSession t("aligned");
  RunStore store(t.file());
  std::vector<int64_t> ids;
  fillRuns(store, 4, ids);
  RunStore reader(t.file());
  for (auto _ : state) {
    AlignedSeries a = alignSeries(reader, ids, "reward");
    if (a.steps.size() != 10000 || a.values.size() != 4) state.SkipWithError("wrong size");
    benchmark::DoNotOptimize(a.values.data());
  }
  state.counters["points"] = 40000;
}

void BM_OpenAndLoadSeries10k(benchmark::State& state) {
  TempSession t("open");
  std::vector<int64_t> ids;
  {
    RunStore store(t.file());
    fillRuns(store, 1, ids);
  }
  for (auto _ : state) {
    RunStore reader(t.file());
    Series s = loadSeries(reader, ids[0], "reward");
    benchmark::DoNotOptimize(s.values.data());
  }
}

// Wall-clock time: commits wait on I/O, which CPU time would leave out.
BENCHMARK(BM_AppendBatched)->UseRealTime();
BENCHMARK(BM_AppendBatched4Series)->UseRealTime();
BENCHMARK(BM_AppendPerRowTransaction)->UseRealTime();
BENCHMARK(BM_AppendBatchedDurable)->UseRealTime();
BENCHMARK(BM_LoadSeries10k)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadAligned4x10k)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OpenAndLoadSeries10k)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace doppler::sessions

BENCHMARK_MAIN();

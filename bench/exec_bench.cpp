// The executor's own overhead (core/exec): a 1,000-node graph whose kernels do no work, so what
// is measured is scheduling (readiness, the discipline's choice, waking threads) and copies. The
// baseline beside it runs the same graph with 100 us kernels: the ratio says how much of a real
// run the executor costs. Per-node figures are the counters "us_per_node".
#include <benchmark/benchmark.h>

#include <random>

#include "core/common/numbered.h"
#include "core/exec/executor.h"
#include "core/exec/synthetic_backend.h"

namespace {

doppler::DataflowGraph layered(int layers, int width) {
  doppler::DataflowGraph g;
  std::mt19937_64 rng(1);
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < width; ++i) {
      doppler::Node n;
      n.id = doppler::numbered("n", l) + doppler::numbered("_", i);
      const int v = g.addNode(n);
      if (l > 0)
        g.addEdge(doppler::Edge{v - width - i + static_cast<int>(rng() % width), v, 4096, {}});
    }
  return g;
}

void run(benchmark::State& state, double kernel_us) {
  const auto g = layered(100, 10);
  const int devices = static_cast<int>(state.range(0));
  const auto discipline = static_cast<doppler::Discipline>(state.range(1));
  doppler::exec::SyntheticWork work;
  work.compute_us.assign(g.nodeCount(), kernel_us);
  for (const auto& e : g.edges()) work.bytes.push_back(e.bytes);
  doppler::exec::CpuSyntheticBackend backend(g, work);
  doppler::Assignment a(g.nodeCount());
  for (int v = 0; v < g.nodeCount(); ++v) a[v] = v % devices;
  doppler::exec::ExecOptions opts;
  opts.discipline = discipline;
  opts.order = g.topologicalOrder();
  double makespan = 0;
  for (auto _ : state)
    makespan = doppler::exec::execute(g, a, devices, backend, opts).measured_makespan_us;
  state.counters["us_per_node"] = makespan * devices / g.nodeCount();
}

void BM_ExecOverhead(benchmark::State& state) {
  run(state, 0);
}
void BM_Exec100usKernels(benchmark::State& state) {
  run(state, 100);
}

// Arguments: devices, discipline (0 fifo, 1 priority, 2 sequence).
BENCHMARK(BM_ExecOverhead)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Args({2, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Exec100usKernels)->Args({2, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

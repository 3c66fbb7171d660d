// The fleet world's costs: parsing the conversation trace (goal: well under 100 ms for 19,366
// rows), building the cost266 world (topology, latency, pools, prices), and spreading the trace
// over its regions for the default 480 x 45 s horizon.
#include <benchmark/benchmark.h>

#include "core/fleet/world/demand.h"
#include "core/fleet/world/topology.h"
#include "core/fleet/world/trace_reader.h"
#include "core/graph/graph_io.h"

namespace {

using namespace doppler::fleet;

const std::string& convText() {
  static const std::string text =
      doppler::readTextFile(resourcesDir() + "/traces/AzureLLMInferenceTrace_conv.csv", 64u << 20);
  return text;
}

void BM_ParseConvTrace(benchmark::State& state) {
  const std::string& text = convText();
  for (auto _ : state) {
    Trace trace = parseTrace(text);
    benchmark::DoNotOptimize(trace.requests.data());
  }
  state.counters["rows"] = 19366;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseConvTrace)->Unit(benchmark::kMillisecond);

void BM_ReadConvTraceFile(benchmark::State& state) {
  for (auto _ : state) {
    Trace trace = loadTrace("conv");
    benchmark::DoNotOptimize(trace.requests.data());
  }
}
BENCHMARK(BM_ReadConvTraceFile)->Unit(benchmark::kMillisecond);

void BM_BuildWorldCost266(benchmark::State& state) {
  for (auto _ : state) {
    World world = buildWorld(loadTopology("cost266"));
    benchmark::DoNotOptimize(world.latency.seconds.data());
  }
}
BENCHMARK(BM_BuildWorldCost266)->Unit(benchmark::kMillisecond);

void BM_SpreadConvOverCost266(benchmark::State& state) {
  const World world = buildWorld(loadTopology("cost266"));
  const Trace trace = loadTrace("conv");
  size_t requests = 0;
  for (auto _ : state) {
    Demand demand = spreadTrace(trace, world);  // tile, 480 x 45 s: ~119,000 requests
    requests = demand.requests.size();
    benchmark::DoNotOptimize(demand.requests.data());
  }
  state.counters["requests"] = static_cast<double>(requests);
}
BENCHMARK(BM_SpreadConvOverCost266)->Unit(benchmark::kMillisecond);

void BM_SyntheticCost266(benchmark::State& state) {
  const World world = buildWorld(loadTopology("cost266"));
  for (auto _ : state) {
    Demand demand = syntheticDemand(world);
    benchmark::DoNotOptimize(demand.requests.data());
  }
}
BENCHMARK(BM_SyntheticCost266)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

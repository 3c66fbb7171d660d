// Simulator and search throughput. Run on one core:
//   taskset -c 0 build/release/bench/simulator_bench
// Figures are simulations (or evaluations) per second: the `items_per_second` column.
#include <benchmark/benchmark.h>

#include <random>

#include "core/common/numbered.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/sim/simulator.h"
#include "paper_graph.h"

namespace doppler {
namespace {

// The paper's LLAMA-LAYER graph, else the generated one (read once).
const DataflowGraph& llamaLayer() {
  static const DataflowGraph g =
      bench::paperGraphOrGenerated("full_transformer_layer_261nodes.txt", "llama-layer");
  return g;
}

// A layered random DAG: `n` nodes in layers of 100, each node fed by 1-3 nodes of the layer above.
DataflowGraph layeredGraph(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  DataflowGraph g;
  g.name = "layered-" + std::to_string(n);
  const int width = 100;
  for (int v = 0; v < n; ++v) {
    Node node;
    node.id = numbered("n", v);
    node.op = "op";
    node.compute_us = {static_cast<double>(10 + rng() % 990)};
    g.addNode(node);
    if (v >= width) {
      const int layerStart = (v / width - 1) * width;
      const int fanIn = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < fanIn; ++k) {
        Edge e;
        e.src = layerStart + static_cast<int>(rng() % width);
        e.dst = v;
        e.transfer_us = static_cast<double>(rng() % 200);
        g.addEdge(e);
      }
    }
  }
  return g;
}

Assignment randomAssignment(int n, int devices, uint32_t seed) {
  std::mt19937 rng(seed);
  Assignment a(n);
  for (int& x : a) x = static_cast<int>(rng() % devices);
  return a;
}

void runSims(benchmark::State& state, const DataflowGraph& g, SimOptions o) {
  CostTable c(g, DeviceSet::uniform(4));
  Simulator sim(c, o);
  // A handful of different assignments, as search and training would pass.
  std::vector<Assignment> as;
  for (uint32_t s = 0; s < 16; ++s) as.push_back(randomAssignment(c.nodes(), 4, s));
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sim.makespan(as[i++ & 15]));
  state.SetItemsProcessed(state.iterations());
  state.counters["nodes"] = c.nodes();
  state.counters["ns_per_node"] =
      benchmark::Counter(static_cast<double>(c.nodes()) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_SimulateLlamaLayerReference(benchmark::State& state) {
  runSims(state, llamaLayer(), SimOptions{});
}
void BM_SimulateLlamaLayerReferenceNoise(benchmark::State& state) {
  SimOptions o;
  o.noise = 0.1;
  runSims(state, llamaLayer(), o);
}
void BM_SimulateLlamaLayerLinks(benchmark::State& state) {
  SimOptions o;
  o.model = CostModel::Links;
  runSims(state, llamaLayer(), o);
}
void BM_SimulateLlamaLayerEventLoop(benchmark::State& state) {
  SimOptions o;
  o.event_loop = true;  // the general loop on the reference model: the baseline for the fast path
  runSims(state, llamaLayer(), o);
}
void BM_SimulateGenerated10k(benchmark::State& state) {
  runSims(state, layeredGraph(10000, 1), SimOptions{});
}
void BM_SimulateGenerated10kLinks(benchmark::State& state) {
  SimOptions o;
  o.model = CostModel::Links;
  runSims(state, layeredGraph(10000, 1), o);
}

void BM_LocalSearchLlamaLayer(benchmark::State& state) {
  const DataflowGraph& g = llamaLayer();
  const DeviceSet devices = DeviceSet::uniform(4);
  const CostTable c(g, devices);
  PlaceRequest request;  // as `doppler place --method local-search --budget 2000` runs it
  request.graph = &g;
  request.devices = &devices;
  request.costs = &c;
  request.settings.method = "local-search";
  request.settings.budget = 2000;
  long evals = 0;
  for (auto _ : state) evals += placeAndSimulate(request).placement.evaluations;
  state.SetItemsProcessed(evals);
}

// What a search's evaluations cost, side by side: candidates one random move away from
// critical-path's placement of LLAMA-LAYER, judged in full (Arg 0: makespan) or against the
// start's makespan as a cutoff (Arg 1: makespanUpTo, which stops a candidate once it is sure to
// be worse: most are). Same candidates in both.
void BM_JudgeCandidatesLlamaLayer(benchmark::State& state) {
  const DataflowGraph& g = llamaLayer();
  const CostTable c(g, DeviceSet::uniform(4));
  PlaceRequest request;
  const DeviceSet devices = DeviceSet::uniform(4);
  request.graph = &g;
  request.devices = &devices;
  request.costs = &c;
  const Assignment start = placeAndSimulate(request).placement.assignment;
  Simulator sim(c);
  const double startMs = sim.makespan(start);
  std::mt19937 rng(7);
  std::vector<std::pair<int, int>> moves(4096);
  for (auto& [v, d] : moves) {
    v = static_cast<int>(rng() % c.nodes());
    d = static_cast<int>((start[v] + 1 + rng() % 3) % 4);
  }
  const bool cut = state.range(0) == 1;
  Assignment a = start;
  long evals = 0, worse = 0;
  for (auto _ : state)
    for (const auto& [v, d] : moves) {
      a[v] = d;
      const double ms = cut ? sim.makespanUpTo(a, startMs) : sim.makespan(a);
      worse += ms > startMs;
      a[v] = start[v];
      ++evals;
    }
  state.SetItemsProcessed(evals);
  state.counters["worse_share"] = static_cast<double>(worse) / static_cast<double>(evals);
}

BENCHMARK(BM_SimulateLlamaLayerReference);
BENCHMARK(BM_SimulateLlamaLayerReferenceNoise);
BENCHMARK(BM_SimulateLlamaLayerEventLoop);
BENCHMARK(BM_SimulateLlamaLayerLinks);
BENCHMARK(BM_SimulateGenerated10k);
BENCHMARK(BM_SimulateGenerated10kLinks);
BENCHMARK(BM_LocalSearchLlamaLayer)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JudgeCandidatesLlamaLayer)->Arg(0)->Arg(1);

}  // namespace
}  // namespace doppler

BENCHMARK_MAIN();

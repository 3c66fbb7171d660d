// Coarsening throughput (core/graph/coarsening.h). Run on one core:
//   taskset -c 0 build/release/bench/coarsen_bench
// A 20,000-node layered graph coarsened to 300 groups, with PyTorch-style scoped ids and weight
// inputs ("/h.3/attn/MatMul_12", "h.3.attn.w_12") and with plain ids; the goal is well under
// 100 ms. groupGraph alone (the partition already known) is measured too.
#include <benchmark/benchmark.h>

#include <random>

#include "core/graph/coarsening.h"

namespace doppler {
namespace {

// `n` op nodes in layers of 100, each fed by 1-3 nodes of the layer above. Scoped: layer l sits
// in "/h.<l/8>/<attn|mlp>/", and one op in three has a weight input of its own.
DataflowGraph layeredGraph(int n, bool scoped, uint32_t seed) {
  std::mt19937 rng(seed);
  DataflowGraph g;
  g.name = scoped ? "layered-scoped" : "layered-plain";
  const int width = 100;
  std::vector<int> opIndex;
  opIndex.reserve(n);
  int ops = 0;
  while (g.nodeCount() < n) {
    const int layer = ops / width;
    Node node;
    node.id = scoped ? "/h." + std::to_string(layer / 8) + (layer % 8 < 4 ? "/attn/" : "/mlp/") +
                           "Op_" + std::to_string(ops)
                     : "n" + std::to_string(ops);
    node.op = "op";
    node.flops = 1e6 * (1 + rng() % 100);
    node.output_bytes = 4096;
    const int v = g.addNode(node);
    opIndex.push_back(v);
    if (layer > 0) {
      const int fanIn = 1 + static_cast<int>(rng() % 3);
      int last = -1;
      for (int k = 0; k < fanIn; ++k) {
        const int src = opIndex[(layer - 1) * width + static_cast<int>(rng() % width)];
        if (src == last) continue;
        last = src;
        g.addEdge(Edge{src, v, 4096, std::nullopt});
      }
    }
    if (scoped && rng() % 3 == 0 && g.nodeCount() < n) {
      Node w;
      w.id = "h." + std::to_string(layer / 8) + ".w_" + std::to_string(ops);
      w.op = "input";
      w.output_bytes = 1 << 20;
      const int wi = g.addNode(w);
      g.addEdge(Edge{wi, v, 1 << 20, std::nullopt});
    }
    ++ops;
  }
  return g;
}

void coarsen(benchmark::State& state, bool scoped) {
  const DataflowGraph g = layeredGraph(static_cast<int>(state.range(0)), scoped, 1);
  CoarsenStats st;
  for (auto _ : state) {
    DataflowGraph c = coarsenGraph(g, static_cast<int>(state.range(1)), &st);
    benchmark::DoNotOptimize(c);
  }
  state.counters["groups"] = st.coarse_nodes;
  state.counters["chain"] = st.chain_merges;
  state.counters["input"] = st.input_merges;
  state.counters["scope"] = st.scope_merges;
  state.counters["forced"] = st.forced_merges;
  state.counters["depth"] = st.scope_depth;
}

void BM_CoarsenScoped(benchmark::State& state) {
  coarsen(state, true);
}
void BM_CoarsenPlain(benchmark::State& state) {
  coarsen(state, false);
}
BENCHMARK(BM_CoarsenScoped)->Args({20000, 300})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarsenPlain)->Args({20000, 300})->Unit(benchmark::kMillisecond);

// groupGraph alone: the coarse graph of a known partition (what the JSON reader and every
// expansion in the studio pay).
void BM_GroupGraph(benchmark::State& state) {
  const DataflowGraph g = layeredGraph(20000, true, 1);
  const DataflowGraph c = coarsenGraph(g, 300);
  for (auto _ : state) {
    DataflowGraph again = groupGraph(c.groups->fine, c.groups->group_of);
    benchmark::DoNotOptimize(again);
  }
}
BENCHMARK(BM_GroupGraph)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace doppler

BENCHMARK_MAIN();

// ONNX import speed: GPT-2-style decoder blocks built with the ONNX C++ API, 408 of them for a
// 20,000-node graph (goal: under 2 s), with inline weights (83 MB read and dropped) and with
// external weights (never read). The baseline run beside them reads the imported graph back from
// its dataflow-graph/1 JSON, so the figures compare as a ratio on any machine.
#include <benchmark/benchmark.h>

#include <map>

#include "core/graph/graph_io.h"
#include "core/graph/onnx_import.h"
#include "tests/support/onnx_models.h"

namespace {

const std::string& model(int layers, bool external) {
  static std::map<std::pair<int, bool>, std::string> cache;
  auto& m = cache[{layers, external}];
  if (m.empty()) {
    doppler::testmodels::TransformerSpec spec;
    spec.layers = layers;
    spec.external_weights = external;
    m = doppler::testmodels::transformerModel(spec);
  }
  return m;
}

void BM_ImportOnnx(benchmark::State& state) {
  const std::string& bytes = model(static_cast<int>(state.range(0)), state.range(1) != 0);
  int nodes = 0;
  for (auto _ : state) {
    doppler::DataflowGraph g = doppler::importOnnx(bytes);
    nodes = g.nodeCount();
    benchmark::DoNotOptimize(g);
  }
  state.counters["nodes"] = nodes;
  state.counters["MB"] = static_cast<double>(bytes.size()) / 1e6;
}
BENCHMARK(BM_ImportOnnx)
    ->ArgNames({"layers", "external"})
    ->Args({8, 0})
    ->Args({408, 0})
    ->Args({408, 1})
    ->Unit(benchmark::kMillisecond);

// Baseline: the same graph from its JSON.
void BM_ReadGraphJson(benchmark::State& state) {
  const std::string json = doppler::writeGraphJson(
      doppler::importOnnx(model(static_cast<int>(state.range(0)), true)), -1);
  for (auto _ : state) {
    doppler::DataflowGraph g = doppler::parseGraphJson(json);
    benchmark::DoNotOptimize(g);
  }
  state.counters["MB"] = static_cast<double>(json.size()) / 1e6;
}
BENCHMARK(BM_ReadGraphJson)->ArgNames({"layers"})->Arg(8)->Arg(408)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

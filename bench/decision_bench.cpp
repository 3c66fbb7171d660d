// The decision stepper's replays, as an override asks for them: every decision recorded, one
// changed halfway, the rest replayed, the final assignment simulated. LLAMA-LAYER (the paper's
// graph when the data folder has it, else the generated workload) on 4 devices. Goals (issue
// "decision stepper", redraw not included here: see views_bench): under 50 ms with a heuristic,
// under 100 ms with the policy.
//   build/release/bench/decision_bench
#include <benchmark/benchmark.h>

#include <random>

#include "core/graph/generators.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/policy/episode.h"
#include "core/policy/episode_trace.h"
#include "core/policy/features.h"
#include "core/policy/policy_config.h"
#include "core/sim/simulator.h"
#include "paper_graph.h"

namespace doppler {
namespace {

struct Inputs {
  DataflowGraph g =
      bench::paperGraphOrGenerated("full_transformer_layer_261nodes.txt", "llama-layer");
  DeviceSet d = DeviceSet::uniform(4);
  CostTable c{g, d};
};

const Inputs& inputs() {
  static const Inputs in;
  return in;
}

void BM_HeuristicOverrideReplay(benchmark::State& state, const char* method) {
  const Inputs& in = inputs();
  PlaceRequest r;
  r.graph = &in.g;
  r.devices = &in.d;
  r.costs = &in.c;
  r.settings.method = method;
  r.record_decisions = true;
  r.overrides = {{in.g.nodeCount() / 2, -1, 1}};
  for (auto _ : state) benchmark::DoNotOptimize(placeAndSimulate(r).makespan());
  state.counters["nodes"] = in.g.nodeCount();
}
BENCHMARK_CAPTURE(BM_HeuristicOverrideReplay, critical_path, "critical-path")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HeuristicOverrideReplay, heft, "heft")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HeuristicOverrideReplay, etf, "etf")->Unit(benchmark::kMillisecond);

// The network's outputs at the default architecture's sizes, with random values: the replay's
// cost does not depend on what the weights are.
policy::PolicyScores randomScores(int nodes) {
  const policy::PolicyConfig cfg;
  std::mt19937 rng(7);
  std::normal_distribution<float> n(0, 0.5f);
  auto fill = [&](size_t k) {
    std::vector<float> v(k);
    for (float& x : v) x = n(rng);
    return v;
  };
  policy::PolicyScores s;
  s.hh = cfg.head_hidden;
  s.dh = cfg.device_hidden;
  s.sel = fill(nodes);
  s.node = fill(static_cast<size_t>(nodes) * s.hh);
  s.member = fill(static_cast<size_t>(nodes) * s.hh);
  s.wy1 = fill(static_cast<size_t>(s.dh) * policy::kDeviceFeatures);
  s.by1 = fill(s.dh);
  s.wy = fill(static_cast<size_t>(s.hh) * s.dh);
  s.w2 = fill(s.hh);
  return s;
}

void BM_PolicyOverrideReplay(benchmark::State& state) {
  const Inputs& in = inputs();
  const policy::GraphFeatures f = policy::graphFeatures(in.c);
  const policy::PolicyScores scores = randomScores(in.g.nodeCount());
  const DecisionControl control{true, {{in.g.nodeCount() / 2, -1, 1}}, &in.g};
  Simulator sim(in.c, SimOptions{});
  for (auto _ : state) {
    const policy::TracedEpisode t = policy::traceEpisode(&scores, in.c, f, &control);
    benchmark::DoNotOptimize(sim.makespan(t.assignment));
  }
}
BENCHMARK(BM_PolicyOverrideReplay)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace doppler

BENCHMARK_MAIN();

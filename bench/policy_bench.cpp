// The dual policy's speed on LLAMA-LAYER (229 nodes, 4 devices): one greedy episode (inference),
// one training episode of each stage (rollout, simulation, batched log-probabilities, backward,
// Adam step). Arguments: LibTorch/OpenBLAS threads, then episodes per update (the encoder runs
// once per update). `ms_per_episode` is the figure quoted in the note. BM_GeneralPolicyPlacement
// and BM_HeuristicPlacement: the shipped general policy's placement time against the heuristics'
// (DOPPLER_BENCH_POLICY=CHECKPOINT times another policy instead).
// BM_SearchFrom: local search from the policy's placement against from critical-path's.
//   build/policy/bench/policy_bench --benchmark_filter=Train
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "core/fleet/world/topology.h"
#include "core/graph/graph_io.h"
#include "core/heuristics/method.h"
#include "core/heuristics/search_start.h"
#include "core/policy/features.h"
#include "core/policy/network_forward.h"
#include "core/policy/policy.h"
#include "core/policy/rollout.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"
#include "core/train/trainer.h"
#include "paper_graph.h"

namespace doppler {
namespace {

struct LlamaLayer {
  // The paper's graph, else the generated LLAMA-LAYER workload.
  DataflowGraph graph =
      bench::paperGraphOrGenerated("full_transformer_layer_261nodes.txt", "llama-layer");
  DeviceSet devices = DeviceSet::uniform(4);
  CostTable costs{graph, devices};
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

LlamaLayer& layer() {
  static LlamaLayer l;
  return l;
}

void BM_GreedyEpisode(benchmark::State& state) {
  policy::setComputeThreads(static_cast<int>(state.range(0)));
  policy::Policy p;
  const policy::GraphFeatures f = policy::graphFeatures(layer().costs);
  policy::EpisodeOptions o;
  o.record_probs = false;
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(p.run(layer().costs, f, o));
  state.counters["ms_per_episode"] = msSince(t0) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_GreedyEpisode)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The shipped general policy placing LLAMA-LAYER as `doppler eval` and the studio's tuner do once
// it is loaded: features, encoder and one greedy decode per placement. Beside it, as baselines run
// side by side, critical-path and local search (5,000 and 500,000 evaluations) on the same graph.
// The shipped checkpoint, or DOPPLER_BENCH_POLICY's (an earlier shipped policy, timed the same way
// side by side with the current one).
policy::Policy benchPolicy() {
  const char* other = std::getenv("DOPPLER_BENCH_POLICY");
  return policy::Policy::load(other != nullptr && *other != 0
                                  ? std::string(other)
                                  : fleet::resourcesDir() + "/policies/general.pt");
}

void BM_GeneralPolicyPlacement(benchmark::State& state) {
  policy::setComputeThreads(1);
  policy::keepPlacementMemory();  // as the CLI and the studio open it (train::openPolicy)
  const policy::Policy p = benchPolicy();
  policy::EpisodeOptions o;
  o.record_probs = false;
  for (auto _ : state) {
    const policy::GraphFeatures f = policy::graphFeatures(layer().costs);
    benchmark::DoNotOptimize(p.run(layer().costs, f, o));
  }
}
BENCHMARK(BM_GeneralPolicyPlacement)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same policy through the plain forward pass (network_forward.h) that placing uses, on the
// same BLAS with the same one thread: the LibTorch one above is its baseline.
void BM_GeneralPolicyPlacementPlain(benchmark::State& state) {
  policy::setComputeThreads(1);
  policy::keepPlacementMemory();
  const policy::Policy p = benchPolicy();
  const policy::NetworkWeights w =
      policy::weightsFromParameters(p.config(), p.parameters(), {}, "general.pt");
  policy::EpisodeOptions o;
  o.record_probs = false;
  for (auto _ : state) {
    const policy::GraphFeatures f = policy::graphFeatures(layer().costs);
    benchmark::DoNotOptimize(policy::runEpisode(policy::networkScores(w, f), layer().costs, f, o));
  }
}
BENCHMARK(BM_GeneralPolicyPlacementPlain)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HeuristicPlacement(benchmark::State& state, const char* method, long budget) {
  const Method& m = findMethod(method);
  for (auto _ : state) {
    PlaceContext ctx{layer().costs, SimOptions{}, 1, budget, {}, {}, nullptr};
    benchmark::DoNotOptimize(m.place(ctx, Params(m.params(), {})));
  }
}
BENCHMARK_CAPTURE(BM_HeuristicPlacement, critical_path, "critical-path", 0L)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_HeuristicPlacement, local_search_5000, "local-search", 5000L)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_HeuristicPlacement, local_search_500k, "local-search", 500000L)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// Local search from the shipped policy's placement against local search from critical-path, side
// by side on the paper's 8-GPU block (302 nodes, 8 devices), where the starts differ most: each
// iteration is one whole placement (the policy's features, encoder and decode, then the search),
// and `makespan_ms` is what it finds (seed 1). At equal time, compare a budget from the policy
// with a larger one from critical-path (scripts/experiments/general_policy_note.md, "the policy as
// a start for local search").
struct EightGpuBlock {
  DataflowGraph graph = bench::paperGraphOrGenerated("8gpu_transformer_block.txt", "llama-block");
  DeviceSet devices = DeviceSet::uniform(8);
  CostTable costs{graph, devices};
};

void BM_SearchFrom(benchmark::State& state, const char* start) {
  static EightGpuBlock block;
  static const bool registered = [] {
    policy::setComputeThreads(1);
    policy::keepPlacementMemory();
    auto p = std::make_shared<policy::Policy>(
        policy::Policy::load(fleet::resourcesDir() + "/policies/general.pt"));
    // The policy linked into this benchmark, as the CLI's "doppler" start runs it through the
    // LibTorch module (core/train/general_policy_start.cpp).
    registerSearchStart(
        "bench-policy", "the shipped policy, linked in", [p](const PlaceContext& ctx) {
          policy::EpisodeOptions o;
          o.record_probs = false;
          const policy::EpisodeResult e = p->run(ctx.costs, policy::graphFeatures(ctx.costs), o);
          Placement start;
          start.assignment = e.assignment;
          start.order = e.order;
          return start;
        });
    return true;
  }();
  benchmark::DoNotOptimize(registered);
  const Method& m = findMethod("local-search");
  const Params params(m.params(), {{"start", start}});
  double makespan = 0;
  for (auto _ : state) {
    PlaceContext ctx{block.costs, SimOptions{}, 1, state.range(0), {}, {}, nullptr};
    const Placement placed = m.place(ctx, params);
    makespan = Simulator(block.costs).makespan(placed.assignment);
  }
  state.counters["makespan_ms"] = makespan / 1e3;
}
BENCHMARK_CAPTURE(BM_SearchFrom, critical_path, "critical-path")
    ->Arg(2000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_SearchFrom, policy, "bench-policy")
    ->Arg(2000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void trainEpisodes(benchmark::State& state, train::Stage stage) {
  train::TrainConfig cfg = train::TrainConfig::defaults(stage);
  cfg.threads = static_cast<int>(state.range(0));
  cfg.rollouts = static_cast<int>(state.range(1));
  cfg.episodes = 1000000000;
  policy::Policy p;
  train::Trainer trainer(layer().costs, p, cfg);
  trainer.step();  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(trainer.step());
  state.counters["ms_per_episode"] =
      msSince(t0) / static_cast<double>(state.iterations() * cfg.rollouts);
}
void BM_TrainEpisodeImitation(benchmark::State& s) {
  trainEpisodes(s, train::Stage::Imitation);
}
void BM_TrainEpisodeSim(benchmark::State& s) {
  trainEpisodes(s, train::Stage::Simulation);
}
BENCHMARK(BM_TrainEpisodeImitation)
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({1, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_TrainEpisodeSim)
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({1, 4})
    ->Args({2, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace doppler

BENCHMARK_MAIN();

// Optimal transport per fleet timeslot (core/fleet/ot): the exact plan (LEMON's network simplex),
// log-domain Sinkhorn and the capacity-unbalanced plan, on random problems of 10 x 10 and 40 x 40
// and on cost266's 37 regions with great-circle distances as costs. Each solve includes building
// LEMON's graph, as a slot would. Sinkhorn's counters give its iterations and its cost relative
// to the exact optimum of the same problem, measured in the same run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <fstream>
#include <random>
#include <regex>
#include <string>

#include "core/fleet/ot/exact_transport.h"
#include "core/fleet/ot/sinkhorn.h"
#include "core/fleet/ot/unbalanced_transport.h"

namespace {

using namespace doppler::fleet::ot;

std::vector<double> randomShares(std::mt19937& rng, std::size_t count) {
  std::uniform_real_distribution<double> unit(0.05, 1);
  std::vector<double> shares(count);
  for (double& x : shares) x = unit(rng);
  const double sum = total(shares);
  for (double& x : shares) x /= sum;
  return shares;
}

// Balanced shares and uniform random costs in [0, 1).
TransportProblem randomProblem(std::size_t size, unsigned seed = 1) {
  std::mt19937 rng(seed);
  TransportProblem p{randomShares(rng, size), randomShares(rng, size), Matrix(size, size)};
  std::uniform_real_distribution<double> unit(0, 1);
  for (double& c : p.cost.values) c = unit(rng);
  return p;
}

// cost266's node coordinates (lon, lat) from the shipped SNDlib file; empty if it is missing.
std::vector<std::pair<double, double>> cost266Coordinates() {
  std::ifstream in(std::string(DOPPLER_SOURCE_DIR) + "/resources/data/topologies/cost266.txt");
  std::vector<std::pair<double, double>> nodes;
  const std::regex node(R"(^\s*\S+\s*\(\s*(-?[0-9.]+)\s+(-?[0-9.]+)\s*\)\s*\r?$)");
  std::string line;
  bool inNodes = false;
  while (std::getline(in, line)) {
    if (line.rfind("NODES", 0) == 0)
      inNodes = true;
    else if (inNodes && line.find(')') == 0)
      break;
    std::smatch m;
    if (inNodes && std::regex_match(line, m, node))
      nodes.emplace_back(std::stod(m[1]), std::stod(m[2]));
  }
  return nodes;
}

// Regions of cost266 with random demand and capacity shares, costs the great-circle distance in
// km; a random 37-point set in Europe's box if the file is missing.
TransportProblem cost266Problem() {
  std::vector<std::pair<double, double>> nodes = cost266Coordinates();
  std::mt19937 rng(266);
  if (nodes.empty()) {
    std::uniform_real_distribution<double> lon(-10, 30), lat(36, 62);
    for (int k = 0; k < 37; ++k) nodes.emplace_back(lon(rng), lat(rng));
  }
  const std::size_t n = nodes.size();
  TransportProblem p{randomShares(rng, n), randomShares(rng, n), Matrix(n, n)};
  const double radian = M_PI / 180, earthKm = 6371;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const auto [lon1, lat1] = nodes[i];
      const auto [lon2, lat2] = nodes[j];
      const double h = std::pow(std::sin((lat2 - lat1) * radian / 2), 2) +
                       std::cos(lat1 * radian) * std::cos(lat2 * radian) *
                           std::pow(std::sin((lon2 - lon1) * radian / 2), 2);
      p.cost(i, j) = 2 * earthKm * std::asin(std::sqrt(std::min(1.0, h)));
    }
  return p;
}

void exact(benchmark::State& state, const TransportProblem& p) {
  for (auto _ : state) benchmark::DoNotOptimize(solveExact(p).cost);
  state.counters["rows"] = static_cast<double>(p.a.size());
}

void sinkhorn(benchmark::State& state, const TransportProblem& p, double regShare) {
  SinkhornOptions options;
  options.reg = regShare * defaultReg(p) / 0.01;  // regShare of the largest cost
  TransportResult r;
  for (auto _ : state) {
    r = solveSinkhorn(p, options);
    // Not DoNotOptimize(r.cost): on this GCC and Google Benchmark, its read-write form on a
    // double member overwrote the value (r.cost came back as regShare).
    benchmark::DoNotOptimize(r.plan.values.data());
  }
  if (!r.converged) state.SkipWithError("Sinkhorn did not converge");
  state.counters["iterations"] = r.iterations;
  state.counters["cost_over_exact"] = r.cost / solveExact(p).cost;
}

void unbalanced(benchmark::State& state, TransportProblem p) {
  for (double& x : p.b) x *= 1.3;  // 30% spare capacity
  for (auto _ : state) benchmark::DoNotOptimize(solveUnbalanced(p).cost);
}

void BM_ExactRandom(benchmark::State& state) {
  exact(state, randomProblem(static_cast<std::size_t>(state.range(0))));
}
void BM_ExactCost266(benchmark::State& state) {
  exact(state, cost266Problem());
}
// Sinkhorn at eps = 1% (the CLI's default) and 5% of the largest cost.
void BM_SinkhornRandom(benchmark::State& state) {
  sinkhorn(state, randomProblem(static_cast<std::size_t>(state.range(0))), state.range(1) / 100.0);
}
void BM_SinkhornCost266(benchmark::State& state) {
  sinkhorn(state, cost266Problem(), state.range(0) / 100.0);
}
void BM_UnbalancedRandom(benchmark::State& state) {
  unbalanced(state, randomProblem(static_cast<std::size_t>(state.range(0))));
}
void BM_UnbalancedCost266(benchmark::State& state) {
  unbalanced(state, cost266Problem());
}

}  // namespace

BENCHMARK(BM_ExactRandom)->Arg(10)->Arg(40)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ExactCost266)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SinkhornRandom)
    ->Args({10, 1})
    ->Args({10, 5})
    ->Args({40, 1})
    ->Args({40, 5})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SinkhornCost266)->Arg(1)->Arg(5)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UnbalancedRandom)->Arg(40)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UnbalancedCost266)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();

// The fleet simulators' speed (docs/fleet_sim.md, "Speed"). Goals: the slot-level
// model runs 480 slots on cost266 in under 0.5 s; the per-request simulator runs the whole
// conversation trace (19,366 requests) across cost266 in under 2 s. Also one slot's OT plan on
// cost266's 37 regions (exact and Sinkhorn) and one slot of the MILP.
#include <benchmark/benchmark.h>

#include "core/fleet/ot/solve_transport.h"
#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/harness.h"
#include "core/fleet/sim/slot_state.h"

namespace {

using namespace doppler::fleet;
using namespace doppler::fleet::sim;

// cost266, conversation trace, 480 x 45 s at the harness's default target load (0.7).
const PreparedScenario& loaded() {
  static const PreparedScenario p = [] {
    RunOptions o;
    o.topology = "cost266";
    return prepareScenario(o);
  }();
  return p;
}

// The conversation trace once, as recorded (19,366 requests over 78 slots), default pools.
const PreparedScenario& convOnce() {
  static const PreparedScenario p = [] {
    RunOptions o;
    o.topology = "cost266";
    o.horizon = HorizonRule::Once;
    o.slots = 78;  // 3,510 s: the trace's 3,501.7 s
    o.load = 0;
    o.pool_scale = 0.1;
    return prepareScenario(o);
  }();
  return p;
}

void runSlots(benchmark::State& state, const std::string& method) {
  const PreparedScenario& p = loaded();
  RunOptions o;
  for (auto _ : state) {
    SimResult r = runMethod(p, method, o);
    benchmark::DoNotOptimize(r.metrics.e2e_s.mean);
  }
  state.counters["slots"] = p.scenario.demand.totals.slots;
  state.counters["requests"] = static_cast<double>(p.scenario.demand.requests.size());
}
void BM_SlotSim480Cost266Local(benchmark::State& s) {
  runSlots(s, "local");
}
void BM_SlotSim480Cost266Ot(benchmark::State& s) {
  runSlots(s, "ot");
}
BENCHMARK(BM_SlotSim480Cost266Local)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SlotSim480Cost266Ot)->Unit(benchmark::kMillisecond);

void runRequests(benchmark::State& state, const PreparedScenario& p, const std::string& method) {
  RunOptions o;
  o.fidelity = Fidelity::Request;
  for (auto _ : state) {
    SimResult r = runMethod(p, method, o);
    benchmark::DoNotOptimize(r.metrics.e2e_s.mean);
  }
  state.counters["requests"] = static_cast<double>(p.scenario.demand.requests.size());
  state.counters["requests/s"] = benchmark::Counter(
      static_cast<double>(p.scenario.demand.requests.size()) * state.iterations(),
      benchmark::Counter::kIsRate);
}
void BM_RequestSimConvCost266Local(benchmark::State& s) {
  runRequests(s, convOnce(), "local");
}
void BM_RequestSimConvCost266Ot(benchmark::State& s) {
  runRequests(s, convOnce(), "ot");
}
// The loaded 6 h scenario (about 2 million requests at load 0.7, 40 slots of it here).
void BM_RequestSimLoadedCost266Ot40Slots(benchmark::State& state) {
  static const PreparedScenario p = [] {
    RunOptions o;
    o.topology = "cost266";
    o.slots = 40;
    return prepareScenario(o);
  }();
  runRequests(state, p, "ot");
}
BENCHMARK(BM_RequestSimConvCost266Local)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RequestSimConvCost266Ot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RequestSimLoadedCost266Ot40Slots)->Unit(benchmark::kMillisecond);

// A slot state from the loaded scenario (slot 200: mid-horizon), as the policies see it.
SlotState midSlot() {
  const PreparedScenario& p = loaded();
  static const FleetModel fleet(p.scenario.world, {}, 1154, 212);
  SlotStateTracker tracker(fleet);
  ServerPlan plan(fleet);
  std::vector<double> queued(fleet.regions(), 0.0);
  return tracker.begin(200, 200 * 45.0, 45.0, p.scenario.demand.totals, queued, plan,
                       Allocation::identity(fleet.regions()));
}

ot::TransportProblem otProblem(const SlotState& s) {
  const int n = s.regions();
  ot::TransportProblem p;
  p.a = s.arrivals;
  double total = 0, cap = 0;
  for (int i = 0; i < n; ++i) total += p.a[i], cap += s.poolRate(i);
  for (int j = 0; j < n; ++j) p.b.push_back(s.poolRate(j) * total / cap);
  p.cost = ot::Matrix(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) p.cost(i, j) = s.latency(i, j);
  return p;
}

void BM_OtExactSlotCost266(benchmark::State& state) {
  const ot::TransportProblem p = otProblem(midSlot());
  for (auto _ : state) benchmark::DoNotOptimize(ot::solveExact(p).cost);
  state.counters["regions"] = static_cast<double>(p.a.size());
}
void BM_OtSinkhornSlotCost266(benchmark::State& state) {
  const ot::TransportProblem p = otProblem(midSlot());
  ot::SinkhornOptions options;
  options.reg = ot::defaultReg(p);
  int iterations = 0;
  for (auto _ : state) {
    const ot::TransportResult r = ot::solveSinkhorn(p, options);
    iterations = r.iterations;
    benchmark::DoNotOptimize(r.cost);
  }
  state.counters["iterations"] = iterations;
}
// The whole OT baseline's decision for one slot (problem built, solved, rows normalised).
void BM_OtPolicySlotCost266(benchmark::State& state) {
  const SlotState s = midSlot();
  auto policy = makePolicy("ot");
  for (auto _ : state) benchmark::DoNotOptimize(policy->allocate(s).share.data());
}
BENCHMARK(BM_OtExactSlotCost266)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OtSinkhornSlotCost266)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OtPolicySlotCost266)->Unit(benchmark::kMicrosecond);

void BM_MilpSlotCost266(benchmark::State& state) {
  const SlotState s = midSlot();
  MilpOptions options;
  options.lp_first = state.range(0) == 1;
  auto policy = makeMilpPolicy(options);
  for (auto _ : state) benchmark::DoNotOptimize(policy->allocate(s).share.data());
  state.SetLabel(options.lp_first ? "LP relaxation first" : "CBC branch and bound");
}
BENCHMARK(BM_MilpSlotCost266)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

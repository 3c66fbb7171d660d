// The slot-level fluid simulator (simulate.h, docs/fleet_sim.md "Slot-level model").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/fleet/sim/simulate.h"
#include "core/fleet/sim/slot_state.h"

namespace doppler::fleet::sim {

std::pair<double, double> meanTokens(const Demand& demand) {
  if (demand.requests.empty()) return {1154.0, 212.0};  // roughly the conv trace's means
  double c = 0, g = 0;
  for (const Request& r : demand.requests) c += r.context_tokens, g += r.generated_tokens;
  const double n = static_cast<double>(demand.requests.size());
  return {c / n, g / n};
}

SteadyState serverSteadyState(const GpuModel& gpu, double lambda, double context, double generated,
                              int max_batch, bool saturated) {
  SteadyState s;
  s.prefill_s = gpu.prefillSeconds(context);
  s.prefill_share = std::min(0.95, lambda * s.prefill_s);
  const double decodeTokens = std::max(0.0, generated - 1.0);  // prefill makes the first token
  const double meanContext = context + generated / 2.0;
  const double fit = std::floor(gpu.kv_tokens / std::max(1.0, context + generated));
  const double maxBatch = std::clamp(fit, 1.0, static_cast<double>(max_batch));
  double batch = maxBatch;
  if (!saturated) {
    // Little's law N = lambda * S(N) with S(N) = prefill + tokens * step(N) / (1 - prefill
    // share): decode stalls while other requests prefill. step(N) is linear in N in each roofline
    // regime, so each regime's fixed point is closed form; the step is their max, so is N.
    const double k = decodeTokens / (1.0 - s.prefill_share);
    const double memDen = 1.0 - lambda * k * gpu.beta * meanContext;
    const double cmpDen = 1.0 - lambda * k * gpu.gamma;
    const double inf = std::numeric_limits<double>::infinity();
    const double nMem = memDen > 0 ? lambda * (s.prefill_s + k * gpu.alpha) / memDen : inf;
    const double nCmp = cmpDen > 0 ? lambda * s.prefill_s / cmpDen : inf;
    batch = std::min(maxBatch, std::max(nMem, nCmp));
  }
  s.batch = batch;
  const double n = std::max(1.0, batch);
  const double step = std::max(gpu.alpha + gpu.beta * n * meanContext, gpu.gamma * n);
  s.tpot_s = step / (1.0 - s.prefill_share);
  s.decode_share = std::min(1.0 - s.prefill_share, lambda * decodeTokens * s.tpot_s);
  return s;
}

double fluidWait(double backlog, double arrival_rate, double service_rate, double slot_s) {
  if (service_rate <= 0) return std::numeric_limits<double>::infinity();
  double meanBacklog;
  const double drift = arrival_rate - service_rate;
  if (drift >= 0) {
    meanBacklog = backlog + drift * slot_s / 2.0;
  } else {
    const double empties = backlog / -drift;  // when the backlog runs out
    meanBacklog =
        empties >= slot_s ? backlog + drift * slot_s / 2.0 : backlog * empties / 2.0 / slot_s;
  }
  return meanBacklog / service_rate;
}

namespace {

// The region that is up nearest to `from` (itself when up); -1 when every region is down.
int nearestUp(const FleetModel& fleet, const std::vector<char>& down, int from) {
  if (!down[from]) return from;
  int best = -1;
  for (int k = 0; k < fleet.regions(); ++k)
    if (!down[k] && (best < 0 || fleet.latency(from, k) < fleet.latency(from, best))) best = k;
  return best;
}

// What a row sends to regions that are down goes to its other regions in proportion, or, when it
// sends nothing to a region that is up, to the nearest one that is.
Allocation rerouteAround(const FleetModel& fleet, const std::vector<char>& down, Allocation alloc) {
  const int n = fleet.regions();
  for (int i = 0; i < n; ++i) {
    double live = 0, dead = 0;
    for (int j = 0; j < n; ++j) (down[j] ? dead : live) += alloc.at(i, j);
    if (dead <= 0) continue;
    const int nearest = nearestUp(fleet, down, i);
    if (nearest < 0) return alloc;  // every region is down: nothing can be served anywhere
    for (int j = 0; j < n; ++j) {
      if (down[j])
        alloc.at(i, j) = 0;
      else if (live > 0)
        alloc.at(i, j) *= (live + dead) / live;
    }
    if (live <= 0) alloc.at(i, nearest) = 1;
  }
  return alloc;
}

}  // namespace

SimResult simulateSlots(const FleetModel& fleet, const Demand& demand, SchedulingPolicy& policy) {
  const auto wallStart = std::chrono::steady_clock::now();
  const int n = fleet.regions();
  const int slots = demand.totals.slots;
  const double T = demand.slot_seconds;
  const SimOptions& options = fleet.options();
  const auto [meanC, meanG] = std::make_pair(fleet.meanContext(), fleet.meanGenerated());
  SimResult result;
  MetricsCollector metrics(fleet, "slot", policy.name());
  policy.reset(fleet, options.seed);
  SlotStateTracker tracker(fleet);
  ServerPlan plan(fleet);
  const std::vector<GpuModel>& gpus = fleet.gpus();
  const int types = static_cast<int>(gpus.size());

  std::vector<double> queue(n, 0), queueC(n, 0), queueG(n, 0);
  std::vector<double> routed(n), routedC(n), routedG(n), wait(n), prefill(n), tpot(n), decodeT(n);
  std::vector<double> rate(types), avail(types);
  std::vector<int> targets(n);
  // down: routing goes around the region this slot (an outage, or back from one with no server
  // able to serve yet: `recovering`).
  std::vector<char> down(n, 0), outage(n, 0), recovering(n, 0);
  Allocation previous = Allocation::identity(n);

  for (int t = 0; t < slots; ++t) {
    if (options.cancel.cancelled()) throw RunCancelled(t);
    const double start = t * T, end = start + T;
    // Outages (region_events.h): a region down this slot has no server on, and its queue moves to
    // the nearest region that is up, before the policy looks at the fleet.
    // After an outage its servers come back cold: until one is ready within the slot the region
    // cannot serve, so routing goes around it too (`down`), though its servers stay as they are.
    bool anyDown = false;
    for (int j = 0; j < n; ++j) {
      outage[j] = fleet.down(j, start + T / 2);
      if (outage[j]) {
        plan.forceOff(j);
        recovering[j] = 1;
      } else if (recovering[j]) {
        bool serves = false;
        for (int k : fleet.regionServers(j)) {
          const Server& server = plan.servers()[k];
          serves = serves || server.state == ServerState::On ||
                   (server.state == ServerState::Warming && server.ready_at < end);
        }
        recovering[j] = !serves;
      }
      down[j] = outage[j] || recovering[j];
      anyDown = anyDown || down[j];
    }
    for (int j = 0; j < n; ++j) {
      const int k = down[j] ? nearestUp(fleet, down, j) : j;
      if (k < 0 || k == j || queue[j] <= 0) continue;
      queue[k] += queue[j], queueC[k] += queueC[j], queueG[k] += queueG[j];
      queue[j] = queueC[j] = queueG[j] = 0;
    }
    SlotState state = tracker.begin(t, start, T, demand.totals, queue, plan, previous);
    state.clock_s = demand.start_week_hour >= 0 ? demand.start_week_hour * 3600.0 + start : start;
    Allocation alloc = policy.allocate(state);
    requireAllocation(alloc, n, policy.name(), t);
    if (anyDown) alloc = rerouteAround(fleet, down, std::move(alloc));
    metrics.slotSwitch(previous, alloc, t == 0);

    std::fill(routed.begin(), routed.end(), 0.0);
    std::fill(routedC.begin(), routedC.end(), 0.0);
    std::fill(routedG.begin(), routedG.end(), 0.0);
    double slotArrivals = 0;
    for (int i = 0; i < n; ++i) {
      const double a = state.arrivals[i];
      slotArrivals += a;
      if (a <= 0) continue;
      for (int j = 0; j < n; ++j) {
        const double share = alloc.at(i, j);
        if (share <= 0) continue;
        routed[j] += share * a;
        routedC[j] += share * state.context_tokens[i];
        routedG[j] += share * state.generated_tokens[i];
      }
    }
    metrics.arrived(slotArrivals);

    serverTargets(policy, state, routed, targets);
    for (int j = 0; j < n; ++j)
      if (outage[j]) targets[j] = 0;
    if (t == 0)
      plan.startWarm(targets);
    else
      metrics.coldStarts(plan.apply(start, targets, /*drain_immediately=*/true));
    for (int j = 0; j < n; ++j)
      if (outage[j]) plan.forceOff(j);  // the autoscaler keeps at least one server: not here

    double slotServed = 0, slotRejected = 0, slotPower = 0;
    std::vector<double> busyShare(n, 0.0);
    for (int j = 0; j < n; ++j) {
      const std::vector<int>& list = fleet.regionServers(j);
      if (list.empty()) {
        // No GPU in this region holds the model: whatever is routed here cannot be served.
        if (routed[j] > 0) metrics.rejected("no server in the region fits the model", routed[j]);
        slotRejected += routed[j];
        routed[j] = 0;
        continue;
      }
      const double work = queue[j] + routed[j];
      const double c = work > 0 ? (queueC[j] + routedC[j]) / work : meanC;
      const double g = work > 0 ? (queueG[j] + routedG[j]) / work : meanG;
      for (int k = 0; k < types; ++k) {
        rate[k] = servingRequestsPerSecond(fleet.world().catalog[k], fleet.world().model, c, g,
                                           fleet.world().roofline, options.max_batch);
        avail[k] = 0;
      }
      double powered = 0, warmingTime = 0;
      std::vector<double> warmingByType(types, 0.0);
      for (int s : list) {
        const Server& server = plan.servers()[s];
        if (server.state == ServerState::Off) continue;
        powered += 1;
        if (server.state == ServerState::On) {
          avail[server.gpu] += T;
        } else if (server.state == ServerState::Warming) {
          const double ready = std::clamp(server.ready_at, start, end);
          avail[server.gpu] += end - ready;
          warmingByType[server.gpu] += ready - start;
          warmingTime += ready - start;
        }
      }
      double capacity = 0, available = 0;  // requests this slot; server-seconds
      for (int k = 0; k < types; ++k) capacity += avail[k] * rate[k], available += avail[k];
      const double served = std::min(work, capacity);
      // Served work in server-seconds at full rate: each type serves in proportion to its
      // capacity, served * avail_k / capacity of it, at rate_k.
      metrics.capacityUsed(j, capacity > 0 ? served / capacity * available : 0, available);
      const double left = work - served;
      wait[j] = fluidWait(queue[j], routed[j] / T, capacity / T, T);
      const double load = capacity > 0 ? served / capacity : 0;  // each server at this share
      double pre = 0, tp = 0, busy = 0, joules = 0, usd = 0;
      for (int k = 0; k < types; ++k) {
        const GpuModel& gpu = gpus[k];
        if (avail[k] > 0) {
          const SteadyState ss =
              serverSteadyState(gpu, load * rate[k], c, g, options.max_batch, left > 1e-9);
          const double w = avail[k] * rate[k] / capacity;
          pre += w * ss.prefill_s;
          tp += w * ss.tpot_s;
          const double idle = 1.0 - ss.prefill_share - ss.decode_share;
          joules += avail[k] * (ss.prefill_share * gpu.prefill_w + ss.decode_share * gpu.decode_w +
                                idle * gpu.idle_w);
          busy += avail[k] * (ss.prefill_share + ss.decode_share);
        }
        joules += warmingByType[k] * gpu.idle_w;  // loading weights: drawn as idle (assumption)
      }
      for (int s : list) {
        const Server& server = plan.servers()[s];
        if (server.state != ServerState::Off) usd += T / 3600.0 * gpus[server.gpu].usd_per_hour;
      }
      prefill[j] = pre;
      tpot[j] = tp;
      decodeT[j] = std::max(0.0, g - 1.0) * tp;
      metrics.serverTime(j, busy, powered * T, joules, usd);
      slotPower += joules / 3.6e6 * fleet.price(j);
      const double onTime = std::max(1e-9, powered * T - warmingTime);
      busyShare[j] = busy / onTime;
      metrics.countServed(served);
      slotServed += served;
      queueC[j] = work > 0 ? (queueC[j] + routedC[j]) * left / work : 0;
      queueG[j] = work > 0 ? (queueG[j] + routedG[j]) * left / work : 0;
      queue[j] = left;
    }

    // Latency samples: the slot's arrivals, one group per (home, serving) pair at its means.
    double responseSum = 0, responseWeight = 0;
    for (int i = 0; i < n; ++i) {
      const double a = state.arrivals[i];
      if (a <= 0) continue;
      const double tokens = (state.context_tokens[i] + state.generated_tokens[i]) / a;
      for (int j = 0; j < n; ++j) {
        const double weight = alloc.at(i, j) * a;
        if (weight <= 0 || fleet.regionServers(j).empty()) continue;
        const double network = 2.0 * fleet.latency(i, j);  // request there, tokens back
        const double ttft = network + wait[j] + prefill[j];
        const double e2e = ttft + decodeT[j];
        metrics.served(ttft, tpot[j], e2e, wait[j], network, i != j, tokens, weight, false);
        responseSum += e2e * weight;
        responseWeight += weight;
      }
    }
    double queued = 0;
    for (double q : queue) queued += q;
    metrics.setQueued(queued);
    if (options.check_invariants) metrics.checkConservation(t);
    tracker.end(busyShare);
    recordSlot(result, policy, state, routed, plan, busyShare);
    result.series.power_usd.push_back(slotPower);
    result.series.arrivals.push_back(slotArrivals);
    result.series.served.push_back(slotServed);
    result.series.queued.push_back(queued);
    result.series.rejected.push_back(slotRejected);
    result.series.mean_response_s.push_back(responseWeight > 0 ? responseSum / responseWeight : 0);
    previous = alloc;
    result.allocations.push_back(std::move(alloc));
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  result.metrics = metrics.finish(slots, slots * T, wall);
  result.metrics.fallbacks = result.fallbacks;
  return result;
}

}  // namespace doppler::fleet::sim

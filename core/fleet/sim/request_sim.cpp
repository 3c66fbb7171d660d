// The per-request discrete-event simulator (simulate.h, docs/fleet_sim.md "Per-request model").
//
// Regions are independent within a slot once the slot's allocation has routed its requests, so
// each region's events are run to the slot's end in turn; the policy then sees every region's
// state at the next slot's start. Decode is simulated per epoch, not per step: between two events
// a server's batch is fixed, every sequence gains one token per step and the step time is
// max(alpha + beta * total context, gamma * batch), so the time to advance k steps (progress
// treated as continuous) is an integral in closed form, and so is its inverse. Events are then
// arrivals, admissions, prefill ends and completions: O(requests), not O(tokens).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

#include "core/common/random.h"
#include "core/fleet/sim/matching.h"
#include "core/fleet/sim/simulate.h"
#include "core/fleet/sim/slot_state.h"

namespace doppler::fleet::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Seconds to advance `dx` decode steps from total context c0 with `batch` sequences:
// integral over u in [0, dx] of max(m0 + m1 u, c) with m0 = alpha + beta c0, m1 = beta batch,
// c = gamma batch.
double epochTime(const GpuModel& g, double c0, int batch, double dx) {
  const double m0 = g.alpha + g.beta * c0, m1 = g.beta * batch, c = g.gamma * batch;
  if (m0 >= c || m1 <= 0) return std::max(m0, c) * dx + (m0 >= c ? m1 * dx * dx / 2 : 0.0);
  const double knee = (c - m0) / m1;  // where memory traffic overtakes compute
  if (dx <= knee) return c * dx;
  const double u = dx - knee;
  return c * knee + c * u + m1 * u * u / 2;
}

// The inverse: steps advanced in `dt` seconds.
double epochProgress(const GpuModel& g, double c0, int batch, double dt) {
  const double m0 = g.alpha + g.beta * c0, m1 = g.beta * batch, c = g.gamma * batch;
  auto quadratic = [&](double a0, double t) {  // a0 u + m1 u^2 / 2 = t
    if (m1 <= 0) return t / a0;
    return (std::sqrt(a0 * a0 + 2 * m1 * t) - a0) / m1;
  };
  if (m0 >= c || m1 <= 0) return m0 >= c ? quadratic(m0, dt) : dt / c;
  const double knee = (c - m0) / m1;
  if (dt <= c * knee) return dt / c;
  return knee + quadratic(c, dt - c * knee);
}

struct Job {
  double arrival = 0;    // at home
  double at_region = 0;  // at the serving region
  double admitted = 0, first_token = 0, finished = 0;
  double join_x = 0;  // server progress when it started decoding
  int home = 0, region = 0, context = 0, generated = 0;
  int server = -1;
};

struct ServerRun {
  std::vector<int> batch;     // decoding
  std::vector<int> prefills;  // in the current prefill iteration
  double kv_used = 0;         // reserved tokens (prompt + output of every admitted job)
  bool prefilling = false;
  double prefill_end = 0;
  double x0 = 0, t0 = 0, c0 = 0;  // decode epoch: progress, start time, total context
  double next_target = kInf;      // smallest progress at which a batch member finishes
  // Accounting since `since`: time in each phase, and powered time.
  double since = 0, prefill_s = 0, decode_s = 0, idle_s = 0, warming_s = 0;
  std::vector<double> last_home;  // when it last admitted a request from each home (TORTA)
};

class RequestSimulator {
 public:
  RequestSimulator(const FleetModel& fleet, const Demand& demand, SchedulingPolicy& policy)
      : fleet_(fleet),
        demand_(demand),
        policy_(policy),
        options_(fleet.options()),
        plan_(fleet),
        metrics_(fleet, "request", policy.name()),
        runs_(fleet.servers().size()),
        queues_(fleet.regions()),
        incoming_(fleet.regions()),
        incomingNext_(fleet.regions(), 0) {}

  SimResult run();

 private:
  const GpuModel& gpuOf(int server) const { return fleet_.gpus()[plan_.servers()[server].gpu]; }
  void account(int server, double t);
  double nextEvent(int server) const;
  void advanceDecode(int server, double t);
  void startPrefill(int server, double t, int region);
  void serverEvent(int server, double t);
  void dispatch(int region, double t);
  void runRegion(int region, double end);
  void finishJob(int job, double t);
  void refreshTarget(int server);
  int chooseServer(int region, double need, int home, double now) const;
  long long inSystem() const;

  const FleetModel& fleet_;
  const Demand& demand_;
  SchedulingPolicy& policy_;
  bool scored_ = false;  // the policy's TORTA matching instead of least-KV-loaded (run())
  const SimOptions& options_;
  ServerPlan plan_;
  MetricsCollector metrics_;
  std::vector<Job> jobs_;
  std::vector<ServerRun> runs_;
  std::vector<std::deque<int>> queues_;
  std::vector<std::vector<std::pair<double, int>>> incoming_;  // (time at region, job), sorted
  std::vector<size_t> incomingNext_;
  double completed_ = 0, rejected_ = 0;
  std::vector<double> busyInSlot_;
};

void RequestSimulator::account(int server, double t) {
  ServerRun& run = runs_[server];
  const double dt = t - run.since;
  if (dt > 0) {
    switch (plan_.servers()[server].state) {
      case ServerState::Off:
        break;
      case ServerState::Warming:
        run.warming_s += dt;
        break;
      default:
        if (run.prefilling)
          run.prefill_s += dt;
        else if (!run.batch.empty())
          run.decode_s += dt;
        else
          run.idle_s += dt;
        if (run.prefilling || !run.batch.empty()) busyInSlot_[plan_.servers()[server].region] += dt;
    }
  }
  run.since = t;
}

double RequestSimulator::nextEvent(int server) const {
  const Server& s = plan_.servers()[server];
  if (s.state == ServerState::Off) return kInf;
  if (s.state == ServerState::Warming) return s.ready_at;
  const ServerRun& run = runs_[server];
  if (run.prefilling) return run.prefill_end;
  if (run.batch.empty()) return kInf;
  return run.t0 + epochTime(gpuOf(server), run.c0, static_cast<int>(run.batch.size()),
                            run.next_target - run.x0);
}

// Moves the decode epoch's start to t (progress and total context as of t).
void RequestSimulator::advanceDecode(int server, double t) {
  ServerRun& run = runs_[server];
  if (run.prefilling) return;  // decode is paused; the epoch restarts at the prefill's end
  if (!run.batch.empty() && t > run.t0) {
    const int b = static_cast<int>(run.batch.size());
    double dx = epochProgress(gpuOf(server), run.c0, b, t - run.t0);
    dx = std::min(dx, run.next_target - run.x0);  // never past the next completion
    run.x0 += dx;
    run.c0 += b * dx;
  }
  run.t0 = t;
}

void RequestSimulator::refreshTarget(int server) {
  ServerRun& run = runs_[server];
  run.next_target = kInf;
  for (int job : run.batch)
    run.next_target =
        std::min(run.next_target, jobs_[job].join_x + std::max(0, jobs_[job].generated - 1));
}

int RequestSimulator::chooseServer(int region, double need, int home, double now) const {
  int best = -1;
  double bestLoad = kInf;
  const std::vector<int>& list = fleet_.regionServers(region);
  // The region's list is fastest first (FleetModel::regionServers).
  const double fastest = list.empty() ? 0 : fleet_.serverRate(fleet_.servers()[list.front()].gpu);
  for (int id : list) {
    if (plan_.servers()[id].state != ServerState::On) continue;
    const ServerRun& run = runs_[id];
    if (run.prefilling) continue;  // it picks up the queue when its prefill ends
    const GpuModel& g = gpuOf(id);
    if (run.kv_used + need > g.kv_tokens) continue;
    if (static_cast<int>(run.batch.size()) >= options_.max_batch) continue;
    if (scored_) {
      // TORTA's matching (matching.h): the best score first; "load" is its negation here.
      ServerView v;
      v.rate = fleet_.serverRate(fleet_.servers()[id].gpu);
      v.fastest_rate = fastest;
      v.kv_tokens = g.kv_tokens;
      v.kv_used = run.kv_used;
      v.batch = static_cast<int>(run.batch.size());
      v.max_batch = options_.max_batch;
      if (!run.last_home.empty() && run.last_home[home] > -kInf)
        v.since_same_home_s = now - run.last_home[home];
      const double score = -matchScore(v, need);
      if (score < bestLoad) bestLoad = score, best = id;
      continue;
    }
    // Least loaded by KV share; the list is fastest first, so ties go to the faster GPU.
    const double load = run.kv_used / g.kv_tokens;
    if (load < bestLoad) bestLoad = load, best = id;
  }
  return best;
}

void RequestSimulator::startPrefill(int server, double t, int region) {
  ServerRun& run = runs_[server];
  const GpuModel& g = gpuOf(server);
  advanceDecode(server, t);
  account(server, t);
  std::deque<int>& queue = queues_[region];
  double tokens = 0;
  // The head job is taken; then the next ones in FIFO order while they fit this server and the
  // iteration's prompt-token budget (a job that does not fit stops the scan: FIFO).
  while (!queue.empty()) {
    const Job& job = jobs_[queue.front()];
    const double need = job.context + job.generated;
    const int size = static_cast<int>(run.batch.size() + run.prefills.size());
    if (run.kv_used + need > g.kv_tokens || size >= options_.max_batch) break;
    if (!run.prefills.empty() && tokens + job.context > options_.prefill_token_budget) break;
    run.kv_used += need;
    tokens += job.context;
    jobs_[queue.front()].admitted = t;
    jobs_[queue.front()].server = server;
    run.prefills.push_back(queue.front());
    queue.pop_front();
  }
  run.prefilling = true;
  run.prefill_end = t + g.prefillSeconds(tokens);
}

void RequestSimulator::finishJob(int job, double t) {
  jobs_[job].finished = t;
  const Job& j = jobs_[job];
  const double back = fleet_.latency(j.region, j.home);  // the last token travels home
  const double ttft = j.first_token - j.arrival + back;
  const double e2e = j.finished - j.arrival + back;
  const double tpot = j.generated > 1 ? (j.finished - j.first_token) / (j.generated - 1) : 0.0;
  const double network = fleet_.latency(j.home, j.region) + back;
  metrics_.served(ttft, tpot, e2e, j.admitted - j.at_region, network, j.home != j.region,
                  j.context + j.generated);
  // Its work at the server's full rate (at the demand's mean sizes, as the slot model counts).
  const int gpu = plan_.servers()[j.server].gpu;
  metrics_.capacityUsed(j.region, 1.0 / std::max(1e-12, fleet_.serverRate(gpu)), 0);
  completed_ += 1;
}

void RequestSimulator::serverEvent(int server, double t) {
  Server& s = plan_.servers()[server];
  ServerRun& run = runs_[server];
  account(server, t);
  if (s.state == ServerState::Warming) {
    s.state = ServerState::On;
    return;
  }
  if (run.prefilling) {
    run.prefilling = false;
    run.t0 = t;
    for (int job : run.prefills) {
      Job& j = jobs_[job];
      j.first_token = t;
      if (j.generated <= 1) {
        run.kv_used -= j.context + j.generated;
        finishJob(job, t);
        continue;
      }
      j.join_x = run.x0;
      run.c0 += j.context + 1;
      run.batch.push_back(job);
    }
    run.prefills.clear();
    refreshTarget(server);
  } else if (!run.batch.empty()) {
    // A completion: progress reaches the smallest target exactly.
    const int b = static_cast<int>(run.batch.size());
    run.c0 += b * (run.next_target - run.x0);
    run.x0 = run.next_target;
    run.t0 = t;
    std::vector<int> keep;
    keep.reserve(run.batch.size());
    for (int job : run.batch) {
      const Job& j = jobs_[job];
      if (j.join_x + (j.generated - 1) <= run.x0 + 1e-9) {
        run.kv_used -= j.context + j.generated;
        run.c0 -= j.context + 1 + (run.x0 - j.join_x);
        finishJob(job, t);
      } else {
        keep.push_back(job);
      }
    }
    run.batch.swap(keep);
    if (run.batch.empty()) run.c0 = 0, run.kv_used = std::max(0.0, run.kv_used);
    refreshTarget(server);
  }
  if (s.state == ServerState::Draining && !run.prefilling && run.batch.empty())
    plan_.markOff(server);
}

void RequestSimulator::dispatch(int region, double t) {
  std::deque<int>& queue = queues_[region];
  while (!queue.empty()) {
    const Job& head = jobs_[queue.front()];
    const double need = head.context + head.generated;
    if (need > fleet_.regionMaxKv(region)) {
      // No server of this region could ever hold it: rejected rather than queued forever.
      metrics_.rejected(fleet_.regionServers(region).empty()
                            ? "no server in the region fits the model"
                            : "prompt + output exceed every server's KV cache in the region");
      rejected_ += 1;
      queue.pop_front();
      continue;
    }
    const int server = chooseServer(region, need, head.home, t);
    if (server < 0) return;  // FIFO: the head waits for room
    if (scored_) {
      std::vector<double>& last = runs_[server].last_home;
      if (last.empty()) last.assign(fleet_.regions(), -kInf);
      last[head.home] = t;
    }
    startPrefill(server, t, region);
  }
}

void RequestSimulator::runRegion(int region, double end) {
  std::vector<std::pair<double, int>>& in = incoming_[region];
  size_t& next = incomingNext_[region];
  const std::vector<int>& list = fleet_.regionServers(region);
  while (true) {
    const double tArrive = next < in.size() ? in[next].first : kInf;
    double tServer = kInf;
    int server = -1;
    for (int id : list) {
      const double e = nextEvent(id);
      if (e < tServer) tServer = e, server = id;
    }
    const double t = std::min(tArrive, tServer);
    if (!(t < end)) break;
    if (tArrive <= tServer) {
      // Every arrival at this instant joins the queue before dispatching, so requests that
      // arrive together can share one prefill iteration.
      while (next < in.size() && in[next].first <= tArrive)
        queues_[region].push_back(in[next++].second);
    } else {
      serverEvent(server, t);
    }
    dispatch(region, t);
  }
}

long long RequestSimulator::inSystem() const {
  long long n = 0;
  for (size_t r = 0; r < queues_.size(); ++r)
    n += static_cast<long long>(queues_[r].size() + incoming_[r].size() - incomingNext_[r]);
  for (const ServerRun& run : runs_)
    n += static_cast<long long>(run.batch.size() + run.prefills.size());
  return n;
}

SimResult RequestSimulator::run() {
  const auto wallStart = std::chrono::steady_clock::now();
  const int n = fleet_.regions();
  const int slots = demand_.totals.slots;
  const double T = demand_.slot_seconds;
  SimResult result;
  policy_.reset(fleet_, options_.seed);
  scored_ = policy_.scoresServers();
  SlotStateTracker tracker(fleet_);
  SplitMix64 rng = streamFor(options_.seed, 0x726f757465ULL);  // "route"
  jobs_.resize(demand_.requests.size());
  size_t nextRequest = 0;
  std::vector<double> queued(n), routed(n);
  std::vector<int> targets(n);
  std::vector<double> cumulative(static_cast<size_t>(n) * n);
  Allocation previous = Allocation::identity(n);
  double arrivals = 0;

  for (int t = 0; t < slots; ++t) {
    if (options_.cancel.cancelled()) throw RunCancelled(t);
    const double start = t * T, end = start + T;
    for (int r = 0; r < n; ++r)
      queued[r] = static_cast<double>(queues_[r].size() + incoming_[r].size() - incomingNext_[r]);
    SlotState state = tracker.begin(t, start, T, demand_.totals, queued, plan_, previous);
    state.clock_s = demand_.start_week_hour >= 0 ? demand_.start_week_hour * 3600.0 + start : start;
    Allocation alloc = policy_.allocate(state);
    requireAllocation(alloc, n, policy_.name(), t);
    metrics_.slotSwitch(previous, alloc, t == 0);
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j)
        cumulative[static_cast<size_t>(i) * n + j] = sum += alloc.at(i, j);
    }

    // Route this slot's requests: region j drawn from the home row (one uniform per request, in
    // arrival order, so a seed gives the same routing on every platform).
    std::fill(routed.begin(), routed.end(), 0.0);
    double slotArrivals = 0;
    for (int r = 0; r < n; ++r) {
      std::vector<std::pair<double, int>>& in = incoming_[r];
      in.erase(in.begin(), in.begin() + static_cast<long>(incomingNext_[r]));
      incomingNext_[r] = 0;
    }
    while (nextRequest < demand_.requests.size() && demand_.requests[nextRequest].arrival_s < end) {
      const Request& req = demand_.requests[nextRequest];
      Job& job = jobs_[nextRequest];
      job.arrival = req.arrival_s;
      job.home = req.home_region;
      job.context = req.context_tokens;
      job.generated = req.generated_tokens;
      const double u = rng.uniform();
      const double* row = &cumulative[static_cast<size_t>(job.home) * n];
      int dest = static_cast<int>(std::upper_bound(row, row + n, u * row[n - 1]) - row);
      dest = std::min(dest, n - 1);
      while (dest > 0 && alloc.at(job.home, dest) <= 0) --dest;  // never a zero-share region
      job.region = dest;
      job.at_region = job.arrival + fleet_.latency(job.home, dest);
      incoming_[dest].push_back({job.at_region, static_cast<int>(nextRequest)});
      routed[dest] += 1;
      slotArrivals += 1;
      ++nextRequest;
    }
    for (auto& in : incoming_) std::sort(in.begin(), in.end());
    arrivals += slotArrivals;
    metrics_.arrived(slotArrivals);

    // Servers: account up to now, then the autoscaler (the same rule as the slot model).
    for (size_t s = 0; s < runs_.size(); ++s) {
      advanceDecode(static_cast<int>(s), start);
      account(static_cast<int>(s), start);
    }
    busyInSlot_.assign(n, 0.0);
    serverTargets(policy_, state, routed, targets);
    if (t == 0) {
      plan_.startWarm(targets);
    } else {
      metrics_.coldStarts(plan_.apply(start, targets, /*drain_immediately=*/false));
    }
    for (size_t s = 0; s < runs_.size(); ++s) {
      const ServerRun& run = runs_[s];
      if (plan_.servers()[s].state == ServerState::Draining && !run.prefilling && run.batch.empty())
        plan_.markOff(static_cast<int>(s));
    }
    for (int j = 0; j < n; ++j) dispatch(j, start);  // newly on servers take the backlog
    for (int j = 0; j < n; ++j) runRegion(j, end);

    for (size_t s = 0; s < runs_.size(); ++s) {
      advanceDecode(static_cast<int>(s), end);
      account(static_cast<int>(s), end);
    }
    std::vector<double> busyShare(n, 0.0);
    for (int j = 0; j < n; ++j) {
      const int on = std::max(1, plan_.onIn(j));
      busyShare[j] = busyInSlot_[j] / (on * T);
    }
    tracker.end(busyShare);
    recordSlot(result, policy_, state, routed, plan_, busyShare);
    const double system = static_cast<double>(inSystem());
    metrics_.setQueued(system);
    // The invariant, from independent counts: every request that arrived has completed, is in
    // the system (in flight to its region, queued, prefilling or decoding) or was rejected.
    if (options_.check_invariants) {
      if (std::abs(completed_ + system + rejected_ - arrivals) > 0.5)
        throw std::logic_error("request simulator lost requests at slot " + std::to_string(t));
      metrics_.checkConservation(t);
    }
    result.series.arrivals.push_back(slotArrivals);
    result.series.served.push_back(completed_);
    result.series.queued.push_back(system);
    result.series.rejected.push_back(rejected_);
    previous = alloc;
    result.allocations.push_back(std::move(alloc));
  }
  // Requests still in the system at the horizon's end finish with the last slot's servers and
  // routing (no new arrivals), so every arrival has a latency, as in the slot model.
  if (options_.drain_at_end) {
    const double far = slots * T + 1e7;
    for (int j = 0; j < n; ++j) runRegion(j, far);
    metrics_.setQueued(static_cast<double>(inSystem()));
  }
  const double horizon = slots * T;
  for (size_t s = 0; s < runs_.size(); ++s) {
    const ServerRun& run = runs_[s];
    const GpuModel& g = gpuOf(static_cast<int>(s));
    const double powered = run.prefill_s + run.decode_s + run.idle_s + run.warming_s;
    const double joules = run.prefill_s * g.prefill_w + run.decode_s * g.decode_w +
                          (run.idle_s + run.warming_s) * g.idle_w;
    metrics_.serverTime(plan_.servers()[s].region, run.prefill_s + run.decode_s, powered, joules,
                        powered / 3600.0 * g.usd_per_hour);
    // Available capacity: the time it could serve (not warming).
    metrics_.capacityUsed(plan_.servers()[s].region, 0, run.prefill_s + run.decode_s + run.idle_s);
  }
  // Per-slot mean response is not tracked here (requests finish in later slots).
  result.series.mean_response_s.assign(slots, 0.0);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  result.metrics = metrics_.finish(slots, horizon, wall);
  result.metrics.fallbacks = result.fallbacks;
  return result;
}

}  // namespace

SimResult simulateRequests(const FleetModel& fleet, const Demand& demand,
                           SchedulingPolicy& policy) {
  RequestSimulator simulator(fleet, demand, policy);
  return simulator.run();
}

}  // namespace doppler::fleet::sim

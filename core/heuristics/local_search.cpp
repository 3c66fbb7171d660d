#include "core/heuristics/local_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/heuristics/builtin_methods.h"
#include "core/heuristics/list_scheduler.h"
#include "core/heuristics/search_start.h"
#include "core/sim/lower_bound.h"

namespace doppler {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kProgressInterval = std::chrono::milliseconds(50);

// The move generator: mutates the assignment in place and remembers how to undo the last move.
// Nothing allocates after construction.
class Mover {
 public:
  Mover(const CostTable& c, Rng& rng, const AnnealConfig& cfg)
      : c_(c),
        rng_(rng),
        n_(c.nodes()),
        d_(c.devices()),
        pNeighbour_(cfg.p_neighbour),
        pCluster_(cfg.p_cluster),
        pSwap_(cfg.p_swap),
        maxCluster_(std::max(2, cfg.max_cluster)),
        mark_(c.nodes(), 0) {
    undoNode_.reserve(n_);
    undoDev_.reserve(n_);
    queue_.reserve(n_);
    if (cfg.hints) {
      if (cfg.hints->device_weight.size() == static_cast<size_t>(n_) * d_)
        deviceWeight_ = cfg.hints->device_weight.data();
      if (cfg.hints->node_weight.size() == static_cast<size_t>(n_)) {
        nodeCumulative_.resize(n_);
        double total = 0;
        for (int v = 0; v < n_; ++v)
          nodeCumulative_[v] = total += std::max(0.0, cfg.hints->node_weight[v]);
        if (!(total > 0)) nodeCumulative_.clear();
      }
    }
  }

  void propose(Assignment& a) {
    undoNode_.clear();
    undoDev_.clear();
    double r = rng_.uniform();
    if (r < pNeighbour_) {
      if (neighbourMove(a)) return;
    } else if ((r -= pNeighbour_) < pCluster_) {
      if (clusterMove(a)) return;
    } else if ((r -= pCluster_) < pSwap_) {
      if (swapMove(a)) return;
    }
    randomMove(a);
  }
  void undo(Assignment& a) {
    for (size_t i = undoNode_.size(); i-- > 0;) a[undoNode_[i]] = undoDev_[i];
    undoNode_.clear();
    undoDev_.clear();
  }

 private:
  void set(Assignment& a, int v, int dev) {
    undoNode_.push_back(v);
    undoDev_.push_back(a[v]);
    a[v] = dev;
  }
  int degree(int v) const {
    return c_.inDegree(v) + static_cast<int>(c_.outEnd(v) - c_.outBegin(v));
  }
  // The k-th neighbour of v: predecessors first, then successors.
  int neighbour(int v, int k) const {
    const int in = c_.inDegree(v);
    return k < in ? c_.edgeSrc(c_.inBegin(v)[k]) : c_.edgeDst(c_.outBegin(v)[k - in]);
  }
  // A node to start a move from: uniform, or by the hints' node weights.
  int pickNode() {
    if (nodeCumulative_.empty()) return rng_.below(n_);
    const double x = rng_.uniform() * nodeCumulative_.back();
    const auto it = std::upper_bound(nodeCumulative_.begin(), nodeCumulative_.end(), x);
    return std::min(n_ - 1, static_cast<int>(it - nodeCumulative_.begin()));
  }
  // A device for v other than its own `dev`: uniform, or by the hints' device weights of v.
  int otherDevice(int v, int dev) {
    if (deviceWeight_) {
      const double* w = deviceWeight_ + static_cast<size_t>(v) * d_;
      double total = 0;
      for (int d = 0; d < d_; ++d)
        if (d != dev) total += w[d];
      if (total > 0) {
        double x = rng_.uniform() * total;
        for (int d = 0; d < d_; ++d) {
          if (d == dev) continue;
          if ((x -= w[d]) < 0) return d;
        }
      }
    }
    int d = rng_.below(d_ - 1);
    return d >= dev ? d + 1 : d;
  }
  // A device of one of v's neighbours other than v's own (random among them), or -1.
  int neighbourDevice(const Assignment& a, int v) {
    const int deg = degree(v);
    if (deg == 0) return -1;
    const int k0 = rng_.below(deg);
    for (int i = 0; i < deg; ++i) {
      const int u = neighbour(v, (k0 + i) % deg);
      if (a[u] != a[v]) return a[u];
    }
    return -1;
  }

  void randomMove(Assignment& a) {
    const int v = pickNode();
    set(a, v, otherDevice(v, a[v]));
  }
  // v joins a neighbour (predecessor or successor) that sits on another device.
  bool neighbourMove(Assignment& a) {
    const int v = pickNode();
    const int dev = neighbourDevice(a, v);
    if (dev < 0) return false;
    set(a, v, dev);
    return true;
  }
  // A connected group of 2..max_cluster nodes that share a device (grown breadth-first from a
  // random node) moves together, to a neighbour's device if the seed has one elsewhere. Single
  // moves rarely pay off when transfers are costly: moving one node out of a chain adds two.
  bool clusterMove(Assignment& a) {
    const int v = pickNode();
    const int from = a[v];
    int to = neighbourDevice(a, v);
    if (to < 0) to = otherDevice(v, from);
    const size_t limit = static_cast<size_t>(2 + rng_.below(maxCluster_ - 1));
    if (++stamp_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      stamp_ = 1;
    }
    queue_.clear();
    queue_.push_back(v);
    mark_[v] = stamp_;
    for (size_t head = 0; head < queue_.size() && queue_.size() < limit; ++head) {
      const int x = queue_[head];
      const int deg = degree(x);
      if (deg == 0) continue;
      const int k0 = rng_.below(deg);
      for (int i = 0; i < deg && queue_.size() < limit; ++i) {
        const int y = neighbour(x, (k0 + i) % deg);
        if (a[y] == from && mark_[y] != stamp_) {
          mark_[y] = stamp_;
          queue_.push_back(y);
        }
      }
    }
    for (const int x : queue_) set(a, x, to);
    return true;
  }
  bool swapMove(Assignment& a) {
    for (int tries = 0; tries < 8; ++tries) {
      const int v = rng_.below(n_), u = rng_.below(n_);
      if (a[u] == a[v]) continue;
      const int dv = a[v];
      set(a, v, a[u]);
      set(a, u, dv);
      return true;
    }
    return false;
  }

  const CostTable& c_;
  Rng& rng_;
  int n_, d_;
  double pNeighbour_, pCluster_, pSwap_;
  int maxCluster_;
  std::vector<int> undoNode_, undoDev_, queue_;
  std::vector<unsigned> mark_;
  unsigned stamp_ = 0;
  const double* deviceWeight_ = nullptr;  // the hints' nodes x devices, or null
  std::vector<double> nodeCumulative_;    // running sums of the hints' node weights, or empty
};

}  // namespace

Placement anneal(const PlaceContext& ctx, const Assignment& start, const AnnealConfig& cfg,
                 const std::vector<int>& order) {
  const CostTable& c = ctx.costs;
  Placement result;
  result.assignment = start;
  result.order = order;
  const long budget = std::max(0L, ctx.budget);
  if (budget == 0 || c.nodes() == 0) return result;

  Simulator sim(c, ctx.sim);
  Rng rng(ctx.seed ^ 0x5eed5eed5eedULL);
  Rng accept(seedFor(ctx.seed, 0, 0xacce97ULL));
  Mover mover(c, rng, cfg);

  auto cancelled = [&] { return ctx.cancel.cancelled(); };
  if (cancelled()) {
    result.cancelled = true;
    return result;
  }

  Assignment cur = start;
  double curMs = sim.makespan(cur, order);
  long done = 1;
  Assignment& best = result.assignment;
  double bestMs = curMs;
  const double startMs = curMs;
  result.start_makespan_us = startMs;

  auto lastReport = Clock::now();
  auto report = [&](bool force) {
    if (!ctx.progress) return;
    const auto now = Clock::now();
    if (!force && now - lastReport < kProgressInterval) return;
    lastReport = now;
    ctx.progress(Progress{done, budget, bestMs});
  };

  // With a time limit each restart gets an equal share of what is left of it, and the clock is
  // read every few evaluations (an evaluation takes microseconds).
  const bool timed = cfg.time_ms > 0;
  const auto began = Clock::now();
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::milli>(cfg.time_ms));
  constexpr long kClockEvery = 16;
  const bool canMove = c.devices() > 1;
  // Without noise a budget that cannot be spent usefully is not spent: a space no larger than
  // the budget is searched whole (a 3-node graph on 4 devices has 64 placements, and 10^12
  // evaluations ran for days), and a placement at the lower bound cannot be beaten.
  const bool exact = ctx.sim.noise == 0;
  const double bound = exact ? lowerBound(c).value() : 0;
  auto atBound = [&] { return exact && bestMs <= bound * (1 + 1e-9); };
  if (exact && canMove) {
    double space = 1;
    for (int v = 0; v < c.nodes() && space <= static_cast<double>(budget); ++v)
      space *= c.devices();
    if (space <= static_cast<double>(budget)) {
      // Every assignment, in mixed radix (node 0 the fastest digit), from all on device 0.
      std::fill(cur.begin(), cur.end(), 0);
      const long total = static_cast<long>(space);
      for (long k = 0; k < total; ++k) {
        if (k > 0) {
          for (int v = 0; v < c.nodes(); ++v) {
            if (++cur[v] < c.devices()) break;
            cur[v] = 0;
          }
        }
        if ((k & 1023) == 0 && cancelled()) {
          result.cancelled = true;
          break;
        }
        if (timed && k % kClockEvery == 0 && Clock::now() - began >= limit) {
          result.out_of_time = true;
          break;
        }
        const double ms = sim.makespanUpTo(cur, bestMs, order);
        ++done;
        if (ms < bestMs) {
          bestMs = ms;
          std::copy(cur.begin(), cur.end(), best.begin());
        }
        report(false);
      }
      result.exhaustive = !result.cancelled && done == total + 1;
      result.reached_lower_bound = atBound();
      result.evaluations = done;
      report(true);
      return result;
    }
  }
  const long moves = canMove ? budget - 1 : 0;
  const int restarts = static_cast<int>(std::clamp<long>(cfg.restarts, 1, std::max(1L, moves)));
  const double t0 = cfg.t0 * startMs;

  result.reached_lower_bound = atBound();
  for (int r = 0; r < restarts && !result.cancelled && !result.reached_lower_bound; ++r) {
    const long steps = moves / restarts + (r < moves % restarts ? 1 : 0);
    if (r > 0) {
      std::copy(best.begin(), best.end(), cur.begin());
      curMs = bestMs;
    }
    double factor = cfg.cooling;
    if (factor <= 0) factor = steps > 1 ? std::pow(1e-3, 1.0 / static_cast<double>(steps - 1)) : 1;
    double temp = t0;
    const auto runBegan = Clock::now();
    const auto runTime = (began + limit - runBegan) / (restarts - r);
    bool outOfTime = false;
    for (long s = 0; s < steps; ++s) {
      if (cancelled()) {
        result.cancelled = true;
        break;
      }
      if (timed && s % kClockEvery == 0) {
        const auto now = Clock::now();
        if (now - began >= limit) {
          outOfTime = result.out_of_time = true;
          break;
        }
        if (now - runBegan >= runTime) break;
        if (cfg.cooling <= 0) {
          // Cool by whichever is further along, the run's time or its evaluations.
          const double byTime = std::chrono::duration<double>(now - runBegan) /
                                std::chrono::duration<double>(runTime);
          const double bySteps = static_cast<double>(s) / static_cast<double>(steps);
          temp = t0 * std::pow(1e-3, std::clamp(std::max(byTime, bySteps), 0.0, 1.0));
        }
      }
      mover.propose(cur);
      // Metropolis: a move that lengthens the makespan by delta is taken when u < exp(-delta /
      // temp), i.e. when the makespan is below curMs - temp * ln(u). Drawing u first turns that
      // into a cutoff, and the simulator stops a rejected move as soon as it is sure to exceed
      // it. u comes from its own stream so the moves do not depend on which moves were taken.
      const double u = accept.uniform();
      const double cutoff = temp > 0 && u > 0 ? curMs - temp * std::log(u) : curMs;
      const double ms = sim.makespanUpTo(cur, cutoff, order);
      ++done;
      if (ms <= cutoff) {
        curMs = ms;
        if (ms < bestMs) {
          bestMs = ms;
          std::copy(cur.begin(), cur.end(), best.begin());
          if (atBound()) {
            result.reached_lower_bound = true;
            break;
          }
        }
      } else {
        mover.undo(cur);
      }
      if (!timed || cfg.cooling > 0) temp *= factor;
      report(false);
    }
    if (outOfTime) break;
  }
  result.evaluations = done;
  report(true);
  return result;
}

namespace {

std::optional<SearchStart> registeredStart(const std::string& name) {
  for (SearchStart& s : searchStarts())
    if (s.name == name) return std::move(s);
  return std::nullopt;
}

// The start choices: the list schedules and random, then what the program registered
// (search_start.h), each described in the parameter's text.
ParamSpec startSpec() {
  ParamSpec spec{"start",
                 ParamSpec::Type::Choice,
                 "critical-path",
                 0,
                 0,
                 {"critical-path", "critical-path-join", "heft", "random"},
                 "The assignment the search starts from (critical-path-join: critical-path with "
                 "the earliest-join device rule)"};
  for (const SearchStart& s : searchStarts()) {
    spec.choices.push_back(s.name);
    spec.description += "; " + s.name + ": " + s.description;
  }
  return spec;
}

// A registered start comes from outside the core: check it places every node on a device.
void checkStart(const CostTable& costs, const Assignment& a, const std::string& from) {
  const std::string field = "--param start=" + from;
  if (static_cast<int>(a.size()) != costs.nodes())
    throw InputError("", field,
                     "the start places " + std::to_string(a.size()) + " nodes, the graph has " +
                         std::to_string(costs.nodes()));
  for (size_t v = 0; v < a.size(); ++v)
    if (a[v] < 0 || a[v] >= costs.devices())
      throw InputError("", field,
                       "the start puts node " + std::to_string(v) + " on device " +
                           std::to_string(a[v]) + " of " + std::to_string(costs.devices()));
}

class LocalSearch : public Method {
 public:
  std::string name() const override { return "local-search"; }
  std::string description() const override {
    return "Simulated annealing over assignments with the simulator as judge, from a start "
           "(a list schedule unless the start parameter names another): moves a node to another "
           "device, swaps two nodes, or moves a node onto a neighbour's device; uses exactly "
           "--budget evaluations, or fewer where time_ms runs out first";
  }
  bool isSearch() const override { return true; }
  std::vector<ParamSpec> params() const override {
    return {
        startSpec(),
        {"restarts",
         ParamSpec::Type::Integer,
         "4",
         1,
         1000,
         {},
         "Annealing runs the budget is split over; each after the first reheats from the best"},
        {"t0",
         ParamSpec::Type::Number,
         "0.02",
         0,
         10,
         {},
         "Initial temperature as a fraction of the start's simulated makespan"},
        {"cooling",
         ParamSpec::Type::Number,
         "0",
         0,
         0.999999999,
         {},
         "Temperature factor per evaluation; 0 = automatic (to t0/1000 over each run)"},
        {"p_neighbour",
         ParamSpec::Type::Number,
         "0.4",
         0,
         1,
         {},
         "Probability of moving a node onto a neighbour's device"},
        {"p_cluster",
         ParamSpec::Type::Number,
         "0.5",
         0,
         1,
         {},
         "Probability of moving a connected group of nodes that share a device"},
        {"max_cluster",
         ParamSpec::Type::Integer,
         "8",
         2,
         1000,
         {},
         "Largest group a cluster move takes"},
        {"p_swap",
         ParamSpec::Type::Number,
         "0.05",
         0,
         1,
         {},
         "Probability of swapping two nodes' devices (the rest: a node to a random device)"},
        {"time_ms",
         ParamSpec::Type::Number,
         "0",
         0,
         3600000,
         {},
         "Wall time for the search, besides --budget: it stops at whichever comes first; 0: the "
         "budget only (the result then depends on the seed alone)"},
    };
  }
  Placement place(const PlaceContext& ctx, const Params& params) const override {
    AnnealConfig cfg;
    cfg.restarts = static_cast<int>(params.integer("restarts"));
    cfg.t0 = params.number("t0");
    cfg.cooling = params.number("cooling");
    cfg.p_neighbour = params.number("p_neighbour");
    cfg.p_cluster = params.number("p_cluster");
    cfg.max_cluster = static_cast<int>(params.integer("max_cluster"));
    cfg.p_swap = params.number("p_swap");
    cfg.time_ms = params.number("time_ms");
    if (cfg.p_neighbour + cfg.p_cluster + cfg.p_swap > 1 + 1e-12)
      throw InputError("", "--param p_swap", "p_neighbour + p_cluster + p_swap must be at most 1");
    Placement start;
    const std::string& from = params.choice("start");
    if (const std::optional<SearchStart> given = registeredStart(from)) {
      start = given->build(ctx);
      checkStart(ctx.costs, start.assignment, from);
    } else if (from == "random") {
      start = findMethod("random").place(ctx, Params({}, {}));
    } else {
      ListConfig lc;
      lc.seed = ctx.seed;
      if (from == "heft") {
        lc.device_rule = ListConfig::DeviceRule::EarliestFinish;
        lc.insertion = true;
      }
      if (from == "critical-path-join") lc.device_rule = ListConfig::DeviceRule::EarliestJoin;
      start = listSchedule(ctx.costs, lc);
    }
    // The start's order (its plan's order on each device) is the one the priority and sequence
    // disciplines follow for every assignment the search tries.
    return anneal(ctx, start.assignment, cfg, executionOrder(start));
  }
};

}  // namespace

namespace builtin {
std::unique_ptr<Method> localSearch() {
  return std::make_unique<LocalSearch>();
}
}  // namespace builtin

}  // namespace doppler

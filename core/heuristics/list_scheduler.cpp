#include "core/heuristics/list_scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/heuristics/builtin_methods.h"

namespace doppler {

namespace {

// Three-way comparison with a relative tolerance: path lengths summed in different orders must
// still tie (the paper graphs are full of identical nodes, and their ties matter).
int compareNear(double a, double b) {
  const double tol = 1e-9 * std::max(std::abs(a), std::abs(b));
  if (a < b - tol) return -1;
  if (a > b + tol) return 1;
  return 0;
}

int outDegree(const CostTable& c, int v) {
  return static_cast<int>(c.outEnd(v) - c.outBegin(v));
}

}  // namespace

std::vector<double> bottomLevels(const CostTable& costs, double w_compute, double w_comm) {
  const auto& topo = costs.topoOrder();
  std::vector<double> bl(costs.nodes(), 0.0);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const int v = *it;
    double tail = 0;
    for (const int* e = costs.outBegin(v); e != costs.outEnd(v); ++e)
      tail = std::max(tail, w_comm * costs.meanTransfer(*e) + bl[costs.edgeDst(*e)]);
    bl[v] = w_compute * costs.meanCompute(v) + tail;
  }
  return bl;
}

std::vector<double> topLevels(const CostTable& costs, double w_compute, double w_comm) {
  std::vector<double> tl(costs.nodes(), 0.0);
  for (const int v : costs.topoOrder()) {
    double head = 0;
    for (const int* e = costs.inBegin(v); e != costs.inEnd(v); ++e) {
      const int u = costs.edgeSrc(*e);
      head = std::max(head,
                      tl[u] + w_compute * costs.meanCompute(u) + w_comm * costs.meanTransfer(*e));
    }
    tl[v] = head;
  }
  return tl;
}

// ---------------------------------------------------------------------------------------------
// PlanBuilder

PlanBuilder::PlanBuilder(const CostTable& costs)
    : costs_(costs),
      device_(costs.nodes(), -1),
      start_(costs.nodes(), 0.0),
      finish_(costs.nodes(), 0.0),
      free_(costs.devices(), 0.0),
      load_(costs.devices(), 0.0),
      slots_(costs.devices()) {
  order_.reserve(costs.nodes());
}

double PlanBuilder::arrival(int v, int dev) const {
  double t = 0;
  for (const int* e = costs_.inBegin(v); e != costs_.inEnd(v); ++e) {
    const int u = costs_.edgeSrc(*e);
    t = std::max(t, finish_[u] + costs_.transfer(*e, device_[u], dev));
  }
  return t;
}

double PlanBuilder::earliestStartAfter(double ready, int v, int dev, bool insertion) const {
  if (!insertion) return std::max(ready, free_[dev]);
  const double dur = costs_.compute(v, dev);
  const auto& slots = slots_[dev];
  // Skip the slots that end before `ready`: they are sorted by start and never overlap, so they
  // are sorted by finish too.
  auto it = std::lower_bound(slots.begin(), slots.end(), ready,
                             [](const Slot& s, double t) { return s.finish <= t; });
  double t = ready;
  for (; it != slots.end(); ++it) {
    if (t + dur <= it->start) return t;
    t = std::max(t, it->finish);
  }
  return t;
}

void PlanBuilder::joinTimes(int v, const double* est, double* out,
                            std::vector<double>& scratch) const {
  const int D = costs_.devices();
  scratch.resize(D);
  for (int d = 0; d < D; ++d) out[d] = est[d] + costs_.compute(v, d);
  for (const int* e = costs_.outBegin(v); e != costs_.outEnd(v); ++e) {
    const int s = costs_.edgeDst(*e);
    // scratch[x]: when the placed inputs of s other than v could all be on device x.
    bool any = false;
    std::fill(scratch.begin(), scratch.end(), 0.0);
    for (const int* g = costs_.inBegin(s); g != costs_.inEnd(s); ++g) {
      const int u = costs_.edgeSrc(*g);
      const int du = u == v ? -1 : device_[u];
      if (du < 0) continue;
      any = true;
      for (int x = 0; x < D; ++x)
        scratch[x] = std::max(scratch[x], finish_[u] + costs_.transfer(*g, du, x));
    }
    if (!any) continue;  // v alone: its data is ready where it finishes
    for (int d = 0; d < D; ++d) {
      const double finish = est[d] + costs_.compute(v, d);
      double best = std::max(scratch[0], finish + costs_.transfer(*e, d, 0));
      for (int x = 1; x < D; ++x)
        best = std::min(best, std::max(scratch[x], finish + costs_.transfer(*e, d, x)));
      out[d] = std::max(out[d], best);
    }
  }
}

void PlanBuilder::place(int v, int dev, double start) {
  const double finish = start + costs_.compute(v, dev);
  device_[v] = dev;
  start_[v] = start;
  finish_[v] = finish;
  free_[dev] = std::max(free_[dev], finish);
  load_[dev] += costs_.compute(v, dev);
  auto& slots = slots_[dev];
  // By (start, finish): a zero-length slot sorts before a slot starting at the same time, so the
  // slots stay sorted by finish as well (earliestStartAfter relies on it).
  const Slot slot{start, finish};
  auto pos = std::upper_bound(slots.begin(), slots.end(), slot, [](const Slot& a, const Slot& b) {
    return a.start < b.start || (a.start == b.start && a.finish < b.finish);
  });
  slots.insert(pos, slot);
  order_.push_back(v);
}

Schedule PlanBuilder::schedule() const {
  Schedule s;
  const int n = costs_.nodes();
  s.nodes.resize(n);
  for (int v = 0; v < n; ++v) {
    s.nodes[v] = NodeSpan{v, device_[v], start_[v], finish_[v]};
    if (device_[v] >= 0) s.makespan_us = std::max(s.makespan_us, finish_[v]);
  }
  for (int e = 0; e < costs_.edges(); ++e) {
    const int u = costs_.edgeSrc(e), w = costs_.edgeDst(e);
    if (device_[u] < 0 || device_[w] < 0 || device_[u] == device_[w]) continue;
    const double t0 = finish_[u];
    s.transfers.push_back(TransferSpan{e, device_[u], device_[w], t0,
                                       t0 + costs_.transfer(e, device_[u], device_[w])});
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// The scheduler

namespace {

class Scheduler {
 public:
  Scheduler(const CostTable& costs, const ListConfig& cfg)
      : c_(costs),
        cfg_(cfg),
        n_(costs.nodes()),
        d_(costs.devices()),
        plan_(costs),
        rng_(cfg.seed),
        bl_(bottomLevels(costs, cfg.w_compute, cfg.w_comm)) {
    if (cfg_.cpop) {
      const auto tl = topLevels(costs, cfg.w_compute, cfg.w_comm);
      prio_.resize(n_);
      for (int v = 0; v < n_; ++v) prio_[v] = bl_[v] + tl[v];
      markCriticalPath();
    } else if (!cfg_.priority.empty()) {
      if (cfg_.priority.size() != static_cast<size_t>(n_))
        throw std::logic_error("list scheduler: the given priority is not one per node");
      prio_ = cfg_.priority;
    } else {
      prio_ = bl_;
    }
  }

  Placement run(const DecisionControl* control) {
    DecisionDriver driver(control, n_, d_);
    if (driver.recording()) describeScores(driver.trace());
    std::vector<int> pending(n_);
    std::vector<int> ready;
    arrival_.assign(static_cast<size_t>(n_) * d_, 0.0);
    for (int v = 0; v < n_; ++v) {
      pending[v] = c_.inDegree(v);
      if (pending[v] == 0) ready.push_back(v);
    }
    double makespan = 0;
    for (int step = 0; !ready.empty(); ++step) {
      int idx = 0, dev = 0;
      double start = 0;
      const int forcedPos = driver.active() ? driver.forcedNodePosition(step, ready) : -1;
      const int forcedDev = driver.active() ? driver.forcedDevice(step) : -1;
      if (forcedPos >= 0) {
        idx = forcedPos;
        if (cfg_.selection == ListConfig::Selection::EarliestStart)
          bestEarliestStart(ready[idx], dev, start);
        else
          chooseDevice(ready[idx], dev, start);
      } else if (cfg_.selection == ListConfig::Selection::EarliestStart) {
        pickEarliestStart(ready, idx, dev, start);
      } else {
        idx = pickByPriority(ready);
        chooseDevice(ready[idx], dev, start);
      }
      const int v = ready[idx];
      if (forcedDev >= 0) {
        dev = forcedDev;
        start = plan_.earliestStart(v, dev, cfg_.insertion);
      }
      if (driver.recording()) driver.record(decision(ready, v, dev));
      ready[idx] = ready.back();
      ready.pop_back();
      plan_.place(v, dev, start);
      makespan = std::max(makespan, plan_.finish(v));
      if (driver.recording()) {
        DecisionStep& d = driver.trace().steps.back();
        d.partial_makespan_us = makespan;
        d.node_overridden = forcedPos >= 0;
        d.device_overridden = forcedDev >= 0;
      }
      for (const int* e = c_.outBegin(v); e != c_.outEnd(v); ++e) {
        const int w = c_.edgeDst(*e);
        if (--pending[w] == 0) {
          ready.push_back(w);
          if (cfg_.selection == ListConfig::Selection::EarliestStart)
            for (int d = 0; d < d_; ++d)
              arrival_[static_cast<size_t>(w) * d_ + d] = plan_.arrival(w, d);
        }
      }
    }
    if (plan_.placedCount() != n_) throw std::logic_error("list scheduler: the graph has a cycle");
    Placement p;
    p.assignment = plan_.assignment();
    p.planned = plan_.schedule();
    p.order = plan_.order();
    if (driver.recording()) p.decisions = driver.take();
    return p;
  }

 private:
  // What the recorded scores mean (DecisionTrace).
  void describeScores(DecisionTrace& t) const {
    if (cfg_.selection == ListConfig::Selection::EarliestStart) {
      t.node_score = "earliest start (us)";
      t.node_higher_better = false;
    } else {
      t.node_score = cfg_.cpop                ? "upward + downward rank (us)"
                     : !cfg_.priority.empty() ? cfg_.priority_name
                                              : "upward rank (us)";
      t.node_higher_better = true;
    }
    switch (cfg_.tie_break) {
      case ListConfig::TieBreak::Index:
        t.node_tie_break = "lower node index first";
        break;
      case ListConfig::TieBreak::MostSuccessors:
        t.node_tie_break = "more successors first, then lower node index";
        break;
      case ListConfig::TieBreak::Random:
        t.node_tie_break = "seeded random pick";
        break;
    }
    if (cfg_.selection == ListConfig::Selection::EarliestStart)
      t.node_tie_break = "larger bottom level first, then " + t.node_tie_break;
    t.device_higher_better = false;
    const bool finishFirst = cfg_.selection != ListConfig::Selection::EarliestStart &&
                             cfg_.device_rule == ListConfig::DeviceRule::EarliestFinish;
    t.device_tie_break = finishFirst ? "earlier start first, then lower device index"
                                     : "earlier finish first, then lower device index";
    if (cfg_.cpop) t.device_tie_break += "; critical-path nodes go to the critical processor";
    switch (cfg_.selection == ListConfig::Selection::EarliestStart
                ? ListConfig::DeviceRule::EarliestStart
                : cfg_.device_rule) {
      case ListConfig::DeviceRule::EarliestStart:
        t.device_score = "earliest start (us)";
        break;
      case ListConfig::DeviceRule::EarliestFinish:
        t.device_score = "earliest finish (us)";
        break;
      case ListConfig::DeviceRule::LeastLoaded:
        t.device_score = "planned load (us)";
        break;
      case ListConfig::DeviceRule::EarliestJoin:
        t.device_score = "earliest join (us)";
        break;
    }
  }

  // The record of one step, taken before node v is placed on `dev`.
  DecisionStep decision(const std::vector<int>& ready, int v, int dev) {
    const bool etf = cfg_.selection == ListConfig::Selection::EarliestStart;
    DecisionStep d;
    d.node = v;
    d.device = dev;
    d.ready.reserve(ready.size());
    for (const int u : ready) {
      double score = prio_[u];
      if (etf) {
        int bd = 0;
        bestEarliestStart(u, bd, score);
      }
      d.ready.push_back({u, score});
    }
    d.devices.reserve(d_);
    std::vector<double> est(d_), join(d_), scratch;
    for (int k = 0; k < d_; ++k) est[k] = plan_.earliestStart(v, k, cfg_.insertion);
    plan_.joinTimes(v, est.data(), join.data(), scratch);
    for (int k = 0; k < d_; ++k) {
      const double eft = est[k] + c_.compute(v, k);
      double score = est[k];
      if (!etf && cfg_.device_rule == ListConfig::DeviceRule::EarliestFinish) score = eft;
      if (!etf && cfg_.device_rule == ListConfig::DeviceRule::LeastLoaded) score = plan_.load(k);
      if (!etf && cfg_.device_rule == ListConfig::DeviceRule::EarliestJoin) score = join[k];
      d.devices.push_back({k, score, est[k], eft, join[k]});
    }
    return d;
  }

  // Node tie-break after equal priority: true if candidate v should replace the current best b.
  bool breakTie(int v, int b, int& ties) {
    switch (cfg_.tie_break) {
      case ListConfig::TieBreak::Index:
        return v < b;
      case ListConfig::TieBreak::MostSuccessors: {
        const int dv = outDegree(c_, v), db = outDegree(c_, b);
        return dv != db ? dv > db : v < b;
      }
      case ListConfig::TieBreak::Random:
        ++ties;
        return rng_.below(ties) == 0;
    }
    return false;
  }

  int pickByPriority(const std::vector<int>& ready) {
    int best = 0, ties = 1;
    for (int j = 1; j < static_cast<int>(ready.size()); ++j) {
      const int v = ready[j], b = ready[best];
      const int c = compareNear(prio_[v], prio_[b]);
      if (c > 0) {
        best = j;
        ties = 1;
      } else if (c == 0 && breakTie(v, b, ties)) {
        best = j;
      }
    }
    return best;
  }

  void chooseDevice(int v, int& dev, double& start) {
    if (cfg_.cpop && onCriticalPath_[v]) {
      dev = criticalProcessor_;
      start = plan_.earliestStart(v, dev, cfg_.insertion);
      return;
    }
    dev = -1;
    start = 0;
    double bestKey1 = 0, bestKey2 = 0;
    est_.resize(d_);
    for (int d = 0; d < d_; ++d) est_[d] = plan_.earliestStart(v, d, cfg_.insertion);
    if (cfg_.device_rule == ListConfig::DeviceRule::EarliestJoin) {
      join_.resize(d_);
      plan_.joinTimes(v, est_.data(), join_.data(), joinScratch_);
    }
    for (int d = 0; d < d_; ++d) {
      const double est = est_[d];
      const double eft = est + c_.compute(v, d);
      double k1 = 0, k2 = 0;
      switch (cfg_.device_rule) {
        case ListConfig::DeviceRule::EarliestStart:
          k1 = est, k2 = eft;
          break;
        case ListConfig::DeviceRule::EarliestFinish:
          k1 = eft, k2 = est;
          break;
        case ListConfig::DeviceRule::LeastLoaded:
          k1 = plan_.load(d), k2 = est;
          break;
        case ListConfig::DeviceRule::EarliestJoin:
          k1 = join_[d], k2 = eft;
          break;
      }
      bool better = dev < 0;
      if (!better) {
        const int c1 = compareNear(k1, bestKey1);
        better = c1 < 0 || (c1 == 0 && compareNear(k2, bestKey2) < 0);
      }
      if (better) {
        dev = d;
        start = est;
        bestKey1 = k1;
        bestKey2 = k2;
      }
    }
  }

  // ETF's device for ready node v: the earliest start, ties by earlier finish, then lower index.
  void bestEarliestStart(int v, int& dev, double& start) const {
    dev = -1;
    start = 0;
    double finish = 0;
    for (int d = 0; d < d_; ++d) {
      const double est =
          plan_.earliestStartAfter(arrival_[static_cast<size_t>(v) * d_ + d], v, d, cfg_.insertion);
      const double eft = est + c_.compute(v, d);
      const int cs = dev < 0 ? -1 : compareNear(est, start);
      if (cs < 0 || (cs == 0 && compareNear(eft, finish) < 0)) {
        dev = d;
        start = est;
        finish = eft;
      }
    }
  }

  // ETF: the (node, device) pair with the earliest start; ties by larger bottom level, then the
  // tie-break rule; a node's devices tie by earlier finish, then lower index.
  void pickEarliestStart(const std::vector<int>& ready, int& idx, int& dev, double& start) {
    idx = -1;
    int ties = 1;
    for (int j = 0; j < static_cast<int>(ready.size()); ++j) {
      const int v = ready[j];
      int vd = -1;
      double vs = 0;
      bestEarliestStart(v, vd, vs);
      bool better = false;
      if (idx < 0) {
        better = true;
      } else if (const int cs = compareNear(vs, start); cs < 0) {
        better = true;
        ties = 1;
      } else if (cs == 0) {
        const int b = ready[idx];
        if (const int cp = compareNear(bl_[v], bl_[b]); cp > 0) {
          better = true;
          ties = 1;
        } else if (cp == 0) {
          better = breakTie(v, b, ties);
        }
      }
      if (better) {
        idx = j;
        dev = vd;
        start = vs;
      }
    }
  }

  // CPOP: follow the highest-priority successor from the highest-priority entry node; put those
  // nodes on the processor that runs them fastest in total.
  void markCriticalPath() {
    onCriticalPath_.assign(n_, 0);
    int v = -1;
    for (int u = 0; u < n_; ++u)
      if (c_.inDegree(u) == 0 && (v < 0 || compareNear(prio_[u], prio_[v]) > 0)) v = u;
    std::vector<double> total(d_, 0.0);
    while (v >= 0) {
      onCriticalPath_[v] = 1;
      for (int d = 0; d < d_; ++d) total[d] += c_.compute(v, d);
      int next = -1;
      for (const int* e = c_.outBegin(v); e != c_.outEnd(v); ++e) {
        const int w = c_.edgeDst(*e);
        if (next < 0 || compareNear(prio_[w], prio_[next]) > 0 ||
            (compareNear(prio_[w], prio_[next]) == 0 && w < next))
          next = w;
      }
      v = next;
    }
    criticalProcessor_ = 0;
    for (int d = 1; d < d_; ++d)
      if (compareNear(total[d], total[criticalProcessor_]) < 0) criticalProcessor_ = d;
  }

  const CostTable& c_;
  ListConfig cfg_;
  int n_, d_;
  PlanBuilder plan_;
  Rng rng_;
  std::vector<double> bl_, prio_, arrival_;
  std::vector<double> est_, join_, joinScratch_;  // chooseDevice's per-device scratch
  std::vector<char> onCriticalPath_;
  int criticalProcessor_ = 0;
};

}  // namespace

Placement listSchedule(const CostTable& costs, const ListConfig& config,
                       const DecisionControl* control) {
  if (costs.devices() < 1) throw std::invalid_argument("list scheduler: no devices");
  return Scheduler(costs, config).run(control);
}

ListConfig::TieBreak parseTieBreak(const std::string& s) {
  if (s == "index") return ListConfig::TieBreak::Index;
  if (s == "random") return ListConfig::TieBreak::Random;
  if (s == "most-successors") return ListConfig::TieBreak::MostSuccessors;
  throw InputError("", "--param tie_break", "unknown tie-break '" + s + "'");
}

ListConfig::DeviceRule parseDeviceRule(const std::string& s) {
  if (s == "earliest-start") return ListConfig::DeviceRule::EarliestStart;
  if (s == "earliest-finish") return ListConfig::DeviceRule::EarliestFinish;
  if (s == "least-loaded") return ListConfig::DeviceRule::LeastLoaded;
  if (s == "earliest-join") return ListConfig::DeviceRule::EarliestJoin;
  throw InputError("", "--param device_rule", "unknown device rule '" + s + "'");
}

// ---------------------------------------------------------------------------------------------
// The list-scheduling methods

namespace {

ParamSpec tieBreakSpec() {
  return {"tie_break",
          ParamSpec::Type::Choice,
          "index",
          0,
          0,
          {"index", "random", "most-successors"},
          "How nodes of equal priority are ordered: lowest node index, seeded random, or most "
          "successors first"};
}

ParamSpec insertionSpec(bool dflt) {
  return {"insertion",
          ParamSpec::Type::Bool,
          dflt ? "true" : "false",
          0,
          0,
          {},
          "Let a node fill an idle gap earlier in a device's planned queue (otherwise it is "
          "appended at the end)"};
}

class ListMethod : public Method {
 public:
  ListMethod(std::string name, std::string description, std::vector<ParamSpec> specs,
             ListConfig base)
      : name_(std::move(name)),
        description_(std::move(description)),
        specs_(std::move(specs)),
        base_(base) {}

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::vector<ParamSpec> params() const override { return specs_; }
  bool sequential() const override { return true; }

  Placement place(const PlaceContext& ctx, const Params& params) const override {
    ListConfig cfg = base_;
    cfg.seed = ctx.seed;
    const auto& v = params.values();
    if (v.count("tie_break")) cfg.tie_break = parseTieBreak(params.choice("tie_break"));
    if (v.count("device_rule")) cfg.device_rule = parseDeviceRule(params.choice("device_rule"));
    if (v.count("insertion")) cfg.insertion = params.flag("insertion");
    if (v.count("w_compute")) cfg.w_compute = params.number("w_compute");
    if (v.count("w_comm")) cfg.w_comm = params.number("w_comm");
    return listSchedule(ctx.costs, cfg, ctx.decisions);
  }

 private:
  std::string name_, description_;
  std::vector<ParamSpec> specs_;
  ListConfig base_;
};

}  // namespace

namespace builtin {

std::unique_ptr<Method> criticalPath() {
  std::vector<ParamSpec> specs = {
      {"w_compute",
       ParamSpec::Type::Number,
       "1",
       0,
       1000,
       {},
       "Weight of (mean) compute time in the bottom level"},
      {"w_comm",
       ParamSpec::Type::Number,
       "1",
       0,
       1000,
       {},
       "Weight of (mean) transfer time in the bottom level"},
      {"device_rule",
       ParamSpec::Type::Choice,
       "earliest-start",
       0,
       0,
       {"earliest-start", "earliest-finish", "least-loaded", "earliest-join"},
       "Device for the chosen node: where it starts earliest, finishes earliest, the one with "
       "least compute planned so far, or where its output could soonest meet its successors' "
       "placed inputs (the join look-ahead; ties by earliest finish)"},
      tieBreakSpec(),
      insertionSpec(false),
  };
  ListConfig cfg;
  return std::make_unique<ListMethod>(
      "critical-path",
      "Doppler's CRIT.PATH teacher: repeatedly the ready node with the longest path to the exit "
      "(bottom level), on the device where it can start earliest, appended to its queue",
      std::move(specs), cfg);
}

std::unique_ptr<Method> heft() {
  ListConfig cfg;
  cfg.device_rule = ListConfig::DeviceRule::EarliestFinish;
  cfg.insertion = true;
  return std::make_unique<ListMethod>(
      "heft",
      "HEFT (Topcuoglu et al. 2002): nodes by decreasing upward rank (mean compute and "
      "communication), each on the device with the earliest finish, filling idle gaps",
      std::vector<ParamSpec>{insertionSpec(true), tieBreakSpec()}, cfg);
}

std::unique_ptr<Method> cpop() {
  ListConfig cfg;
  cfg.device_rule = ListConfig::DeviceRule::EarliestFinish;
  cfg.insertion = true;
  cfg.cpop = true;
  return std::make_unique<ListMethod>(
      "cpop",
      "CPOP (Topcuoglu et al. 2002): priority = upward + downward rank; the critical path runs "
      "on the one device that computes it fastest, other nodes on their earliest-finish device",
      std::vector<ParamSpec>{insertionSpec(true), tieBreakSpec()}, cfg);
}

std::unique_ptr<Method> etf() {
  ListConfig cfg;
  cfg.selection = ListConfig::Selection::EarliestStart;
  return std::make_unique<ListMethod>(
      "etf",
      "ETF (Hwang et al. 1989): among all ready nodes and all devices, the pair that can start "
      "earliest; ties by larger bottom level",
      std::vector<ParamSpec>{insertionSpec(false), tieBreakSpec()}, cfg);
}

}  // namespace builtin

}  // namespace doppler

#include "core/sim/simulator.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/common/input_error.h"
#include "core/common/random.h"

namespace doppler {

CostModel parseCostModel(const std::string& s) {
  if (s == "reference") return CostModel::Reference;
  if (s == "links") return CostModel::Links;
  throw InputError("", "--cost-model", "unknown cost model '" + s + "' (known: reference, links)");
}

const char* toString(CostModel m) {
  return m == CostModel::Reference ? "reference" : "links";
}

void validateAssignment(const Assignment& a, const CostTable& costs, const std::string& file) {
  if (static_cast<int>(a.size()) != costs.nodes())
    throw InputError(file, "assignment",
                     "has " + std::to_string(a.size()) + " entries, the graph has " +
                         std::to_string(costs.nodes()) + " nodes");
  for (size_t v = 0; v < a.size(); ++v)
    if (a[v] < 0 || a[v] >= costs.devices())
      throw InputError(file, "assignment[" + std::to_string(v) + "]",
                       "device " + std::to_string(a[v]) + " does not exist (the device set has " +
                           std::to_string(costs.devices()) + ")");
}

namespace {

// SplitMix64: tiny, fast, and good enough to drive noise factors reproducibly.
inline uint64_t nextRandom(uint64_t& state) {
  return splitMix64Next(state);
}

// Inverse of the standard normal CDF by bisection on erfc (only used to fill the table).
double normalQuantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

// Min-heap of (time, index) pairs ordered by time, then index: the simulator's tie rule.
template <class Item>
inline bool before(const Item& x, const Item& y) {
  return x.t < y.t || (x.t == y.t && x.v < y.v);
}

template <class Item>
inline void heapPush(std::vector<Item>& h, Item item) {
  size_t i = h.size();
  h.push_back(item);
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!before(item, h[p])) break;
    h[i] = h[p];
    i = p;
  }
  h[i] = item;
}

template <class Item>
inline Item heapPop(std::vector<Item>& h) {
  Item top = h.front();
  Item last = h.back();
  h.pop_back();
  const size_t n = h.size();
  if (n == 0) return top;
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(h[c + 1], h[c])) ++c;
    if (!before(h[c], last)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = last;
  return top;
}

}  // namespace

Simulator::Simulator(const CostTable& costs, SimOptions opts)
    : costs_(costs), opts_(opts), rng_(opts.seed) {
  const int n = costs.nodes();
  ready_.resize(n);
  start_.resize(n);
  finish_.resize(n);
  pending_.resize(n);
  devFree_.resize(costs.devices());
  heap_.reserve(n);
  order_.reserve(n);
  if (opts_.noise < 0 || !std::isfinite(opts_.noise) || opts_.noise > 10)
    throw InputError("", "--noise", "must be a finite number between 0 and 10");
  if (opts_.noise > 0) {
    const int size = 1 << kNoiseTableBits;
    noiseTable_.resize(size);
    for (int i = 0; i < size; ++i)
      noiseTable_[i] = std::exp(opts_.noise * normalQuantile((i + 0.5) / size));
  }
}

// Log-normal factors exp(sigma * Z). Drawing Z by Box-Muller costs a log, a sqrt, a cos and an
// exp per duration, which made a noisy simulation 7x slower than a clean one. Instead the
// constructor tabulates the factor at 4096 equally likely quantiles and each draw picks one.
void Simulator::drawNoise() {
  const int n = costs_.nodes(), m = costs_.edges();
  nodeNoise_.resize(n);
  edgeNoise_.resize(m);
  const double* table = noiseTable_.data();
  for (int i = 0; i < n; ++i) nodeNoise_[i] = table[nextRandom(rng_) >> (64 - kNoiseTableBits)];
  for (int i = 0; i < m; ++i) edgeNoise_[i] = table[nextRandom(rng_) >> (64 - kNoiseTableBits)];
}

// The fast path for the reference model. Because transfers never contend, every device starts
// its nodes in order of (ready time, node index): a node that becomes ready later can never
// overtake one that was ready earlier. So popping nodes globally by (ready time, index) and
// starting each at max(ready, device free) reproduces the work-conserving event simulation
// exactly, with one heap of ready nodes and no per-event allocation.
template <bool Noise, bool Record, bool Cut>
double Simulator::runReference(const Assignment& a) {
  const CostTable& c = costs_;
  const int n = c.nodes();
  const int* dev = a.data();
  double* ready = ready_.data();
  int* pending = pending_.data();
  std::fill(devFree_.begin(), devFree_.end(), 0.0);
  double* devFree = devFree_.data();
  heap_.clear();
  for (int v = 0; v < n; ++v) {
    ready[v] = 0;
    pending[v] = c.inDegree(v);
    if (pending[v] == 0)
      heap_.push_back({0.0, v});  // already heap-ordered: equal times, rising index
  }
  double makespan = 0;
  while (!heap_.empty()) {
    const HeapItem top = heapPop(heap_);
    const int v = top.v;
    const int d = dev[v];
    double s = top.t > devFree[d] ? top.t : devFree[d];
    double dur = c.compute(v, d);
    if constexpr (Noise) dur *= nodeNoise_[v];
    const double f = s + dur;
    devFree[d] = f;
    if (f > makespan) makespan = f;
    if constexpr (Cut) {
      // Noise scales each duration, so the noiseless tails bound nothing under it.
      const double atLeast = Noise ? f : f + tail_[v];
      if (atLeast > cutoff_) return atLeast;
    }
    if constexpr (Record) {
      start_[v] = s;
      finish_[v] = f;
      order_.push_back(v);
    }
    for (const int* e = c.outBegin(v); e != c.outEnd(v); ++e) {
      const int w = c.edgeDst(*e);
      double tr = c.transfer(*e, d, dev[w]);
      if constexpr (Noise) tr *= edgeNoise_[*e];
      const double arrive = f + tr;
      if constexpr (Record) {
        if (dev[w] != d) transfers_.push_back({*e, d, dev[w], f, arrive});
      }
      if (arrive > ready[w]) ready[w] = arrive;
      if (--pending[w] == 0) heapPush(heap_, HeapItem{ready[w], w});
    }
  }
  return makespan;
}

// The sequence discipline under the reference model. Each device runs its nodes in the order's
// sequence, so a node starts at the later of its ready time and its predecessor's finish on the
// device: a longest path through the graph plus one edge between consecutive nodes of each
// device, computed in any order that respects both kinds of edge. Without contention this is
// exactly what the event loop computes.
template <bool Noise, bool Record>
double Simulator::runSequence(const Assignment& a) {
  const CostTable& c = costs_;
  const int n = c.nodes();
  const int* dev = a.data();
  double* ready = ready_.data();
  int* pending = pending_.data();
  std::fill(devFree_.begin(), devFree_.end(), 0.0);
  double* devFree = devFree_.data();
  heap_.clear();  // used as a stack of runnable nodes
  for (int v = 0; v < n; ++v) {
    ready[v] = 0;
    pending[v] = c.inDegree(v) + seqHasPrev_[v];
    if (pending[v] == 0) heap_.push_back({0.0, v});
  }
  double makespan = 0;
  int done = 0;
  while (!heap_.empty()) {
    const int v = heap_.back().v;
    heap_.pop_back();
    ++done;
    const int d = dev[v];
    const double s = ready[v] > devFree[d] ? ready[v] : devFree[d];
    double dur = c.compute(v, d);
    if constexpr (Noise) dur *= nodeNoise_[v];
    const double f = s + dur;
    devFree[d] = f;
    if (f > makespan) makespan = f;
    if constexpr (Record) {
      start_[v] = s;
      finish_[v] = f;
      order_.push_back(v);
    }
    for (const int* e = c.outBegin(v); e != c.outEnd(v); ++e) {
      const int w = c.edgeDst(*e);
      double tr = c.transfer(*e, d, dev[w]);
      if constexpr (Noise) tr *= edgeNoise_[*e];
      const double arrive = f + tr;
      if constexpr (Record) {
        if (dev[w] != d) transfers_.push_back({*e, d, dev[w], f, arrive});
      }
      if (arrive > ready[w]) ready[w] = arrive;
      if (--pending[w] == 0) heap_.push_back({0.0, w});
    }
    const int next = seqNext_[v];
    if (next >= 0 && --pending[next] == 0) heap_.push_back({0.0, next});
  }
  if (done < n) {
    // The stuck node of the lowest device: the first of its sequence that never ran.
    for (int d = 0; d < c.devices(); ++d)
      for (int k = seqStart_[d]; k < seqStart_[d + 1]; ++k)
        if (pending[seqList_[k]] > 0) throwDeadlock(a, seqList_[k]);
  }
  return makespan;
}

void Simulator::throwDeadlock(const Assignment& a, int node) const {
  throw InputError("", "order",
                   "under the sequence discipline device " + std::to_string(a[node]) +
                       " waits forever for node " + std::to_string(node) +
                       ": one of its inputs can only run after it (list every node after its "
                       "inputs)");
}

void Simulator::prepareOrder(const Assignment& a, std::span<const int> order) {
  const int n = costs_.nodes(), D = costs_.devices();
  if (order.empty()) order = costs_.topoOrder();
  assert(static_cast<int>(order.size()) == n);
  if (opts_.discipline == Discipline::Priority) {
    rank_.resize(n);
    for (int k = 0; k < n; ++k) rank_[order[k]] = k;
    return;
  }
  seqStart_.assign(D + 1, 0);
  for (const int v : order) ++seqStart_[a[v] + 1];
  for (int d = 0; d < D; ++d) seqStart_[d + 1] += seqStart_[d];
  seqList_.resize(n);
  seqPos_.assign(seqStart_.begin(), seqStart_.end() - 1);
  for (const int v : order) seqList_[seqPos_[a[v]]++] = v;
  seqNext_.assign(n, -1);
  seqHasPrev_.assign(n, 0);
  for (int d = 0; d < D; ++d) {
    seqPos_[d] = seqStart_[d];
    for (int k = seqStart_[d]; k + 1 < seqStart_[d + 1]; ++k) {
      seqNext_[seqList_[k]] = seqList_[k + 1];
      seqHasPrev_[seqList_[k + 1]] = 1;
    }
  }
}

int findSequenceDeadlock(const CostTable& costs, const Assignment& a, std::span<const int> order) {
  const int n = costs.nodes(), D = costs.devices();
  const auto seq = deviceSequences(a, order, D);
  std::vector<int> next(n, -1), pending(n, 0), stack;
  for (int v = 0; v < n; ++v) pending[v] = costs.inDegree(v);
  for (const auto& s : seq)
    for (size_t k = 0; k + 1 < s.size(); ++k) {
      next[s[k]] = s[k + 1];
      ++pending[s[k + 1]];
    }
  for (int v = 0; v < n; ++v)
    if (pending[v] == 0) stack.push_back(v);
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (const int* e = costs.outBegin(v); e != costs.outEnd(v); ++e)
      if (--pending[costs.edgeDst(*e)] == 0) stack.push_back(costs.edgeDst(*e));
    if (next[v] >= 0 && --pending[next[v]] == 0) stack.push_back(next[v]);
  }
  for (const auto& s : seq)
    for (const int v : s)
      if (pending[v] > 0) return v;
  return -1;
}

namespace {
enum EventKind { kNodeFinish = 0, kArrival = 1 };
}  // namespace

// The general event loop: needed for link contention, and a cross-check of the fast path.
// Events at one instant are all processed before any idle device or link picks new work, so
// the tie rules (node index, edge index) hold regardless of event order.
double Simulator::runEvents(const Assignment& a, bool record) {
  const CostTable& c = costs_;
  const int n = c.nodes(), D = c.devices();
  const bool noise = opts_.noise > 0;
  const bool links = opts_.model == CostModel::Links;
  // Fifo queues nodes by ready time, priority by rank; sequence takes each device's next node
  // in its sequence once it is ready (pending_ == 0) and queues nothing.
  const bool priority = opts_.discipline == Discipline::Priority;
  const bool sequence = opts_.discipline == Discipline::Sequence;
  devQueue_.resize(D);
  linkQueue_.resize(links ? static_cast<size_t>(D) * D : 0);
  for (auto& q : devQueue_) q.clear();
  for (auto& q : linkQueue_) q.clear();
  devBusy_.assign(D, 0);
  linkBusy_.assign(linkQueue_.size(), 0);
  linkActive_.assign(linkQueue_.size(), 0);
  activeLinks_.clear();
  auto& devQ = devQueue_;
  auto& linkQ = linkQueue_;
  auto& devBusy = devBusy_;
  auto& linkBusy = linkBusy_;
  using Ev = Event;
  auto later = [](const Ev& p, const Ev& q) { return p.t > q.t || (p.t == q.t && p.seq > q.seq); };
  auto& events = events_;
  events.clear();
  int64_t seq = 0;
  auto pushEvent = [&](double t, int kind, int x) {
    events.push_back({t, seq++, kind, x});
    std::push_heap(events.begin(), events.end(), later);
  };
  auto qPush = [](std::vector<Timed>& q, Timed item) { heapPush(q, item); };
  for (int v = 0; v < n; ++v) {
    ready_[v] = 0;
    pending_[v] = c.inDegree(v);
    if (pending_[v] == 0 && !sequence) qPush(devQ[a[v]], {priority ? rank_[v] : 0.0, v});
  }
  double makespan = 0, now = 0;
  auto arrive = [&](int e, double t) {
    const int w = c.edgeDst(e);
    if (t > ready_[w]) ready_[w] = t;
    if (--pending_[w] == 0 && !sequence) qPush(devQ[a[w]], {priority ? rank_[w] : ready_[w], w});
  };
  for (;;) {
    // Dispatch: idle links take their earliest request, idle devices their earliest ready node.
    // Only links with waiting requests are visited (a full sweep of D*D links per instant
    // dominated the loop on 8-device sets).
    for (size_t i = 0; i < activeLinks_.size();) {
      const int k = activeLinks_[i];
      if (linkQ[k].empty()) {
        activeLinks_[i] = activeLinks_.back();
        activeLinks_.pop_back();
        linkActive_[k] = 0;
        continue;
      }
      ++i;
      if (linkBusy[k]) continue;
      Timed r = heapPop(linkQ[k]);
      const int e = r.v;
      const int from = a[c.edgeSrc(e)], to = a[c.edgeDst(e)];
      double tr = c.transfer(e, from, to);
      if (noise) tr *= edgeNoise_[e];
      linkBusy[k] = 1;
      if (record) transfers_.push_back({e, from, to, now, now + tr});
      pushEvent(now + tr, kArrival, e);
    }
    for (int d = 0; d < D; ++d) {
      if (devBusy[d]) continue;
      int v = -1;
      if (sequence) {
        if (seqPos_[d] == seqStart_[d + 1] || pending_[seqList_[seqPos_[d]]] != 0) continue;
        v = seqList_[seqPos_[d]++];
      } else {
        if (devQ[d].empty() || (!priority && devQ[d].front().t > now)) continue;
        v = heapPop(devQ[d]).v;
      }
      double dur = c.compute(v, d);
      if (noise) dur *= nodeNoise_[v];
      devBusy[d] = 1;
      start_[v] = now;
      finish_[v] = now + dur;
      if (record) order_.push_back(v);
      pushEvent(now + dur, kNodeFinish, v);
    }
    if (events.empty()) break;
    now = events.front().t;
    // Process every event at this instant (including ones they create at the same instant).
    while (!events.empty() && events.front().t <= now) {
      std::pop_heap(events.begin(), events.end(), later);
      Ev ev = events.back();
      events.pop_back();
      if (ev.kind == kNodeFinish) {
        const int v = ev.x, d = a[v];
        devBusy[d] = 0;
        if (ev.t > makespan) makespan = ev.t;
        for (const int* e = c.outBegin(v); e != c.outEnd(v); ++e) {
          const int to = a[c.edgeDst(*e)];
          if (to == d) {
            arrive(*e, ev.t);
          } else if (links) {
            const int k = d * D + to;
            qPush(linkQ[k], {ev.t, *e});
            if (!linkActive_[k]) {
              linkActive_[k] = 1;
              activeLinks_.push_back(k);
            }
          } else {
            double tr = c.transfer(*e, d, to);
            if (noise) tr *= edgeNoise_[*e];
            if (record) transfers_.push_back({*e, d, to, ev.t, ev.t + tr});
            pushEvent(ev.t + tr, kArrival, -1 - *e);  // negative: no link to release
          }
        }
      } else {
        const int e = ev.x >= 0 ? ev.x : -1 - ev.x;
        if (ev.x >= 0) linkBusy[static_cast<size_t>(a[c.edgeSrc(e)]) * D + a[c.edgeDst(e)]] = 0;
        arrive(e, ev.t);
      }
    }
  }
  if (sequence)
    for (int d = 0; d < D; ++d)
      if (seqPos_[d] < seqStart_[d + 1]) throwDeadlock(a, seqList_[seqPos_[d]]);
  return makespan;
}

double Simulator::simulate(const Assignment& a, std::span<const int> order, bool record) {
  assert(static_cast<int>(a.size()) == costs_.nodes());
  const Discipline discipline = opts_.discipline;
  if (discipline != Discipline::Fifo) prepareOrder(a, order);
  const bool noise = opts_.noise > 0;
  if (noise) drawNoise();
  if (record) {
    order_.clear();
    transfers_.clear();
  }
  if (opts_.model == CostModel::Links || opts_.event_loop || discipline == Discipline::Priority)
    return runEvents(a, record);
  if (discipline == Discipline::Sequence) {
    if (noise) return record ? runSequence<true, true>(a) : runSequence<true, false>(a);
    return record ? runSequence<false, true>(a) : runSequence<false, false>(a);
  }
  if (noise) return record ? runReference<true, true>(a) : runReference<true, false>(a);
  return record ? runReference<false, true>(a) : runReference<false, false>(a);
}

double Simulator::makespan(const Assignment& a, std::span<const int> order) {
  return simulate(a, order, false);
}

void Simulator::prepareTails() {
  const CostTable& c = costs_;
  const int n = c.nodes(), D = c.devices();
  tail_.assign(n, 0.0);
  // Node indices are not topological, so walk a reverse topological order (Kahn on out-degree).
  std::vector<int> left(n), stack;
  for (int v = 0; v < n; ++v) {
    left[v] = static_cast<int>(c.outEnd(v) - c.outBegin(v));
    if (left[v] == 0) stack.push_back(v);
  }
  std::vector<double> fastest(n);
  for (int v = 0; v < n; ++v) {
    double m = c.compute(v, 0);
    for (int d = 1; d < D; ++d) m = std::min(m, c.compute(v, d));
    fastest[v] = m;
  }
  while (!stack.empty()) {
    const int w = stack.back();
    stack.pop_back();
    const double through = fastest[w] + tail_[w];
    for (const int* e = c.inBegin(w); e != c.inBegin(w) + c.inDegree(w); ++e) {
      const int u = c.edgeSrc(*e);
      tail_[u] = std::max(tail_[u], through);
      if (--left[u] == 0) stack.push_back(u);
    }
  }
}

double Simulator::makespanUpTo(const Assignment& a, double cutoff, std::span<const int> order) {
  const bool fast = opts_.model == CostModel::Reference && !opts_.event_loop &&
                    opts_.discipline == Discipline::Fifo;
  if (!fast) return simulate(a, order, false);
  assert(static_cast<int>(a.size()) == costs_.nodes());
  if (tail_.size() != static_cast<size_t>(costs_.nodes())) prepareTails();
  cutoff_ = cutoff;
  if (opts_.noise > 0) {
    drawNoise();
    return runReference<true, false, true>(a);
  }
  return runReference<false, false, true>(a);
}

SimResult Simulator::run(const Assignment& a, std::span<const int> order) {
  SimResult out;
  out.schedule.makespan_us = simulate(a, order, true);
  finishResult(a, out);
  return out;
}

void Simulator::finishResult(const Assignment& a, SimResult& out) {
  const int n = costs_.nodes(), D = costs_.devices();
  const double makespan = out.schedule.makespan_us;
  out.schedule.nodes.resize(n);
  for (int v = 0; v < n; ++v) out.schedule.nodes[v] = {v, a[v], start_[v], finish_[v]};
  out.schedule.transfers = transfers_;
  std::sort(out.schedule.transfers.begin(), out.schedule.transfers.end(),
            [](const TransferSpan& x, const TransferSpan& y) { return x.edge < y.edge; });
  out.order.assign(order_.begin(), order_.end());
  std::stable_sort(out.order.begin(), out.order.end(), [&](int x, int y) {
    return start_[x] < start_[y] || (start_[x] == start_[y] && x < y);
  });
  out.busy_us.assign(D, 0);
  out.utilization.assign(D, 0);
  std::vector<double> lastEnd(D, 0);
  out.idle_gaps.clear();
  // Walk each device's nodes in start order and note the stretches between them.
  for (int v : out.order) {
    const int d = a[v];
    out.busy_us[d] += finish_[v] - start_[v];
    if (start_[v] > lastEnd[d]) out.idle_gaps.push_back({d, lastEnd[d], start_[v]});
    lastEnd[d] = std::max(lastEnd[d], finish_[v]);
  }
  for (int d = 0; d < D; ++d) {
    if (makespan > lastEnd[d]) out.idle_gaps.push_back({d, lastEnd[d], makespan});
    out.utilization[d] = makespan > 0 ? out.busy_us[d] / makespan : 0;
  }
  std::sort(out.idle_gaps.begin(), out.idle_gaps.end(), [](const IdleGap& x, const IdleGap& y) {
    return x.device < y.device || (x.device == y.device && x.start_us < y.start_us);
  });
}

}  // namespace doppler

#include "core/exec/executor.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "core/common/input_error.h"

namespace doppler::exec {
namespace {

using Clock = std::chrono::steady_clock;

// Under `sequence`, an order in which some device's next node can never become ready would wait
// forever: found here, before any thread starts, by running the sequences without time.
void checkSequenceRuns(const DataflowGraph& g, const Assignment& a,
                       const std::vector<std::vector<int>>& sequences) {
  const int n = g.nodeCount();
  std::vector<int> missing(n);
  for (int v = 0; v < n; ++v) missing[v] = static_cast<int>(g.inEdges(v).size());
  std::vector<size_t> next(sequences.size(), 0);
  int done = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t d = 0; d < sequences.size(); ++d)
      while (next[d] < sequences[d].size() && missing[sequences[d][next[d]]] == 0) {
        const int v = sequences[d][next[d]++];
        for (int e : g.outEdges(v)) --missing[g.edge(e).dst];
        ++done;
        progress = true;
      }
  }
  if (done == n) return;
  for (size_t d = 0; d < sequences.size(); ++d)
    if (next[d] < sequences[d].size()) {
      const int v = sequences[d][next[d]];
      throw InputError("", "order",
                       "under sequence, device " + std::to_string(d) + " would wait forever for '" +
                           g.node(v).id +
                           "' (its inputs come after it in the order): use a "
                           "topological order");
    }
  (void)a;
}

void pinToCore(std::thread& t, int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(t.native_handle(), sizeof set, &set);  // best effort: a hint
}

// One run's shared state. Every field is guarded by `m`, except the spans, each written by the
// one thread that owns its node or edge and read after the threads are joined.
class Run {
 public:
  Run(const DataflowGraph& g, const Assignment& a, int devices, Backend& backend,
      const ExecOptions& opts, const CancelToken& cancel, Clock::time_point deadline)
      : g_(g),
        a_(a),
        devices_(devices),
        backend_(backend),
        opts_(opts),
        cancel_(cancel),
        deadline_(deadline),
        missing_(g.nodeCount()),
        fifo_(devices),
        byRank_(devices),
        incoming_(devices),
        workerCv_(devices),
        copierCv_(devices) {
    const int n = g.nodeCount();
    for (int v = 0; v < n; ++v) missing_[v] = static_cast<int>(g.inEdges(v).size());
    if (opts.discipline != Discipline::Fifo) {
      rank_ = orderRanks(opts.order, n);
      sequences_ = deviceSequences(a, opts.order, devices);
      next_.assign(devices, 0);
    }
    ready_.assign(n, 0);
    schedule_.nodes.resize(n);
    for (int v = 0; v < n; ++v) schedule_.nodes[v] = NodeSpan{v, a[v], 0, 0};
    for (int e = 0; e < g.edgeCount(); ++e)
      if (a[g.edge(e).src] != a[g.edge(e).dst])
        transferIndex_.emplace_back(e),
            schedule_.transfers.push_back({e, a[g.edge(e).src], a[g.edge(e).dst], 0, 0});
    remaining_ = n;
    for (int v = 0; v < n; ++v)
      if (missing_[v] == 0) markReady(v);
  }

  Schedule go() {
    std::vector<std::thread> threads;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int d = 0; d < devices_; ++d) {
      threads.emplace_back([this, d] { guarded([&] { worker(d); }); });
      if (opts_.pin) pinToCore(threads.back(), d % cores);
      threads.emplace_back([this, d] { guarded([&] { copier(d); }); });
    }
    {
      std::lock_guard lock(m_);
      t0_ = Clock::now();
      started_ = true;
    }
    notifyAll();
    for (auto& t : threads) t.join();
    if (!error_.empty()) throw ExecError(error_);
    double makespan = 0;
    for (const NodeSpan& s : schedule_.nodes) makespan = std::max(makespan, s.finish_us);
    schedule_.makespan_us = makespan;
    return schedule_;
  }

 private:
  double now() const {
    return std::chrono::duration<double, std::micro>(Clock::now() - t0_).count();
  }

  // Runs a thread's body, turning any exception into the run's error.
  template <class F>
  void guarded(F&& body) {
    try {
      body();
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }

  void fail(const std::string& what) {
    {
      std::lock_guard lock(m_);
      if (error_.empty()) error_ = what;
      stop_ = true;
    }
    notifyAll();
  }

  // Each thread sleeps on its own condition and is woken only for its own work (a node of its
  // device became ready, a tensor is on its way to it) or for the end of the run: waking every
  // thread at every event costs more than the small kernels it coordinates.
  void notifyAll() {
    for (auto& cv : workerCv_) cv.notify_all();
    for (auto& cv : copierCv_) cv.notify_all();
  }

  // Called with m_ held (or before the threads start).
  void markReady(int v) {
    const int d = a_[v];
    ready_[v] = 1;
    if (opts_.discipline == Discipline::Fifo)
      fifo_[d].emplace(readySeq_++, v);
    else if (opts_.discipline == Discipline::Priority)
      byRank_[d].emplace(rank_[v], v);
  }

  // The node device d runs next, or -1 if none may run yet. Called with m_ held.
  int pick(int d) {
    switch (opts_.discipline) {
      case Discipline::Fifo: {
        if (fifo_[d].empty()) return -1;
        const int v = fifo_[d].begin()->second;
        fifo_[d].erase(fifo_[d].begin());
        return v;
      }
      case Discipline::Priority: {
        if (byRank_[d].empty()) return -1;
        const int v = byRank_[d].begin()->second;
        byRank_[d].erase(byRank_[d].begin());
        return v;
      }
      case Discipline::Sequence: {
        if (next_[d] >= sequences_[d].size()) return -1;
        const int v = sequences_[d][next_[d]];
        if (!ready_[v]) return -1;  // the stream waits for its next node
        ++next_[d];
        return v;
      }
    }
    return -1;
  }

  // Waits on the condition until `ready` holds, the run stops, or the deadline or a cancel ends
  // it (polled: a cancel token cannot notify). Returns false when the thread should end.
  template <class Pred>
  bool wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Pred ready) {
    while (!stop_ && !(started_ && ready())) {
      if (cancel_.cancelled()) {
        error_ = error_.empty() ? "execution cancelled" : error_;
        stop_ = true;
        notifyAll();
        break;
      }
      if (Clock::now() > deadline_) {
        if (error_.empty()) error_ = timeoutMessage();
        stop_ = true;
        notifyAll();
        break;
      }
      cv.wait_for(lock, std::chrono::milliseconds(20));
    }
    return !stop_;
  }

  std::string timeoutMessage() const {
    std::string waiting;
    for (int v = 0; v < g_.nodeCount() && waiting.empty(); ++v)
      if (schedule_.nodes[v].finish_us == 0 && !ready_[v]) waiting = g_.node(v).id;
    return "execution timed out after " + std::to_string(opts_.timeout.count() / 1000.0) +
           " s with " + std::to_string(remaining_) + " nodes unfinished" +
           (waiting.empty() ? "" : " (e.g. '" + waiting + "' still waiting for its inputs)");
  }

  void worker(int d) {
    std::unique_lock lock(m_);
    while (true) {
      int v = -1;
      if (!wait(lock, workerCv_[d], [&] { return remaining_ == 0 || (v = pick(d)) >= 0; })) return;
      if (v < 0) return;  // every node has run
      lock.unlock();
      const double start = now();
      try {
        backend_.run(v, d);
      } catch (const std::exception& e) {
        fail("kernel of node '" + g_.node(v).id + "' on device " + std::to_string(d) +
             " failed: " + e.what());
        return;
      }
      const double finish = now();
      lock.lock();
      schedule_.nodes[v].start_us = start;
      schedule_.nodes[v].finish_us = std::max(finish, start + 1e-3);  // distinguishes "ran"
      --remaining_;
      for (int e : g_.outEdges(v)) {
        const int w = g_.edge(e).dst;
        if (a_[w] == d) {
          if (--missing_[w] == 0) markReady(w);
        } else {
          incoming_[a_[w]].push_back(e);
          copierCv_[a_[w]].notify_one();
        }
      }
      if (remaining_ == 0) notifyAll();
    }
  }

  void copier(int d) {
    std::unique_lock lock(m_);
    while (true) {
      if (!wait(lock, copierCv_[d], [&] { return remaining_ == 0 || !incoming_[d].empty(); }))
        return;
      if (incoming_[d].empty()) return;  // every node has run: nothing more can arrive
      const int e = incoming_[d].front();
      incoming_[d].pop_front();
      lock.unlock();
      const int from = a_[g_.edge(e).src];
      const double start = now();
      try {
        backend_.receive(e, from, d);
      } catch (const std::exception& ex) {
        fail("copy of edge '" + g_.node(g_.edge(e).src).id + "' -> '" + g_.node(g_.edge(e).dst).id +
             "' failed: " + ex.what());
        return;
      }
      const double finish = now();
      lock.lock();
      auto it = std::lower_bound(transferIndex_.begin(), transferIndex_.end(), e);
      TransferSpan& span = schedule_.transfers[it - transferIndex_.begin()];
      span.start_us = start;
      span.finish_us = finish;
      const int w = g_.edge(e).dst;
      if (--missing_[w] == 0) {
        markReady(w);
        workerCv_[d].notify_one();
      }
    }
  }

  const DataflowGraph& g_;
  const Assignment& a_;
  const int devices_;
  Backend& backend_;
  const ExecOptions& opts_;
  CancelToken cancel_;
  const Clock::time_point deadline_;

  std::mutex m_;
  bool started_ = false, stop_ = false;
  std::string error_;
  Clock::time_point t0_;
  int remaining_ = 0;
  long readySeq_ = 0;
  std::vector<int> missing_;
  std::vector<char> ready_;
  std::vector<int> rank_;
  std::vector<std::set<std::pair<long, int>>> fifo_;
  std::vector<std::set<std::pair<int, int>>> byRank_;
  std::vector<std::vector<int>> sequences_;
  std::vector<size_t> next_;
  std::vector<std::deque<int>> incoming_;
  std::vector<std::condition_variable> workerCv_, copierCv_;  // per device
  std::vector<int> transferIndex_;  // edge of each schedule_.transfers entry, ascending
  Schedule schedule_;
};

}  // namespace

ExecResult execute(const DataflowGraph& g, const Assignment& a, int devices, Backend& backend,
                   const ExecOptions& opts, const CancelToken& cancel) {
  const int n = g.nodeCount();
  if (devices < 1) throw InputError("", "devices", "at least one device is needed");
  if (static_cast<int>(a.size()) != n)
    throw InputError(
        "", "assignment",
        "has " + std::to_string(a.size()) + " entries for " + std::to_string(n) + " nodes");
  for (int v = 0; v < n; ++v)
    if (a[v] < 0 || a[v] >= devices)
      throw InputError("", "assignment['" + g.node(v).id + "']",
                       "device " + std::to_string(a[v]) + " is not one of the " +
                           std::to_string(devices) + " devices");
  if (opts.repeat < 1) throw InputError("", "--repeat", "must be at least 1");
  g.topologicalOrder();  // a cyclic graph is refused here, naming the cycle
  if (usesOrder(opts.discipline)) {
    validateOrder(opts.order, n);
    if (opts.discipline == Discipline::Sequence)
      checkSequenceRuns(g, a, deviceSequences(a, opts.order, devices));
  }

  ExecResult result;
  result.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  result.shared_cores = devices > result.cores;
  const auto deadline = Clock::now() + opts.timeout;
  std::vector<Schedule> schedules;
  for (int r = 0; r < opts.repeat && !result.cancelled; ++r) {
    if (r > 0 && cancel.cancelled()) {
      result.cancelled = true;
      break;
    }
    backend.prepare(a, devices);
    Run run(g, a, devices, backend, opts, cancel, deadline);
    try {
      schedules.push_back(run.go());
      result.makespans_us.push_back(schedules.back().makespan_us);
    } catch (const ExecError&) {
      // A cancel keeps the repeats that finished; a failure, or a cancel before any, is thrown.
      if (!cancel.cancelled() || schedules.empty()) throw;
      result.cancelled = true;
    }
  }
  // The median repeat (the lower middle one for an even count) and its timeline.
  std::vector<int> byMakespan(schedules.size());
  for (size_t i = 0; i < byMakespan.size(); ++i) byMakespan[i] = static_cast<int>(i);
  std::sort(byMakespan.begin(), byMakespan.end(),
            [&](int x, int y) { return result.makespans_us[x] < result.makespans_us[y]; });
  const int median = byMakespan[(byMakespan.size() - 1) / 2];
  result.measured_makespan_us = result.makespans_us[median];
  result.schedule = std::move(schedules[median]);
  if (!result.cancelled) result.output_digest = backend.outputDigest();
  return result;
}

double digestDifference(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double scale = std::max({1e-30, std::abs(x[i]), std::abs(y[i])});
    worst = std::max(worst, std::abs(x[i] - y[i]) / scale);
  }
  return worst;
}

void paceCopy(std::chrono::steady_clock::time_point start, double us) {
  using Clock = std::chrono::steady_clock;
  const auto until = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double, std::micro>(us));
  if (until - Clock::now() > std::chrono::microseconds(200))
    std::this_thread::sleep_until(until - std::chrono::microseconds(100));
  while (Clock::now() < until) {
  }
}

}  // namespace doppler::exec

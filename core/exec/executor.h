#pragma once
// Real execution of a dataflow graph on local devices: one worker thread per device runs the
// kernels of the nodes assigned to it, in the order its discipline picks (core/sim/discipline.h,
// the same rules as the simulator), and one copy thread per device receives the tensors other
// devices send it. What happened is measured with the steady clock and returned in the
// simulator's own Schedule, so every view, export and table works on both.
//
// The kernels are a Backend's: CpuSyntheticBackend (synthetic_backend.h) does real arithmetic on
// real buffers with work proportional to each node's cost; a LibTorch or CUDA backend plugs in the
// same way. The executor owns the threads, the readiness bookkeeping, the timing, the timeout and
// cancellation; a backend owns memory and kernels.
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/graph/dataflow_graph.h"
#include "core/sim/discipline.h"
#include "core/sim/schedule.h"

namespace doppler::exec {

// What a backend must do; every call comes from the thread named.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "cpu-synthetic", ...
  // Before a run (any thread): allocate what `devices` devices need for this assignment.
  virtual void prepare(const Assignment& a, int devices) = 0;
  // On device `device`'s worker thread: run node v's kernel. Its inputs are on `device`: local
  // producers' outputs, or what receive() copied. Throws on failure (the run stops, naming v).
  virtual void run(int v, int device) = 0;
  // On device `to`'s copy thread: copy edge e's tensor from device `from` into `to`'s memory.
  virtual void receive(int e, int from, int to) = 0;
  // After a run: one number per sink node summarising its output (compared across placements).
  virtual std::vector<double> outputDigest() const = 0;
};

struct ExecOptions {
  Discipline discipline = Discipline::Fifo;
  std::vector<int> order;  // priority and sequence: a permutation of the nodes (topological)
  int repeat = 1;
  // Pin device d's worker to core d mod cores (the default): devices do not migrate, and more
  // devices than cores share cores (ExecResult::shared_cores says so).
  bool pin = true;
  std::chrono::milliseconds timeout{60000};  // the whole run, every repeat included
};

struct ExecResult {
  std::vector<double> makespans_us;   // one per repeat, in order
  double measured_makespan_us = 0;    // the median of the repeats
  Schedule schedule;                  // the median repeat's timeline
  std::vector<double> output_digest;  // per sink, from the last repeat
  int cores = 0;                      // hardware threads this machine has
  bool shared_cores = false;          // more devices than cores
  // Cancelled after at least one repeat: the figures are of the repeats that finished, and
  // output_digest is empty (the cancelled repeat left the outputs half written).
  bool cancelled = false;
};

// Runs the graph `options.repeat` times. Throws InputError for a bad assignment or order, and
// ExecError when a kernel fails, the run times out, or it is cancelled before a repeat finished
// (cancelled later, it returns the finished repeats, marked cancelled); never hangs.
ExecResult execute(const DataflowGraph& g, const Assignment& a, int devices, Backend& backend,
                   const ExecOptions& options = {}, const CancelToken& cancel = {});

class ExecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Paces a copy that began at `start` to take `us` microseconds: backends call it after the real
// copy when the link's time is emulated. An emulated link is idle, not busy: a sleep, with a
// short spin at the end for precision.
void paceCopy(std::chrono::steady_clock::time_point start, double us);

// The largest relative difference between two digests (infinite when their sizes differ).
double digestDifference(std::span<const double> x, std::span<const double> y);

}  // namespace doppler::exec

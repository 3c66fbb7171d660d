#pragma once
// The CPU backend for graphs that carry costs only (FLOPs, times, bytes): each node's kernel is
// real floating-point work on the device's own buffers, sized so it takes the node's cost in time
// on this machine, and each transfer is a real copy of the producer's output buffer into the
// receiving device's memory, paced to the link's time when asked. Outputs are deterministic
// functions of the inputs, so any placement of the graph computes the same sink digests as one
// device does (ExecResult::output_digest). CPU devices stand in for GPUs.
#include <functional>
#include <memory>
#include <vector>

#include "core/exec/executor.h"
#include "core/sim/cost_table.h"

namespace doppler::exec {

struct SyntheticWork {
  std::vector<double> compute_us;  // per node: how long its kernel should compute
  std::vector<double> bytes;       // per edge: the tensor it carries (copies are real)
  // Per cross-device edge: how long its copy should take (0 or empty: as fast as memcpy goes).
  std::function<double(int e, int from, int to)> pace_us;
};

// The work of `a` on `g` (with its costs): each node computes its simulated time on its device
// times `scale` (measured µs per simulated µs), each edge copies its bytes.
SyntheticWork syntheticWork(const DataflowGraph& g, const CostTable& costs, const Assignment& a,
                            double scale);

class CpuSyntheticBackend : public Backend {
 public:
  // Buffers larger than max_buffer_bytes are capped (the copy still happens, on the capped size,
  // and pacing stretches it to the edge's time).
  CpuSyntheticBackend(const DataflowGraph& g, SyntheticWork work,
                      double max_buffer_bytes = 1 << 20);
  ~CpuSyntheticBackend() override;

  std::string name() const override { return "cpu-synthetic"; }
  void prepare(const Assignment& a, int devices) override;
  void run(int v, int device) override;
  void receive(int e, int from, int to) override;
  std::vector<double> outputDigest() const override;

  // Iterations of the kernel's inner loop per microsecond on this machine (measured once).
  static double iterationsPerUs();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace doppler::exec

#pragma once
// The work-conserving asynchronous simulator; its contract is docs/simulator.md.
//
// Each device runs one node at a time; a node becomes ready when all its inputs have arrived; a
// device never idles while a node assigned to it is ready; among ready nodes it takes the one
// that became ready first (ties by node index), or by another discipline (discipline.h).
// Transfers start when their producer finishes.
// Cost models: `reference` (transfers never contend) and `links` (each directed link carries one
// transfer at a time, first requested first served, ties by edge index). Optional seeded
// multiplicative noise on every duration.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/sim/cost_table.h"
#include "core/sim/discipline.h"
#include "core/sim/schedule.h"

namespace doppler {

enum class CostModel { Reference, Links };
CostModel parseCostModel(const std::string& s);  // throws InputError
const char* toString(CostModel m);

struct SimOptions {
  CostModel model = CostModel::Reference;
  double noise = 0;   // sigma of a log-normal factor on each duration; 0 = deterministic
  uint64_t seed = 1;  // noise seed
  // Run the general event loop even for the reference model (the fast path computes the same
  // schedule; tests cross-check the two).
  bool event_loop = false;
  // How a device picks among its ready nodes. Priority and sequence follow the order given to
  // makespan/run; fifo ignores it.
  Discipline discipline = Discipline::Fifo;
};

// Holds reusable buffers: construct once per (cost table, options), call many times. Not
// thread-safe; use one per thread.
class Simulator {
 public:
  explicit Simulator(const CostTable& costs, SimOptions opts = {});

  // Makespan only: the hot path for search and training. The assignment must have one valid
  // device per node (checked in debug builds only; use validateAssignment at the boundary).
  // `order` (a permutation of the nodes, validateOrder) is what the priority and sequence
  // disciplines follow; empty means the topological order with ties by node index. Under
  // sequence, an order in which a device's next node can never become ready throws InputError
  // (field "order"); findSequenceDeadlock finds such a node beforehand.
  double makespan(const Assignment& a, std::span<const int> order = {});
  // The makespan if it is at most `cutoff`; otherwise some value above `cutoff`, returned as soon
  // as the partial schedule proves the makespan exceeds it (a node's finish plus the shortest
  // compute chain still to follow it). A search that only needs to know whether a candidate
  // beats a threshold rejects most candidates part-way through. Same state and noise draws as
  // makespan(), so a search's seeded results do not depend on which it calls. The early stop
  // is in the reference model's fifo path; the other paths simulate in full.
  double makespanUpTo(const Assignment& a, double cutoff, std::span<const int> order = {});
  // Full result: per-node and per-transfer spans, utilisation, idle gaps.
  SimResult run(const Assignment& a, std::span<const int> order = {});

  const CostTable& costs() const { return costs_; }
  const SimOptions& options() const { return opts_; }

 private:
  template <bool Noise, bool Record, bool Cut = false>
  double runReference(const Assignment& a);
  template <bool Noise, bool Record>
  double runSequence(const Assignment& a);
  double runEvents(const Assignment& a, bool record);
  double simulate(const Assignment& a, std::span<const int> order, bool record);
  void prepareTails();
  void prepareOrder(const Assignment& a, std::span<const int> order);
  [[noreturn]] void throwDeadlock(const Assignment& a, int node) const;
  void drawNoise();
  void finishResult(const Assignment& a, SimResult& out);

  const CostTable& costs_;
  SimOptions opts_;
  uint64_t rng_;
  // Reused buffers.
  static constexpr int kNoiseTableBits = 12;
  std::vector<double> noiseTable_;
  std::vector<double> ready_, start_, finish_, devFree_, nodeNoise_, edgeNoise_;
  // makespanUpTo: the cutoff of the current call, and each node's tail (the longest chain of
  // its descendants' fastest computes, transfers free), built on first use.
  double cutoff_ = 0;
  std::vector<double> tail_;
  std::vector<int> pending_, order_;
  std::vector<TransferSpan> transfers_;
  struct HeapItem {
    double t;
    int v;
  };
  std::vector<HeapItem> heap_;
  // Discipline state, rebuilt from the order on each call: priority ranks; sequence: each
  // device's nodes in order (flat, seqStart_ per device), the next node on the same device, and
  // how far each device has got.
  std::vector<double> rank_;
  std::vector<int> seqList_, seqStart_, seqPos_, seqNext_, seqHasPrev_;
  // Event-loop state (links model), kept across calls so the loop does not allocate.
  struct Timed {
    double t;
    int v;  // node index (device queues) or edge index (link queues)
  };
  struct Event {
    double t;
    int64_t seq;
    int kind, x;
  };
  std::vector<Event> events_;
  std::vector<std::vector<Timed>> devQueue_, linkQueue_;
  std::vector<char> devBusy_, linkBusy_, linkActive_;
  std::vector<int> activeLinks_;
};

// Throws InputError if the assignment's size or a device index is wrong (names the node).
void validateAssignment(const Assignment& a, const CostTable& costs, const std::string& file = {});

// Under the sequence discipline, a node whose device would wait for it forever (an input of it
// can only run after it, on its device or through other devices); -1 when every node runs. The
// order must be valid (validateOrder); a topological order never deadlocks.
int findSequenceDeadlock(const CostTable& costs, const Assignment& a, std::span<const int> order);

}  // namespace doppler

// Cancelling a comparison stops the run in progress at its next slot, not after it (a request-
// level run of the default horizon takes minutes), and drops the seed it belonged to, so that
// every method stays compared on the same seeds.
#include <gtest/gtest.h>

#include <memory>

#include "core/fleet/sim/baselines.h"
#include "core/fleet/sim/harness.h"

namespace {

using namespace doppler;
using namespace doppler::fleet;
using namespace doppler::fleet::sim;

// Routes every region to itself and cancels the comparison at one slot of one of its runs.
class CancellingPolicy : public SchedulingPolicy {
 public:
  CancellingPolicy(CancelToken token, int runToCancel, int slotToCancel, int* allocations)
      : token_(std::move(token)),
        runToCancel_(runToCancel),
        slotToCancel_(slotToCancel),
        allocations_(allocations) {}
  std::string name() const override { return "cancelling"; }
  void reset(const FleetModel&, uint64_t) override { ++run_; }
  Allocation allocate(const SlotState& state) override {
    ++*allocations_;
    if (run_ == runToCancel_ && state.slot == slotToCancel_) token_.cancel();
    return Allocation::identity(static_cast<int>(state.arrivals.size()));
  }

 private:
  CancelToken token_;
  int runToCancel_, slotToCancel_;
  int* allocations_;
  int run_ = 0;
};

TEST(FleetCompareCancel, ARunStopsAtTheNextSlotAndItsSeedIsDropped) {
  for (const Fidelity fidelity : {Fidelity::Slot, Fidelity::Request}) {
    RunOptions o;
    o.slots = 30;
    o.fidelity = fidelity;
    CancelToken token;
    int allocations = 0;
    const PolicyFactory factory =
        [&](const std::string& name) -> std::unique_ptr<SchedulingPolicy> {
      if (name == "cancelling")
        return std::make_unique<CancellingPolicy>(token, 2, 5, &allocations);
      return makePolicy(name);
    };
    // Seed 1 runs whole; on seed 2 the second run is cancelled at its slot 5.
    const Comparison c = compareMethods(o, {"local", "cancelling"}, 3, factory, token);
    EXPECT_TRUE(c.cancelled);
    EXPECT_EQ(c.seeds(), 1);
    EXPECT_EQ(c.runs.at("local").size(), 1u);
    EXPECT_EQ(c.runs.at("cancelling").size(), 1u);
    // 30 slots of seed 1, then slots 0-5 of seed 2: the run stopped at slot 6, not at 30.
    EXPECT_EQ(allocations, 30 + 6);
  }
}

}  // namespace

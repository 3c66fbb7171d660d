#pragma once
// The shipped general policy as a start for local search (core/heuristics/search_start.h): the
// network places the graph greedily, exactly as `doppler place -m doppler -p decode=greedy` does,
// and the search improves on that placement. On the unseen graphs of the general policy's
// evaluation table, 2,000 evaluations from the policy's placement do about what 5,000 from
// critical-path do; at equal time (the policy's placement costs about 2,000 evaluations) the lead
// is smaller, largest on the 8-GPU block (scripts/experiments/general_policy_note.md, "the policy
// as a start for local search"; bench/policy_bench.cpp).
#include <memory>
#include <string>

namespace doppler::train {

inline constexpr const char* kGeneralPolicyStart = "doppler";

class SharedPolicy;

// Registers the start "doppler" with this checkpoint (shared with the method doppler:
// registerGeneralPolicy in doppler_method.h calls this). Nothing is loaded here: the checkpoint
// is loaded by the first placement that uses it, and kept for the process. A checkpoint that
// cannot be read fails that search with its InputError.
void registerGeneralPolicyStart(std::shared_ptr<SharedPolicy> policy);

}  // namespace doppler::train

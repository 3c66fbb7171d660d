#pragma once
// The shipped general policy as a start for local search (core/heuristics/search_start.h): the
// network places the graph greedily, exactly as `doppler place --method doppler` does, and the
// search improves on that placement. On the graphs of issue 16's table, 5,000 evaluations from
// the policy's placement come as close to 500,000 from critical-path as 50,000 from critical-path
// do (scripts/experiments/general_policy_note.md, "The policy as a start for search").
#include <string>

namespace doppler::train {

inline constexpr const char* kGeneralPolicyStart = "doppler";

// Registers the start "doppler" with this checkpoint. Nothing is loaded here: the LibTorch module
// and the checkpoint are loaded by the first search that starts from it, and kept for the
// process. A checkpoint that cannot be read fails that search with its InputError.
void registerGeneralPolicyStart(const std::string& checkpoint);

}  // namespace doppler::train

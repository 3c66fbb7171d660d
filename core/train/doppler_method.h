#pragma once
// The general policy as a placement method like any other (`doppler place -m doppler`, `doppler
// methods`, the run store): a registered Method whose parameters choose how the network's
// SEL/PLC scores become a placement.
//
//   greedy  one episode, SEL's most probable ready node and PLC's most probable device (the
//           paper's decoder; records and replays decisions)
//   hybrid  SEL's order with the earliest-join device rule: a list schedule whose priorities are
//           SEL's logits (records and replays decisions)
//   sample  the best of `samples` episodes, the greedy one and the rest sampled
//   search  (default) local search started from the best of greedy, hybrid and critical-path
//           (earliest-join), its moves drawn from the policy (PLC's device distribution of each
//           node, nodes PLC was unsure of more often), stopped by --budget or time_ms
//
// The core cannot link the network's loader, so the programs that can (the CLI, the studio)
// register the method at start-up with the checkpoint they ship.
#include <string>

namespace doppler::train {

inline constexpr const char* kDopplerMethod = "doppler";

// Registers (or replaces) the method "doppler" and local search's start "doppler"
// (general_policy_start.h) with this checkpoint, one copy loaded for both; nothing is loaded
// until a placement uses it. A checkpoint that cannot be read fails that placement with its
// InputError.
void registerGeneralPolicy(const std::string& checkpoint);

}  // namespace doppler::train

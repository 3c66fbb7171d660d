#pragma once
// `doppler fleet ...`: multi-region LLM inference scheduling (core/fleet). Each subcommand lives
// in its own cmd_fleet_*.cpp and registers itself under the `fleet` command here.
#include <CLI/CLI.hpp>

namespace doppler::cli {

void addFleetOtCommand(CLI::App& fleet);     // `doppler fleet ot` (cmd_fleet_ot.cpp)
void addFleetWorldCommand(CLI::App& fleet);  // `doppler fleet world` (cmd_fleet_world.cpp)
// `doppler fleet simulate` and `doppler fleet compare` (cmd_fleet_simulate.cpp)
void addFleetSimulateCommands(CLI::App& fleet);

// Option checks with one plain message. CLI11's PositiveNumber prints its range up to DBL_MAX
// ("Value 0 not in range 0.000000 to 179769313486231570...").
CLI::Validator positiveNumber();      // a finite number above 0
CLI::Validator nonNegativeInteger();  // for unsigned options: refuses "-1" (CLI11 wraps it)

}  // namespace doppler::cli

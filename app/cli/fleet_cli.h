#pragma once
// `doppler fleet ...`: multi-region LLM inference scheduling (core/fleet). Each subcommand lives
// in its own cmd_fleet_*.cpp and registers itself under the `fleet` command here.
#include <CLI/CLI.hpp>

namespace doppler::cli {

void addFleetOtCommand(CLI::App& fleet);     // `doppler fleet ot` (cmd_fleet_ot.cpp)
void addFleetWorldCommand(CLI::App& fleet);  // `doppler fleet world` (cmd_fleet_world.cpp)
// `doppler fleet simulate` and `doppler fleet compare` (cmd_fleet_simulate.cpp)
void addFleetSimulateCommands(CLI::App& fleet);

}  // namespace doppler::cli

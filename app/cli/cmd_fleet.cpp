// `doppler fleet`: the parent of the fleet subcommands (fleet_cli.h).
#include "cli_common.h"
#include "fleet_cli.h"

namespace doppler::cli {

void addFleetCommands(CLI::App& app) {
  CLI::App* fleet = app.add_subcommand(
      "fleet", "Schedule LLM inference across GPU regions (TORTA-style timeslots)");
  fleet->require_subcommand(1);
  addFleetOtCommand(*fleet);
  addFleetWorldCommand(*fleet);
  addFleetSimulateCommands(*fleet);
}

}  // namespace doppler::cli

// `doppler fleet simulate` and `doppler fleet compare` (not yet built: registers nothing until
// their work lands).
#include "fleet_cli.h"

namespace doppler::cli {

void addFleetSimulateCommands(CLI::App& /*fleet*/) {}

}  // namespace doppler::cli

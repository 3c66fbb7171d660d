// `doppler fleet world` (not yet built: registers nothing until its work lands).
#include "fleet_cli.h"

namespace doppler::cli {

void addFleetWorldCommand(CLI::App& /*fleet*/) {}

}  // namespace doppler::cli

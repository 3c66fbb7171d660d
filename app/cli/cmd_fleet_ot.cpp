// `doppler fleet ot` (not yet built: registers nothing until its work lands).
#include "fleet_cli.h"

namespace doppler::cli {

void addFleetOtCommand(CLI::App& /*fleet*/) {}

}  // namespace doppler::cli

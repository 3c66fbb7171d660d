// `doppler fleet`: the parent of the fleet subcommands (fleet_cli.h).
#include <cmath>

#include "cli_common.h"
#include "fleet_cli.h"

namespace doppler::cli {

CLI::Validator positiveNumber() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double x = 0;
        if (!CLI::detail::lexical_cast(value, x) || !std::isfinite(x) || x <= 0)
          return "expected a positive number, found " + value;
        return {};
      },
      "POSITIVE");
}

CLI::Validator nonNegativeInteger() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const size_t first = value.find_first_not_of(" \t");
        if (first != std::string::npos && value[first] == '-')
          return "expected a non-negative integer, found " + value;
        return {};
      },
      "");  // the option's type already reads UINT in --help
}

void addFleetCommands(CLI::App& app) {
  CLI::App* fleet = app.add_subcommand(
      "fleet", "Schedule LLM inference across GPU regions (TORTA-style timeslots)");
  fleet->require_subcommand(1);
  addFleetOtCommand(*fleet);
  addFleetWorldCommand(*fleet);
  addFleetSimulateCommands(*fleet);
}

}  // namespace doppler::cli

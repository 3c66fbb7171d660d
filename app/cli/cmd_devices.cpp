// `doppler devices list|show`: the device-set presets.
#include <sstream>

#include "cli_common.h"
#include "core/graph/device_presets.h"
#include "core/graph/device_spec.h"
#include "core/graph/graph_io.h"

namespace doppler::cli {
namespace {

nlohmann::json presetsJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const DevicePresetInfo& preset : devicePresets())
    out.push_back({{"name", preset.name},
                   {"description", preset.description},
                   {"source", preset.source},
                   {"device_count", devicePreset(preset.name).size()}});
  return out;
}

std::string presetsText() {
  std::ostringstream s;
  for (const DevicePresetInfo& preset : devicePresets())
    s << preset.name << "\n    " << preset.description << "\n    source: " << preset.source << "\n";
  return s.str();
}

struct ShowArgs {
  std::string name;
  OutputArgs output;
};

}  // namespace

void addDevicesCommands(CLI::App& app) {
  CLI::App* devices = app.add_subcommand("devices", "List and write device-set presets");
  devices->require_subcommand(1);

  auto listOutput = std::make_shared<OutputArgs>();
  CLI::App* list = devices->add_subcommand("list", "List device presets");
  addOutputOptions(*list, *listOutput);
  list->callback([listOutput] { writeResult(*listOutput, presetsJson, presetsText); });

  auto show = std::make_shared<ShowArgs>();
  CLI::App* sh =
      devices->add_subcommand("show", "Write a preset (or N default devices) as device-set/1 JSON");
  sh->add_option("name", show->name, "Preset name or device count")->required();
  addOutputOptions(*sh, show->output, false, "Output file (stdout if omitted)");
  sh->callback(
      [show] { writeResult(show->output, writeDeviceSetJson(resolveDevices(show->name))); });
}

}  // namespace doppler::cli

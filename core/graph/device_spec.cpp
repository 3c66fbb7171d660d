#include "core/graph/device_spec.h"

#include <cctype>
#include <filesystem>

#include "core/common/input_error.h"
#include "core/graph/device_presets.h"
#include "core/graph/graph_io.h"

namespace doppler {

DeviceSet resolveDevices(const std::string& spec, const std::string& where) {
  std::error_code ec;
  if (std::filesystem::exists(spec, ec)) return readDeviceFile(spec);
  bool digits = !spec.empty() && spec.size() < 6;
  for (char c : spec) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) {
    const int count = std::stoi(spec);
    if (count < 1 || count > 4096)
      throw InputError("", where, "device count must be between 1 and 4096, got " + spec);
    return DeviceSet::uniform(count);
  }
  for (const auto& preset : devicePresets())
    if (preset.name == spec) return devicePreset(spec);
  std::string known;
  for (const auto& preset : devicePresets()) known += (known.empty() ? "" : ", ") + preset.name;
  throw InputError(spec, where,
                   "no such file, and not a device count or a preset (presets: " + known + ")");
}

}  // namespace doppler

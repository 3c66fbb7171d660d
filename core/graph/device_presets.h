#pragma once
// Device sets for common machines, with link matrices from vendor figures.
#include <string>
#include <vector>

#include "device_set.h"

namespace doppler {

struct DevicePresetInfo {
  std::string name;  // "4xP100-PCIe", "8xV100-NVLink", "4xA100-NVSwitch", "8xH100-NVSwitch"
  std::string description;
  std::string source;  // where the figures come from
};

const std::vector<DevicePresetInfo>& devicePresets();
// Throws InputError on an unknown name (lists the known ones).
DeviceSet devicePreset(const std::string& name);

}  // namespace doppler

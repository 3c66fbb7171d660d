#pragma once
// What a user may name as a device set, wherever one is asked for (`--devices` on the command
// line, the studio's device box): a device-set/1 file, a preset name, or a count of identical
// default devices. The one resolver, shared by the CLI and the studio.
#include <string>

#include "core/graph/device_set.h"

namespace doppler {

// The device set used when none is named: the paper's four P100s.
inline constexpr const char* kDefaultDevicesSpec = "4xP100-PCIe";

// A file that exists is read as device-set/1; else up to five digits are a count (1 to 4096) of
// DeviceSet::uniform devices; else a preset name. Throws InputError naming the spec and `where`
// (the option or field it came from) when it is none of these.
DeviceSet resolveDevices(const std::string& spec, const std::string& where = "--devices");

}  // namespace doppler

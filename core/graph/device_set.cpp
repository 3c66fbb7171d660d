#include "core/graph/device_set.h"

#include <cmath>

#include "core/common/input_error.h"

namespace doppler {

DeviceSet DeviceSet::uniform(int n, const Device& proto, double bw, double lat, std::string name) {
  DeviceSet d;
  d.name = name.empty() ? std::to_string(n) + "x" + proto.name : std::move(name);
  for (int i = 0; i < n; ++i) {
    Device dev = proto;
    dev.name = proto.name + std::to_string(i);
    d.devices.push_back(dev);
  }
  d.bandwidth_gbps.assign(n, std::vector<double>(n, bw));
  d.latency_us.assign(n, std::vector<double>(n, lat));
  for (int i = 0; i < n; ++i) d.latency_us[i][i] = 0;
  return d;
}

void DeviceSet::validate() const {
  const size_t n = devices.size();
  if (n == 0) throw InputError("", "devices", "the device set has no devices");
  if (n > 4096) throw InputError("", "devices", "more than 4096 devices");
  for (size_t i = 0; i < n; ++i) {
    const std::string where = "devices[" + std::to_string(i) + "]";
    if (!std::isfinite(devices[i].tflops) || devices[i].tflops <= 0)
      throw InputError("", where + ".tflops", "must be a finite positive number");
    for (const auto& [op, rate] : devices[i].ops) {
      if (!std::isfinite(rate.tflops) || rate.tflops <= 0)
        throw InputError("", where + ".ops." + op + ".tflops", "must be a finite positive number");
      if (rate.memory_gbps && (!std::isfinite(*rate.memory_gbps) || *rate.memory_gbps <= 0))
        throw InputError("", where + ".ops." + op + ".memory_gbps",
                         "must be a finite positive number");
      if (rate.overhead_us && (!std::isfinite(*rate.overhead_us) || *rate.overhead_us < 0))
        throw InputError("", where + ".ops." + op + ".overhead_us",
                         "must be a finite non-negative number");
    }
    if (!std::isfinite(devices[i].kernel_overhead_us) || devices[i].kernel_overhead_us < 0)
      throw InputError("", where + ".kernel_overhead_us", "must be a finite non-negative number");
    if (!std::isfinite(devices[i].memory_gbps) || devices[i].memory_gbps <= 0)
      throw InputError("", where + ".memory_gbps", "must be a finite positive number");
    if (!std::isfinite(devices[i].memory_gb) || devices[i].memory_gb < 0)
      throw InputError("", where + ".memory_gb", "must be a finite non-negative number");
  }
  auto checkMatrix = [&](const std::vector<std::vector<double>>& m, const char* field,
                         bool positive) {
    if (m.size() != n)
      throw InputError("", std::string("links.") + field,
                       "has " + std::to_string(m.size()) + " rows, expected " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) {
      if (m[i].size() != n)
        throw InputError(
            "", std::string("links.") + field + "[" + std::to_string(i) + "]",
            "has " + std::to_string(m[i].size()) + " entries, expected " + std::to_string(n));
      for (size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        double x = m[i][j];
        if (!std::isfinite(x) || x < 0 || (positive && x == 0))
          throw InputError("",
                           std::string("links.") + field + "[" + std::to_string(i) + "][" +
                               std::to_string(j) + "]",
                           positive ? "must be a finite positive number"
                                    : "must be a finite non-negative number");
      }
    }
  };
  checkMatrix(bandwidth_gbps, "bandwidth_gbps", true);
  checkMatrix(latency_us, "latency_us", false);
}

}  // namespace doppler

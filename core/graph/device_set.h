#pragma once
// The devices a graph is placed on and the links between them.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace doppler {

struct Device {
  std::string name;
  double tflops = 9.3;  // dense throughput used to turn FLOPs into time
  double memory_gb = 16;
  // Device memory bandwidth in GB/s, for nodes that carry memory_bytes (the roofline). The
  // default is the P100's HBM2, matching the default throughput.
  double memory_gbps = 732;
  // Per op kind (a node's `op`), rates that replace the two above: `doppler calibrate` measures
  // each kind of kernel apart. Without memory_gbps the op is timed by its FLOPs alone (its
  // memory_bytes are not charged); without overhead_us it pays the device's kernel_overhead_us.
  struct OpRate {
    double tflops = 0;
    std::optional<double> memory_gbps;
    std::optional<double> overhead_us = {};
    bool operator==(const OpRate&) const = default;
  };
  std::map<std::string, OpRate> ops = {};
  // A fixed cost in microseconds added to every node timed by its FLOPs and bytes (not to nodes
  // with their own compute_us): launching a kernel, reading its inputs' first bytes. 0 (the
  // default) keeps the pure roofline; calibrate measures it per op kind on CPU cores, where a
  // 10-thousand-element add costs as much in dispatch as in arithmetic.
  double kernel_overhead_us = 0;
};

// Bandwidth is in gigabytes per second (1e9 bytes/s), as vendors quote NVLink and PCIe; latency
// in microseconds. Both are full matrices indexed [from][to]; the diagonal is unused (same-device
// edges cost nothing).
class DeviceSet {
 public:
  std::string name;
  std::vector<Device> devices;
  std::vector<std::vector<double>> bandwidth_gbps;
  std::vector<std::vector<double>> latency_us;

  int size() const { return static_cast<int>(devices.size()); }
  // n identical devices, every pair linked with the same bandwidth and latency.
  static DeviceSet uniform(int n, const Device& proto = Device{"gpu", 9.3, 16},
                           double bandwidth_gbps = 16, double latency_us = 5,
                           std::string name = {});
  // Throws InputError (file empty) if sizes disagree or a number is not finite and positive.
  void validate() const;
};

}  // namespace doppler

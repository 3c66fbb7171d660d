// Per-op rates of a device (Device::ops, written by `doppler calibrate`): they replace the
// device's throughput and bandwidth for nodes of that op; without a bandwidth the op is timed by
// its FLOPs alone.
#include <gtest/gtest.h>

#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "core/sim/cost_table.h"

namespace doppler {
namespace {

const char* kDevices = R"({"format": "device-set/1", "name": "fitted",
  "devices": [{"name": "cpu0", "tflops": 0.5, "memory_gbps": 2,
               "ops": {"matmul": {"tflops": 0.03}, "softmax": {"tflops": 0.1, "memory_gbps": 4}}}],
  "links": {"bandwidth_gbps": 1, "latency_us": 0}})";

TEST(OpRates, ReplaceTheDevicesRatesForTheirOp) {
  const DeviceSet d = parseDeviceSet(kDevices, "fitted.json");
  ASSERT_EQ(d.devices[0].ops.size(), 2u);
  DataflowGraph g;
  g.addNode(Node{"mm", "matmul", 3e6, 0, {}, 8e6});   // 3 MFLOP, 8 MB touched
  g.addNode(Node{"sm", "softmax", 1e3, 0, {}, 8e3});  // memory-bound at 4 GB/s
  g.addNode(Node{"add", "add", 1e3, 0, {}, 8e3});     // the device's own rates
  const CostTable c(g, d);
  EXPECT_DOUBLE_EQ(c.compute(0, 0), 3e6 / (0.03 * 1e6));  // FLOPs only: 100 us, bytes ignored
  EXPECT_DOUBLE_EQ(c.compute(1, 0), 8e3 / (4 * 1e3));     // roofline at the op's bandwidth
  EXPECT_DOUBLE_EQ(c.compute(2, 0), 8e3 / (2 * 1e3));     // the device's bandwidth
}

TEST(OpRates, RoundTripAndBadRatesNameTheField) {
  const DeviceSet d = parseDeviceSet(kDevices, "fitted.json");
  const DeviceSet back = parseDeviceSet(writeDeviceSetJson(d), "back.json");
  EXPECT_EQ(back.devices[0].ops, d.devices[0].ops);
  EXPECT_FALSE(back.devices[0].ops.at("matmul").memory_gbps.has_value());
  std::string bad = kDevices;
  bad.replace(bad.find("\"tflops\": 0.03"), 14, "\"tflops\": -1");
  try {
    parseDeviceSet(bad, "bad.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "devices[0].ops.matmul.tflops") << e.what();
  }
}

}  // namespace
}  // namespace doppler

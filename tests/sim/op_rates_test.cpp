// Per-op rates of a device (Device::ops, written by `doppler calibrate`): they replace the
// device's throughput and bandwidth for nodes of that op; without a bandwidth the op is timed by
// its FLOPs alone. A kernel overhead (the device's, or the op's own) is added to every node timed
// by its FLOPs and bytes.
#include <gtest/gtest.h>

#include <tuple>

#include "core/common/input_error.h"
#include "core/common/numbered.h"
#include "core/graph/graph_io.h"
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

const char* kOverheads = R"({"format": "device-set/1", "name": "fitted",
  "devices": [{"name": "cpu0", "tflops": 0.5, "memory_gbps": 2, "kernel_overhead_us": 7,
               "ops": {"matmul": {"tflops": 0.03, "overhead_us": 20},
                       "add": {"tflops": 0.5, "memory_gbps": 4, "overhead_us": 0},
                       "softmax": {"tflops": 0.1, "memory_gbps": 4}}}],
  "links": {"bandwidth_gbps": 1, "latency_us": 0}})";

TEST(OpRates, KernelOverheadIsAddedToRateTimedNodesOnly) {
  const DeviceSet d = parseDeviceSet(kOverheads, "fitted.json");
  EXPECT_DOUBLE_EQ(d.devices[0].kernel_overhead_us, 7);
  DataflowGraph g;
  g.addNode(Node{"mm", "matmul", 3e6, 0, {}, 8e6});     // the op's own overhead
  g.addNode(Node{"add", "add", 1e3, 0, {}, 8e3});       // an op overhead of 0 is kept, not the 7
  g.addNode(Node{"sm", "softmax", 1e3, 0, {}, 8e3});    // no op overhead: the device's
  g.addNode(Node{"relu", "relu", 1e3, 0, {}, 8e3});     // not in ops: the device's rates and 7
  g.addNode(Node{"fixed", "matmul", 3e6, 0, {42}, 0});  // its own time: no overhead
  const CostTable c(g, d);
  EXPECT_DOUBLE_EQ(c.compute(0, 0), 3e6 / (0.03 * 1e6) + 20);
  EXPECT_DOUBLE_EQ(c.compute(1, 0), 8e3 / (4 * 1e3));
  EXPECT_DOUBLE_EQ(c.compute(2, 0), 8e3 / (4 * 1e3) + 7);
  EXPECT_DOUBLE_EQ(c.compute(3, 0), 8e3 / (2 * 1e3) + 7);
  EXPECT_DOUBLE_EQ(c.compute(4, 0), 42);
}

TEST(OpRates, OverheadsRoundTripAndAreAbsentByDefault) {
  const DeviceSet d = parseDeviceSet(kOverheads, "fitted.json");
  const DeviceSet back = parseDeviceSet(writeDeviceSetJson(d), "back.json");
  EXPECT_EQ(back.devices[0].ops, d.devices[0].ops);
  EXPECT_DOUBLE_EQ(back.devices[0].kernel_overhead_us, 7);
  EXPECT_EQ(back.devices[0].ops.at("matmul").overhead_us, 20);
  EXPECT_EQ(back.devices[0].ops.at("add").overhead_us, 0);
  EXPECT_FALSE(back.devices[0].ops.at("softmax").overhead_us.has_value());
  // A file without the fields reads as before and is written without them.
  const DeviceSet plain = parseDeviceSet(kDevices, "fitted.json");
  EXPECT_EQ(plain.devices[0].kernel_overhead_us, 0);
  EXPECT_FALSE(plain.devices[0].ops.at("matmul").overhead_us.has_value());
  const std::string written = writeDeviceSetJson(plain);
  EXPECT_EQ(written.find("overhead_us"), std::string::npos) << written;
}

TEST(OpRates, NegativeOverheadsNameTheField) {
  for (const auto& [from, to, where] :
       {std::tuple{"\"kernel_overhead_us\": 7", "\"kernel_overhead_us\": -1",
                   "devices[0].kernel_overhead_us"},
        std::tuple{"\"overhead_us\": 20", "\"overhead_us\": -0.5",
                   "devices[0].ops.matmul.overhead_us"},
        std::tuple{"\"overhead_us\": 20", "\"overhead_us\": \"fast\"",
                   "devices[0].ops.matmul.overhead_us"}}) {
    std::string bad = kOverheads;
    bad.replace(bad.find(from), std::string(from).size(), to);
    try {
      parseDeviceSet(bad, "bad.json");
      ADD_FAILURE() << "expected an InputError for " << to;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), where) << e.what();
      EXPECT_EQ(e.file(), "bad.json") << e.what();
    }
  }
  // validate() refuses one built in code, too.
  DeviceSet d = parseDeviceSet(kOverheads, "fitted.json");
  d.devices[0].ops["add"].overhead_us = -3;
  try {
    d.validate();
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "devices[0].ops.add.overhead_us") << e.what();
  }
}

// Kernel times made by a known rate: the fit finds that rate again (no measurement involved).
std::vector<KernelSample> samplesOf(const Device::OpRate& rate,
                                    const std::vector<std::pair<double, double>>& shapes) {
  std::vector<KernelSample> out;
  for (const auto& [flops, bytes] : shapes)
    out.push_back(
        {flops, bytes, rooflineUs(flops, bytes, rate.tflops, rate.memory_gbps, *rate.overhead_us)});
  return out;
}

TEST(RooflineFit, RecoversTheOverheadAndBothRoofs) {
  const Device::OpRate truth{0.05, 4.0, 5.0};  // 50 GFLOP/s, 4 GB/s, 5 us
  // FLOP-bound (2 FLOP per byte and up) and memory-bound (below 12.5) kernels, 20 us to 20 ms.
  const auto samples = samplesOf(truth, {{1e6, 2e4},
                                         {4e6, 2e5},
                                         {2e7, 4e5},
                                         {1e8, 1e6},
                                         {1e9, 4e6},
                                         {1e6, 4e5},
                                         {4e6, 2e6},
                                         {1e7, 8e6},
                                         {2e6, 1e5}});
  const RooflineFit fit = fitRoofline(samples);
  EXPECT_NEAR(fit.rate.tflops, 0.05, 0.05 * 0.02);
  ASSERT_TRUE(fit.rate.memory_gbps.has_value());
  EXPECT_NEAR(*fit.rate.memory_gbps, 4.0, 4.0 * 0.02);
  ASSERT_TRUE(fit.rate.overhead_us.has_value());
  EXPECT_NEAR(*fit.rate.overhead_us, 5.0, 0.5);
  EXPECT_LT(fit.mean_error, 0.01);
}

TEST(RooflineFit, AGivenFlopRateIsKeptAndOnlyBandwidthAndOverheadMove) {
  const Device::OpRate truth{0.05, 10.0, 3.0};
  // Elementwise kernels: 5 FLOPs and 8 bytes per element, so the bytes always bind.
  std::vector<std::pair<double, double>> shapes;
  for (double elements : {1024.0, 4096.0, 16384.0, 65536.0, 262144.0})
    shapes.emplace_back(5 * elements, 8 * elements);
  const RooflineFit fit = fitRoofline(samplesOf(truth, shapes), 0.05);
  EXPECT_EQ(fit.rate.tflops, 0.05);
  ASSERT_TRUE(fit.rate.memory_gbps.has_value());
  EXPECT_NEAR(*fit.rate.memory_gbps, 10.0, 10.0 * 0.02);
  EXPECT_NEAR(*fit.rate.overhead_us, 3.0, 0.3);
}

TEST(RooflineFit, OneShapeIsReproducedAndNothingGivesAZeroRate) {
  const RooflineFit one = fitRoofline({{2e7, 3e6, 900}, {2e7, 3e6, 1100}});
  const double predicted =
      rooflineUs(2e7, 3e6, one.rate.tflops, one.rate.memory_gbps, *one.rate.overhead_us);
  EXPECT_NEAR(predicted, 1000, 100);  // between the two runs of the one shape
  const RooflineFit none = fitRoofline({});
  EXPECT_EQ(none.rate.tflops, 0);
  EXPECT_FALSE(none.rate.overhead_us.has_value());
}

TEST(RooflineFit, AFittedRateTimesNodesAsTheFitPredicts) {
  // What calibrate writes is what the simulator charges: CostTable uses the same rooflineUs.
  const Device::OpRate truth{0.02, 3.0, 8.0};
  const auto samples = samplesOf(truth, {{1e6, 1e5}, {1e7, 1e5}, {1e6, 2e6}, {5e7, 1e7}});
  DeviceSet d = DeviceSet::uniform(1);
  d.devices[0].ops["softmax"] = fitRoofline(samples).rate;
  DataflowGraph g;
  for (const KernelSample& s : samples)
    g.addNode(Node{numbered("n", g.nodeCount()), "softmax", s.flops, 0, {}, s.bytes});
  const CostTable c(g, d);
  for (int v = 0; v < g.nodeCount(); ++v)
    EXPECT_NEAR(c.compute(v, 0), samples[v].us, samples[v].us * 0.02) << v;
}

}  // namespace
}  // namespace doppler
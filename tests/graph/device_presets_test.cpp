#include "core/graph/device_presets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/common/input_error.h"

namespace doppler {
namespace {

TEST(DevicePresets, AllPresetsAreValidAndSymmetric) {
  const auto& presets = devicePresets();
  ASSERT_EQ(presets.size(), 4u);
  for (const auto& info : presets) {
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_FALSE(info.source.empty()) << info.name;
    DeviceSet d = devicePreset(info.name);
    EXPECT_EQ(d.name, info.name);
    EXPECT_NO_THROW(d.validate()) << info.name;
    const int n = d.size();
    ASSERT_EQ(d.bandwidth_gbps.size(), static_cast<size_t>(n));
    ASSERT_EQ(d.latency_us.size(), static_cast<size_t>(n));
    std::set<std::string> names;
    for (const auto& dev : d.devices) names.insert(dev.name);
    EXPECT_EQ(names.size(), static_cast<size_t>(n)) << "device names must be distinct";
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(d.bandwidth_gbps[i].size(), static_cast<size_t>(n));
      ASSERT_EQ(d.latency_us[i].size(), static_cast<size_t>(n));
      EXPECT_EQ(d.latency_us[i][i], 0);
      EXPECT_GT(d.bandwidth_gbps[i][i], 0);
      for (int j = 0; j < n; ++j) {
        EXPECT_EQ(d.bandwidth_gbps[i][j], d.bandwidth_gbps[j][i]) << info.name << i << j;
        EXPECT_EQ(d.latency_us[i][j], d.latency_us[j][i]) << info.name << i << j;
        if (i == j) continue;
        EXPECT_TRUE(std::isfinite(d.bandwidth_gbps[i][j]));
        EXPECT_GT(d.bandwidth_gbps[i][j], 0);
        EXPECT_GT(d.latency_us[i][j], 0);
      }
    }
  }
}

TEST(DevicePresets, SizesAndThroughputs) {
  struct Expect {
    const char* name;
    int n;
    double tflops, memory, bandwidth;
  };
  for (const Expect& e :
       {Expect{"4xP100-PCIe", 4, 9.3, 16, 10}, Expect{"4xA100-NVSwitch", 4, 19.5, 80, 300},
        Expect{"8xH100-NVSwitch", 8, 67, 80, 450}, Expect{"8xV100-NVLink", 8, 15.7, 16, -1}}) {
    DeviceSet d = devicePreset(e.name);
    EXPECT_EQ(d.size(), e.n) << e.name;
    for (const auto& dev : d.devices) {
      EXPECT_EQ(dev.tflops, e.tflops) << e.name;
      EXPECT_EQ(dev.memory_gb, e.memory) << e.name;
    }
    if (e.bandwidth < 0) continue;  // not uniform
    for (int i = 0; i < d.size(); ++i)
      for (int j = 0; j < d.size(); ++j)
        if (i != j) {
          EXPECT_EQ(d.bandwidth_gbps[i][j], e.bandwidth) << e.name;
        }
  }
}

// NVLink 2.0 links per GPU pair, read back from the bandwidth matrix (25 GB/s per link).
int linkCount(const DeviceSet& d, int i, int j) {
  double bw = d.bandwidth_gbps[i][j];
  return bw >= 25 ? static_cast<int>(std::lround(bw / 25)) : 0;
}

TEST(DevicePresets, Dgx1HybridCubeMesh) {
  DeviceSet d = devicePreset("8xV100-NVLink");
  ASSERT_EQ(d.size(), 8);
  int doubles = 0, singles = 0, none = 0;
  for (int i = 0; i < 8; ++i) {
    int units = 0, peers = 0;
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      int links = linkCount(d, i, j);
      units += links;
      peers += links > 0;
      if (i < j) (links == 2 ? doubles : links == 1 ? singles : none)++;
    }
    EXPECT_EQ(units, 6) << "GPU" << i << " must use exactly its six NVLinks";
    EXPECT_EQ(peers, 4) << "GPU" << i << " links four peers";
  }
  // 12 cube edges + 4 face diagonals = 16 linked pairs, 24 links in all; 12 pairs without NVLink.
  EXPECT_EQ(doubles, 8);
  EXPECT_EQ(singles, 8);
  EXPECT_EQ(none, 12);

  // Known pairs (nvidia-smi topo -m on a DGX-1V): GPU0 NV1 GPU1/GPU2, NV2 GPU3/GPU4, none GPU5-7.
  EXPECT_EQ(linkCount(d, 0, 1), 1);
  EXPECT_EQ(linkCount(d, 0, 2), 1);
  EXPECT_EQ(linkCount(d, 0, 3), 2);
  EXPECT_EQ(linkCount(d, 0, 4), 2);
  EXPECT_EQ(linkCount(d, 0, 5), 0);
  EXPECT_EQ(linkCount(d, 1, 5), 2);
  EXPECT_EQ(linkCount(d, 2, 6), 1);
  EXPECT_EQ(linkCount(d, 3, 7), 1);
  // Every GPU reaches its counterpart on the other board (i <-> i+4) over NVLink.
  for (int i = 0; i < 4; ++i) EXPECT_GT(linkCount(d, i, i + 4), 0) << i;

  // Double-link pairs are faster than single-link pairs, which beat pairs without NVLink.
  double minDouble = 1e30, maxSingle = 0, minSingle = 1e30, maxNone = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      double bw = d.bandwidth_gbps[i][j];
      switch (linkCount(d, i, j)) {
        case 2:
          minDouble = std::min(minDouble, bw);
          break;
        case 1:
          maxSingle = std::max(maxSingle, bw);
          minSingle = std::min(minSingle, bw);
          break;
        default:
          maxNone = std::max(maxNone, bw);
      }
      if (linkCount(d, i, j) == 0) {
        EXPECT_GT(d.latency_us[i][j], d.latency_us[0][1]);
      }
    }
  EXPECT_EQ(minDouble, 50);
  EXPECT_EQ(maxSingle, 25);
  EXPECT_GT(minDouble, maxSingle);
  EXPECT_GT(minSingle, maxNone);
  EXPECT_GT(maxNone, 0);
}

TEST(DevicePresets, UnknownNameListsKnownOnes) {
  try {
    devicePreset("16xB200");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("16xB200"), std::string::npos) << msg;
    for (const auto& p : devicePresets()) EXPECT_NE(msg.find(p.name), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace doppler

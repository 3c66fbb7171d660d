// Device sets for common machines, with link matrices from vendor figures.
//
// Units follow device_set.h: bandwidth in GB/s (1e9 bytes/s) per direction, latency in
// microseconds, both as full [from][to] matrices. The diagonal is unused (same-device edges cost
// nothing); it holds latency 0 and, as an informative positive bandwidth, the GPU's HBM bandwidth.
//
// Throughput: every preset uses the GPU's dense FP32 (non-tensor-core) peak, the number that
// matches the generators' default 4-byte elements and PyTorch's default FP32 matmul (TF32 off).
// The tensor-core figures are noted beside each one for whoever wants to edit a copy.
//
// Link bandwidths are the vendors' nominal per-direction figures for NVLink; PCIe paths use an
// effective peer-to-peer figure (the nominal PCIe 3.0 x16 rate is 15.75 GB/s per direction, of
// which GPU-to-GPU copies through a host bridge typically reach 10-12 GB/s, and less when staged
// through host memory across sockets). Latencies are typical cudaMemcpyPeer-level figures of the
// kind p2pBandwidthLatencyTest reports (a few microseconds over NVLink/NVSwitch, ~10 us over PCIe
// through a host bridge, more across the CPU interconnect); they are estimates, not vendor specs.
#include "core/graph/device_presets.h"

#include <algorithm>

#include "core/common/input_error.h"

namespace doppler {
namespace {

DeviceSet uniformMachine(const std::string& name, int n, double tflops, double memoryGb,
                         double linkGbps, double latencyUs, double hbmGbps) {
  DeviceSet d;
  d.name = name;
  for (int i = 0; i < n; ++i)
    d.devices.push_back({"gpu" + std::to_string(i), tflops, memoryGb, hbmGbps});
  d.bandwidth_gbps.assign(n, std::vector<double>(n, linkGbps));
  d.latency_us.assign(n, std::vector<double>(n, latencyUs));
  for (int i = 0; i < n; ++i) {
    d.bandwidth_gbps[i][i] = hbmGbps;
    d.latency_us[i][i] = 0;
  }
  return d;
}

// 4 x Tesla P100 PCIe 16 GB: 9.3 TFLOPS FP32 (18.7 FP16), 732 GB/s HBM2, PCIe 3.0 x16 to the host.
// No NVLink: peer copies go over PCIe through the host bridge; we take 10 GB/s effective per
// direction and 10 us latency for every pair (the paper's machine does not state its PCIe tree).
DeviceSet p100Pcie() {
  return uniformMachine("4xP100-PCIe", 4, 9.3, 16, 10.0, 10.0, 732);
}

// DGX-1 with 8 x Tesla V100 SXM2 16 GB: 15.7 TFLOPS FP32 (125 tensor-core FP16), 900 GB/s HBM2.
// Each V100 has six NVLink 2.0 links of 25 GB/s per direction, wired as the hybrid cube-mesh
// (DGX-1 System Architecture whitepaper, Fig. "DGX-1 uses an 8-GPU hybrid cube-mesh"): the cube's
// twelve edges are all NVLink (some doubled) and two faces have their diagonals linked too. The
// link counts below are those `nvidia-smi topo -m` prints on a DGX-1V (NV1 / NV2, e.g. GPU0: NV1
// to GPU1 and GPU2, NV2 to GPU3 and GPU4) and NCCL's topology dump of the same machine; every
// row sums to 6. Pairs without NVLink (0) sit on different CPU sockets: their traffic crosses
// PCIe and QPI through host memory, modelled as 10 GB/s and 15 us.
constexpr int kDgx1Links[8][8] = {
    {0, 1, 1, 2, 2, 0, 0, 0},  // GPU0
    {1, 0, 2, 1, 0, 2, 0, 0},  // GPU1
    {1, 2, 0, 2, 0, 0, 1, 0},  // GPU2
    {2, 1, 2, 0, 0, 0, 0, 1},  // GPU3
    {2, 0, 0, 0, 0, 1, 1, 2},  // GPU4
    {0, 2, 0, 0, 1, 0, 2, 1},  // GPU5
    {0, 0, 1, 0, 1, 2, 0, 2},  // GPU6
    {0, 0, 0, 1, 2, 1, 2, 0},  // GPU7
};
constexpr double kNvlink2Gbps = 25.0;  // per link, per direction
constexpr double kNvlinkLatencyUs = 2.0;
constexpr double kDgx1HostGbps = 10.0;  // no NVLink: PCIe + QPI through host memory
constexpr double kDgx1HostLatencyUs = 15.0;

DeviceSet v100Dgx1() {
  DeviceSet d =
      uniformMachine("8xV100-NVLink", 8, 15.7, 16, kDgx1HostGbps, kDgx1HostLatencyUs, 900);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      if (i == j || kDgx1Links[i][j] == 0) continue;
      d.bandwidth_gbps[i][j] = kNvlink2Gbps * kDgx1Links[i][j];
      d.latency_us[i][j] = kNvlinkLatencyUs;
    }
  return d;
}

// 4 x A100 SXM4 80 GB on NVSwitch (e.g. four GPUs of a DGX A100 / HGX A100 8-GPU board): 19.5
// TFLOPS FP32 (156 TF32 tensor core, 312 FP16), 2,039 GB/s HBM2e. Twelve NVLink 3.0 links per
// GPU, 600 GB/s total = 300 GB/s per direction to any peer through the switches; ~3 us latency.
// (The 4-GPU HGX A100 board without NVSwitch wires four links per pair instead: 100 GB/s.)
DeviceSet a100NvSwitch() {
  return uniformMachine("4xA100-NVSwitch", 4, 19.5, 80, 300, 3.0, 2039);
}

// 8 x H100 SXM5 80 GB on NVSwitch (DGX H100 / HGX H100): 67 TFLOPS FP32 (~495 TF32 and ~989
// FP16/BF16 dense tensor core), 3,350 GB/s HBM3. Eighteen NVLink 4 links per GPU, 900 GB/s total
// = 450 GB/s per direction to any peer through the four NVSwitch chips; ~2 us latency.
DeviceSet h100NvSwitch() {
  return uniformMachine("8xH100-NVSwitch", 8, 67, 80, 450, 2.0, 3350);
}

}  // namespace

const std::vector<DevicePresetInfo>& devicePresets() {
  static const std::vector<DevicePresetInfo> presets = {
      {"4xP100-PCIe",
       "4 x Tesla P100 PCIe 16 GB, 9.3 TFLOPS FP32 each, peer copies over PCIe 3.0 x16 through the "
       "host bridge: 10 GB/s effective per direction, 10 us (the Doppler paper's main machine)",
       "NVIDIA Tesla P100 PCIe datasheet (2016): 9.3 TFLOPS FP32, 16 GB HBM2 at 732 GB/s, PCIe "
       "3.0 x16 (15.75 GB/s per direction nominal); 10 GB/s / 10 us is an effective peer-to-peer "
       "estimate, not a vendor figure"},
      {"8xV100-NVLink",
       "DGX-1 with 8 x Tesla V100 SXM2 16 GB, 15.7 TFLOPS FP32 each, NVLink 2.0 hybrid cube-mesh: "
       "pairs with two links 50 GB/s, one link 25 GB/s (2 us), pairs without NVLink cross "
       "sockets through host memory at 10 GB/s (15 us)",
       "NVIDIA Tesla V100 datasheet (2017): 15.7 TFLOPS FP32, six NVLink 2.0 links of 25 GB/s "
       "per direction; NVIDIA DGX-1 System Architecture whitepaper WP-08437-002 (2017), "
       "hybrid cube-mesh figure; link counts as reported by nvidia-smi topo -m on a DGX-1V"},
      {"4xA100-NVSwitch",
       "4 x A100 SXM4 80 GB, 19.5 TFLOPS FP32 each, NVLink 3.0 through NVSwitch: 300 GB/s per "
       "direction between any pair, 3 us",
       "NVIDIA A100 Tensor Core GPU datasheet (2021): 19.5 TFLOPS FP32 (156 TF32), 80 GB HBM2e at "
       "2,039 GB/s, NVLink 600 GB/s total; NVIDIA DGX A100 System Architecture whitepaper "
       "(2020), six NVSwitches"},
      {"8xH100-NVSwitch",
       "8 x H100 SXM5 80 GB, 67 TFLOPS FP32 each, NVLink 4 through NVSwitch: 450 GB/s per "
       "direction between any pair, 2 us",
       "NVIDIA H100 Tensor Core GPU datasheet (2022): 67 TFLOPS FP32 (495 TF32 dense), 80 GB HBM3 "
       "at 3.35 TB/s, NVLink 900 GB/s total; NVIDIA DGX H100 user guide / H100 architecture "
       "whitepaper (2022), four NVSwitch chips"},
  };
  return presets;
}

DeviceSet devicePreset(const std::string& name) {
  if (name == "4xP100-PCIe") return p100Pcie();
  if (name == "8xV100-NVLink") return v100Dgx1();
  if (name == "4xA100-NVSwitch") return a100NvSwitch();
  if (name == "8xH100-NVSwitch") return h100NvSwitch();
  std::string known;
  for (const auto& p : devicePresets()) known += (known.empty() ? "" : ", ") + p.name;
  throw InputError("", "preset", "unknown device preset '" + name + "' (known: " + known + ")");
}

}  // namespace doppler

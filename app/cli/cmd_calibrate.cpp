// `doppler calibrate`: measure this machine's devices with the executor's LibTorch CPU kernels
// (core/exec/torch_kernels.h, in the LibTorch module) and write the device set that makes the
// simulator's costs match them: each device's matmul throughput (tflops), its elementwise and
// softmax bandwidth (memory_gbps, for the roofline of nodes with memory_bytes), and the copy
// bandwidth and latency between devices (links). CPU cores stand in for GPUs; the measurements
// run every device at once, as a real execution does, so they include whatever else the machine
// is doing.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli_common.h"
#include "core/exec/executor.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "core/train/torch_module.h"
#include "output.h"

namespace doppler::cli {
namespace {

struct CalibrateArgs {
  std::string devices = "local";
  std::string out;
  bool json = false;
  int repeat = 3;
};

struct Rate {
  double work = 0, us = 0;  // FLOPs or bytes, and the time they took
  double perUs() const { return us > 0 ? work / us : 0; }
};

int deviceCount(const std::string& devices) {
  if (devices == "local")
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    size_t used = 0;
    const int n = std::stoi(devices, &used);
    if (used == devices.size() && n >= 1 && n <= 4096) return n;
  } catch (const std::exception&) {
  }
  throw InputError("", "--devices", "must be local or a number of devices (1 to 4096)");
}

// Runs `g` (every node on device `a[v]`) with the torch kernels at size factor 1, `repeat` times;
// returns the median repeat's schedule.
Schedule runKernels(const train::TorchModule& torch, const DataflowGraph& g, const Assignment& a,
                    int devices, int repeat) {
  exec::TorchKernelSpec spec;
  spec.size_factor = 1;
  auto backend = torch.cpuBackend(g, spec);
  exec::ExecOptions opts;
  opts.repeat = repeat;
  opts.timeout = std::chrono::milliseconds(600000);
  try {
    return exec::execute(g, a, devices, *backend, opts).schedule;
  } catch (const exec::ExecError& e) {
    throw InputError("", "calibrate", e.what());
  }
}

// Independent nodes of `op`, each size `copies` times per device, every device busy at once.
// Returns per device the work (FLOPs, or the bytes the kernel reads and writes) and its time.
std::vector<Rate> measureKernels(const train::TorchModule& torch, const std::string& op,
                                 const std::vector<std::pair<double, double>>& sizes, int copies,
                                 bool bytes, int devices, int repeat) {
  DataflowGraph g;
  Assignment a;
  for (int d = 0; d < devices; ++d)
    for (int c = 0; c < copies; ++c)
      for (const auto& [flops, outputBytes] : sizes) {
        Node node;
        node.id = op + "_" + std::to_string(g.nodeCount());
        node.op = op;
        node.flops = flops;
        node.output_bytes = outputBytes;
        g.addNode(node);
        a.push_back(d);
      }
  const Schedule s = runKernels(torch, g, a, devices, repeat);
  std::vector<Rate> rates(devices);
  for (int v = 0; v < g.nodeCount(); ++v) {
    const exec::KernelShape shape = exec::kernelShape(g.node(v), 1);
    rates[a[v]].work += bytes ? shape.memory_bytes : shape.flops;
    rates[a[v]].us += s.nodes[v].finish_us - s.nodes[v].start_us;
  }
  return rates;
}

struct LinkFit {
  double bandwidth_gbps = 0, latency_us = 0;
  std::vector<std::pair<double, double>> points;  // bytes, microseconds (mean per size)
};

// Copies between every ordered pair of devices at a few sizes; time = producer's end to the
// copy's end (what the simulator charges: bytes / bandwidth + latency), fitted by least squares.
LinkFit measureLinks(const train::TorchModule& torch, int devices, int repeat) {
  LinkFit fit;
  if (devices < 2) return fit;
  const std::vector<double> sizes = {4096, 65536, 262144, 1 << 20};
  // One chain, so one copy is in flight at a time: p (on `from`) sends its output to c (on `to`),
  // and c's 64-byte output goes back to the next p (a small copy, measured too).
  DataflowGraph g;
  Assignment a;
  int last = -1;
  for (int from = 0; from < devices; ++from)
    for (int to = 0; to < devices; ++to) {
      if (from == to) continue;
      for (int c = 0; c < 4; ++c)
        for (double bytes : sizes) {
          const int u =
              g.addNode(Node{"p" + std::to_string(g.nodeCount()), "input", 0, bytes, {}, 0});
          const int v = g.addNode(Node{"c" + std::to_string(g.nodeCount()), "input", 0, 64, {}, 0});
          a.push_back(from);
          a.push_back(to);
          g.addEdge(Edge{u, v, bytes, std::nullopt});
          if (last >= 0) g.addEdge(Edge{last, u, 64, std::nullopt});
          last = v;
        }
    }
  const Schedule s = runKernels(torch, g, a, devices, repeat);
  std::map<double, std::pair<double, int>> bySize;
  for (const TransferSpan& t : s.transfers) {
    const Edge& e = g.edge(t.edge);
    const double us = std::max(0.0, t.finish_us - s.nodes[e.src].finish_us);
    bySize[e.bytes].first += us;
    bySize[e.bytes].second += 1;
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [bytes, sum] : bySize) {
    const double us = sum.first / std::max(1, sum.second);
    fit.points.emplace_back(bytes, us);
    sx += bytes;
    sy += us;
    sxx += bytes * bytes;
    sxy += bytes * us;
  }
  const double n = static_cast<double>(fit.points.size());
  const double slope = (n * sxy - sx * sy) / std::max(1e-30, n * sxx - sx * sx);  // us per byte
  const double intercept = (sy - slope * sx) / n;
  // bytes / (GB/s x 1e3) = us; a flat or negative slope (noise) falls back to the largest copy.
  const auto [bigBytes, bigUs] = fit.points.back();
  fit.bandwidth_gbps = slope > 0 ? 1 / (slope * 1e3) : bigBytes / (std::max(bigUs, 1e-3) * 1e3);
  fit.latency_us = std::max(0.0, intercept);
  return fit;
}

void runCalibrate(const CalibrateArgs& args) {
  if (args.repeat < 1) throw InputError("", "--repeat", "must be at least 1");
  const int devices = deviceCount(args.devices);
  const train::TorchModule& torch = train::loadTorchModule();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (devices > cores)
    std::cerr << "doppler calibrate: " << devices << " devices on " << cores
              << " cores: devices share cores, so they measure slower\n";

  // Matmuls: n x k by k x n (2 n^2 k FLOPs, n^2 outputs), the shapes scaled paper graphs have; each
  // device's throughput is its FLOPs over its time.
  std::vector<std::pair<double, double>> matmuls;
  for (const auto& [n, k] :
       {std::pair{64.0, 4096.0}, {128.0, 2048.0}, {256.0, 256.0}, {360.0, 128.0}})
    matmuls.emplace_back(2 * n * n * k, 4 * n * n);
  const std::vector<Rate> flops =
      measureKernels(torch, "matmul", matmuls, 4, false, devices, args.repeat);
  // Memory-bound kernels: adds and softmaxes of 4 K to 256 K elements (the sizes scaled paper
  // graphs have); the bytes they read and
  // write over their time.
  std::vector<std::pair<double, double>> tensors;
  for (double bytes : {16384.0, 65536.0, 262144.0, 1048576.0}) tensors.emplace_back(0, bytes);
  const std::vector<Rate> add =
      measureKernels(torch, "add", tensors, 2, true, devices, args.repeat);
  const std::vector<Rate> softmax =
      measureKernels(torch, "softmax", tensors, 2, true, devices, args.repeat);
  const LinkFit link = measureLinks(torch, devices, args.repeat);

  DeviceSet set = DeviceSet::uniform(devices, Device{"cpu", 1, 16, 1}, 1, 0,
                                     "fitted-" + std::to_string(devices) + "xcpu");
  for (int d = 0; d < devices; ++d) {
    set.devices[d].tflops = std::max(1e-6, flops[d].perUs() / 1e6);  // FLOP/us -> TFLOP/s
    // Matmuls are timed by their own measured rate, FLOPs only: the memory-bound kernels' rate
    // below (dispatch overhead included) would otherwise be charged to a matmul's bytes too and
    // make every large matmul look memory-bound (predicted 2.4x too slow on llama-layer).
    for (const char* op : {"matmul", "gemm"})
      set.devices[d].ops[op] = Device::OpRate{set.devices[d].tflops, std::nullopt};
    const Rate memory{add[d].work + softmax[d].work, add[d].us + softmax[d].us};
    set.devices[d].memory_gbps = std::max(1e-3, memory.perUs() / 1e3);  // B/us -> GB/s
  }
  if (devices >= 2) {
    for (int i = 0; i < devices; ++i)
      for (int j = 0; j < devices; ++j) {
        set.bandwidth_gbps[i][j] = std::max(1e-3, link.bandwidth_gbps);
        set.latency_us[i][j] = i == j ? 0 : link.latency_us;
      }
  }
  set.validate();
  writeOutput(args.out, writeDeviceSetJson(set));

  OutputArgs output;
  output.json = args.json;
  writeResult(
      output,
      [&] {
        nlohmann::json j;
        j["out"] = args.out;
        j["devices"] = devices;
        j["cores"] = cores;
        j["backend"] = "cpu-torch";
        for (int d = 0; d < devices; ++d)
          j["device_rates"].push_back({{"name", set.devices[d].name},
                                       {"tflops", set.devices[d].tflops},
                                       {"memory_gbps", set.devices[d].memory_gbps}});
        j["links"] = {{"bandwidth_gbps", devices >= 2 ? link.bandwidth_gbps : 0},
                      {"latency_us", link.latency_us}};
        for (const auto& [bytes, us] : link.points)
          j["copy_points"].push_back({{"bytes", bytes}, {"us", us}});
        j["note"] =
            "CPU cores stand in for GPUs; every device is measured while all run at once, so the "
            "figures include whatever else the machine is doing";
        return j;
      },
      [&] {
        std::ostringstream s;
        s.precision(4);
        for (int d = 0; d < devices; ++d)
          s << set.devices[d].name << "  " << set.devices[d].tflops * 1e3 << " GFLOP/s matmul, "
            << set.devices[d].memory_gbps << " GB/s elementwise\n";
        if (devices >= 2)
          s << "links  " << link.bandwidth_gbps << " GB/s, " << link.latency_us
            << " us latency (core to core copies)\n";
        s << "wrote  " << args.out << " (CPU cores stand in for GPUs)\n";
        return s.str();
      });
}

}  // namespace

void addCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure local devices with the LibTorch kernels and write a fitted device-set/1 file");
  cmd->add_option("--devices,-d", args->devices, "local (one device per core) or N")
      ->capture_default_str();
  cmd->add_option("--out,-o", args->out, "The device-set/1 file to write")->required();
  cmd->add_flag("--json", args->json, "Print the measurements as JSON");
  cmd->add_option("--repeat,-r", args->repeat, "Runs of each measurement; the median is used")
      ->capture_default_str();
  cmd->callback([args] { runCalibrate(*args); });
}

}  // namespace doppler::cli

// `doppler calibrate`: measure this machine's devices with the executor's LibTorch CPU kernels
// (core/exec/torch_kernels.h, in the LibTorch module) and write the device set that makes the
// simulator's costs match them: per op kind a fixed overhead plus a roofline (FLOP rate and, where
// it binds, memory bandwidth) fitted to the kernels' times, the device-wide rates for other ops,
// and the copy bandwidth and latency between devices (links). The kernels are a sweep of shapes
// like those of scaled paper graphs, plus, with --graph, every kernel of the given graphs at the
// size `doppler exec` gives them. CPU cores stand in for GPUs; the measurements run every device
// at once, as a real execution does, so they include whatever else the machine is doing.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/common/numbered.h"
#include "core/common/random.h"
#include "core/exec/executor.h"
#include "core/exec/torch_kernels.h"
#include "core/graph/graph_io.h"
#include "core/sim/cost_table.h"
#include "core/train/torch_module.h"
#include "interrupt.h"
#include "output.h"

namespace doppler::cli {
namespace {

struct CalibrateArgs {
  std::string devices = "local";
  std::string out;
  bool json = false;
  int repeat = 3;
  std::vector<std::string> graphs;  // --graph: profile these graphs' kernels too
  double targetMs = 100;            // their size factor, as `doppler exec --target-ms` picks it
};

// Kernel runs (FLOPs, the bytes the simulation charges, time) by op name.
using OpSamples = std::map<std::string, std::vector<KernelSample>>;

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

// The LibTorch module's kernels, and the token that stops them (Ctrl-C, SIGTERM).
struct KernelRunner {
  const train::TorchModule& module;
  const CancelToken& cancel;
};

// Runs `g` (every node on device `a[v]`) with the torch kernels at `sizeFactor`, `repeat` times;
// returns the median repeat's schedule.
Schedule runKernels(const KernelRunner& torch, const DataflowGraph& g, const Assignment& a,
                    int devices, int repeat, double sizeFactor = 1) {
  exec::TorchKernelSpec spec;
  spec.size_factor = sizeFactor;
  auto backend = torch.module.cpuBackend(g, spec);
  exec::ExecOptions opts;
  opts.repeat = repeat;
  opts.timeout = std::chrono::milliseconds(600000);
  try {
    return exec::execute(g, a, devices, *backend, opts, torch.cancel).schedule;
  } catch (const exec::ExecError& e) {
    if (torch.cancel.cancelled()) throw;  // runCalibrate says it was interrupted
    throw InputError("", "calibrate", e.what());
  }
}

// Runs `g` at `sizeFactor` and adds each node's time, with the FLOPs and bytes the simulation of
// a torch run charges it (exec::kernelGraph), to its device's samples of its op.
// Returns the schedule.
Schedule profile(const KernelRunner& torch, const DataflowGraph& g, const Assignment& a,
                 double sizeFactor, int devices, int repeat, std::vector<OpSamples>& samples) {
  const Schedule s = runKernels(torch, g, a, devices, repeat, sizeFactor);
  const DataflowGraph charged = exec::kernelGraph(g, sizeFactor);
  for (int v = 0; v < g.nodeCount(); ++v) {
    const Node& node = charged.node(v);
    samples[a[v]][node.op].push_back(
        {node.flops, node.memory_bytes, s.nodes[v].finish_us - s.nodes[v].start_us});
  }
  return s;
}

// The kernels the sweep measures: each runs one LibTorch kernel (torch_exec_backend.cpp), and
// the op names that run the same one get its rates too.
struct Probe {
  const char* op;
  std::vector<const char*> same;
  enum Sizes { Matmul, Attention, Elements } sizes;
};
const std::vector<Probe>& probes() {
  static const std::vector<Probe> list = {
      {"matmul", {"gemm", "mm", "bmm", "linear"}, Probe::Matmul},
      {"attention", {}, Probe::Attention},
      {"add", {"sub", "div", "bias_add", "residual"}, Probe::Elements},
      {"mul", {"rope"}, Probe::Elements},
      {"silu_mul", {}, Probe::Elements},
      {"input", {"concat", "copy", "reshape", "transpose", "identity"}, Probe::Elements},
      {"relu", {}, Probe::Elements},
      {"gelu", {}, Probe::Elements},
      {"silu", {}, Probe::Elements},
      {"sigmoid", {}, Probe::Elements},
      {"tanh", {}, Probe::Elements},
      {"softmax", {}, Probe::Elements},
      {"rmsnorm", {"rms_norm"}, Probe::Elements},
      {"layer_norm", {"layernorm"}, Probe::Elements},
  };
  return list;
}

// Independent nodes of every probe at shapes like those of paper graphs scaled for `doppler
// exec` (1 K to 256 K elements; matmul outputs 48 x 48 to 360 x 360 with K 128 to 4096), each
// `copies` times per device, every device busy at once.
void sweep(const KernelRunner& torch, int devices, int repeat, std::vector<OpSamples>& samples) {
  DataflowGraph g;
  Assignment a;
  auto add = [&](const std::string& op, double flops, double outputBytes) {
    for (int d = 0; d < devices; ++d)
      for (int c = 0; c < 2; ++c) {
        g.addNode(Node{op + "_" + std::to_string(g.nodeCount()), op, flops, outputBytes, {}, 0});
        a.push_back(d);
      }
  };
  for (const Probe& p : probes()) {
    switch (p.sizes) {
      case Probe::Matmul:
        for (double n : {48.0, 96.0, 180.0, 360.0})
          for (double k : {128.0, 1024.0, 4096.0})
            if (2 * n * n * k <= 1.5e8) add(p.op, 2 * n * n * k, 4 * n * n);
        break;
      case Probe::Attention:  // rows x 64 (q, k, v and the output): 4 rows^2 64 FLOPs
        for (double rows : {64.0, 128.0, 256.0, 512.0})
          add(p.op, 4 * rows * rows * 64, 4 * rows * 64);
        break;
      case Probe::Elements:  // 5 FLOPs per element, as the generators count them
        for (double elements : {1024.0, 4096.0, 16384.0, 65536.0, 262144.0})
          add(p.op, 5 * elements, 4 * elements);
        break;
    }
  }
  profile(torch, g, a, 1, devices, repeat, samples);
}

// Each graph's kernels at the size factor `doppler exec` would give it on these devices, every
// device running its own copy of the whole graph at once (its inputs local, so no copies).
void profileGraph(const KernelRunner& torch, const DataflowGraph& g, double sizeFactor, int devices,
                  int repeat, std::vector<OpSamples>& samples) {
  DataflowGraph copies;
  Assignment a;
  for (int d = 0; d < devices; ++d) {
    const int base = copies.nodeCount();
    for (Node node : g.nodes()) {
      node.id = std::to_string(d) + "/" + node.id;
      copies.addNode(node);
      a.push_back(d);
    }
    for (Edge e : g.edges()) {
      e.src += base;
      e.dst += base;
      copies.addEdge(e);
    }
  }
  profile(torch, copies, a, sizeFactor, devices, repeat, samples);
}

// A copy under load: its bytes (as the simulation charges them) and the time from its producer's
// end to its arrival.
struct CopySample {
  double bytes = 0, us = 0;
};

// Each graph once more with its nodes spread over the devices (node v on a fixed pseudo-random
// device, as the random assignments of calibration.sh), so that copies run while the devices
// compute, as in a real run: its kernels join the samples, its copies the copy samples. An idle
// chain of copies (measureLinks) arrives in 15 to 20 us; under load a copy arrived 0.1 to 4 ms
// after its producer ended (the executor's copy thread waits for a core), which the latency
// fitted from these samples carries into the simulation.
void profileSpread(const KernelRunner& torch, const DataflowGraph& g, double sizeFactor,
                   int devices, int repeat, std::vector<OpSamples>& samples,
                   std::vector<CopySample>& copies) {
  if (devices < 2) return;
  Assignment a(g.nodeCount());
  Rng rng(1);  // a fixed seed: the spread only has to cover every device pair
  for (int& d : a) d = rng.below(devices);
  const Schedule s = profile(torch, g, a, sizeFactor, devices, repeat, samples);
  const DataflowGraph charged = exec::kernelGraph(g, sizeFactor);
  for (const TransferSpan& t : s.transfers) {
    const Edge& e = charged.edge(t.edge);
    copies.push_back({e.bytes, std::max(0.0, t.finish_us - s.nodes[e.src].finish_us)});
  }
}

// The rates of one device: matmuls first (their FLOP rate is the device's, and what memory-bound
// kernels are charged for their few FLOPs), then every op with samples.
struct DeviceFit {
  std::map<std::string, RooflineFit> ops;
  RooflineFit matmul;
};

DeviceFit fitDevice(const OpSamples& samples) {
  DeviceFit out;
  const auto kindOf = [](const std::string& op) {
    Node n;
    n.op = op;
    n.flops = 1;
    n.output_bytes = 1;
    return exec::kernelKind(n);
  };
  // Matmuls: every op that runs torch::mm, pooled for the device-wide FLOP rate.
  std::vector<KernelSample> mm;
  for (const auto& [op, list] : samples)
    if (kindOf(op) == exec::KernelKind::Matmul) mm.insert(mm.end(), list.begin(), list.end());
  out.matmul = fitRoofline(mm);
  for (const auto& [op, list] : samples) {
    const exec::KernelKind kind = kindOf(op);
    if (kind == exec::KernelKind::Matmul || kind == exec::KernelKind::Attention)
      out.ops[op] = fitRoofline(list);
    else
      out.ops[op] = fitRoofline(list, out.matmul.rate.tflops);
  }
  return out;
}

struct LinkFit {
  double bandwidth_gbps = 0, latency_us = 0;
  std::vector<std::pair<double, double>> points;  // bytes, microseconds (mean per size)
};

// Copies between every ordered pair of devices at a few sizes; time = producer's end to the
// copy's end (what the simulator charges: bytes / bandwidth + latency), fitted by least squares.
LinkFit measureLinks(const KernelRunner& torch, int devices, int repeat) {
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
          const int u = g.addNode(Node{numbered("p", g.nodeCount()), "input", 0, bytes, {}, 0});
          const int v = g.addNode(Node{numbered("c", g.nodeCount()), "input", 0, 64, {}, 0});
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
  if (!(args.targetMs > 0)) throw InputError("", "--target-ms", "must be positive");
  const int devices = deviceCount(args.devices);
  std::vector<DataflowGraph> graphs;
  for (const std::string& file : args.graphs) {
    GraphArgs ga;
    ga.graph = file;
    graphs.push_back(loadGraph(ga));
    if (!exec::hasTorchOps(graphs.back()))
      throw InputError(file, "--graph",
                       "has no nodes with an op and FLOPs or output bytes: no torch kernels to "
                       "profile");
  }
  // From here Ctrl-C or SIGTERM stops the measurements: a partial calibration would fit rates
  // to some ops and guess the rest, so nothing is written and the --out file stays as it was.
  CancelToken cancel;
  const InterruptGuard guard(cancel);
  const KernelRunner torch{train::loadTorchModule(), cancel};
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (devices > cores)
    std::cerr << "doppler calibrate: " << devices << " devices on " << cores
              << " cores: devices share cores, so they measure slower\n";

  // The sweep gives every known op kind its rates; a graph's own kernels join the sweep's for the
  // ops it has (their shapes are the ones that will run; the sweep's keep a single shape from
  // leaving the overhead and the two roofs undetermined).
  std::vector<OpSamples> samples(devices), profiled(devices);
  LinkFit link;
  std::vector<double> sizeFactors;
  std::vector<CopySample> loadedCopies;
  try {
    sweep(torch, devices, args.repeat, samples);
    for (const DataflowGraph& g : graphs) {
      sizeFactors.push_back(exec::defaultSizeFactor(g, devices, args.targetMs));
      profileGraph(torch, g, sizeFactors.back(), devices, args.repeat, profiled);
      profileSpread(torch, g, sizeFactors.back(), devices, args.repeat, profiled, loadedCopies);
    }
    link = measureLinks(torch, devices, args.repeat);
  } catch (const exec::ExecError&) {
    if (InterruptGuard::received().empty()) throw;
    throw Interrupted("interrupted by " + InterruptGuard::received() +
                      " during the measurements: nothing was written (" + args.out +
                      " is as it was)");
  }
  for (int d = 0; d < devices; ++d)
    for (const auto& [op, list] : profiled[d])
      samples[d][op].insert(samples[d][op].end(), list.begin(), list.end());
  // With graphs: the bandwidth of the idle chain, the latency of the copies under load (their
  // mean time beyond bytes / bandwidth; the mean, since a makespan adds up what it waits).
  std::optional<double> idleLatency;
  if (!loadedCopies.empty() && link.bandwidth_gbps > 0) {
    double extra = 0;
    for (const CopySample& c : loadedCopies) extra += c.us - c.bytes / (link.bandwidth_gbps * 1e3);
    idleLatency = link.latency_us;
    link.latency_us = std::max(0.0, extra / static_cast<double>(loadedCopies.size()));
  }

  DeviceSet set = DeviceSet::uniform(devices, Device{"cpu", 1, 16, 1}, 1, 0,
                                     "fitted-" + std::to_string(devices) + "xcpu");
  std::vector<DeviceFit> fits;
  for (int d = 0; d < devices; ++d) {
    fits.push_back(fitDevice(samples[d]));
    const DeviceFit& fit = fits.back();
    Device& dev = set.devices[d];
    // Device-wide: the matmul FLOP rate, and the copy kernel's bandwidth and overhead for ops
    // the device set does not name.
    dev.tflops = fit.matmul.rate.tflops;
    const Device::OpRate& copy = fit.ops.at("input").rate;
    dev.memory_gbps = copy.memory_gbps.value_or(1e3);
    dev.kernel_overhead_us = copy.overhead_us.value_or(0);
    for (const auto& [op, f] : fit.ops) dev.ops[op] = f.rate;
    for (const Probe& p : probes())
      for (const char* same : p.same)
        if (!profiled[d].count(same)) dev.ops[same] = dev.ops.at(p.op);
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
        for (size_t i = 0; i < args.graphs.size(); ++i)
          j["graphs"].push_back({{"graph", args.graphs[i]}, {"size_factor", sizeFactors[i]}});
        for (int d = 0; d < devices; ++d) {
          nlohmann::json dj = {{"name", set.devices[d].name},
                               {"tflops", set.devices[d].tflops},
                               {"memory_gbps", set.devices[d].memory_gbps},
                               {"kernel_overhead_us", set.devices[d].kernel_overhead_us}};
          for (const auto& [op, f] : fits[d].ops) {
            const Device::OpRate& r = f.rate;
            nlohmann::json oj = {{"tflops", r.tflops},
                                 {"overhead_us", r.overhead_us.value_or(0)},
                                 {"samples", samples[d].at(op).size()},
                                 {"from_graphs", profiled[d].count(op) > 0},
                                 {"mean_error", f.mean_error}};
            if (r.memory_gbps) oj["memory_gbps"] = *r.memory_gbps;
            dj["ops"][op] = oj;
          }
          j["device_rates"].push_back(dj);
        }
        j["links"] = {{"bandwidth_gbps", devices >= 2 ? link.bandwidth_gbps : 0},
                      {"latency_us", link.latency_us}};
        if (idleLatency) {
          j["links"]["idle_latency_us"] = *idleLatency;
          j["links"]["loaded_copies"] = loadedCopies.size();
        }
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
        for (int d = 0; d < devices; ++d) {
          const Device& dev = set.devices[d];
          s << dev.name << "  " << dev.tflops * 1e3 << " GFLOP/s matmul, " << dev.memory_gbps
            << " GB/s and " << dev.kernel_overhead_us << " us per kernel otherwise\n";
          for (const auto& [op, f] : fits[d].ops) {
            const Device::OpRate& r = f.rate;
            s << "  " << op << "  " << r.overhead_us.value_or(0) << " us + ";
            if (r.memory_gbps) s << "max(";
            s << r.tflops * 1e3 << " GFLOP/s";
            if (r.memory_gbps) s << ", " << *r.memory_gbps << " GB/s)";
            s << "  (mean error " << f.mean_error * 100 << "%"
              << (profiled[d].count(op) ? ", the graphs' kernels" : "") << ")\n";
          }
        }
        if (devices >= 2)
          s << "links  " << link.bandwidth_gbps << " GB/s, " << link.latency_us
            << " us latency (core to core copies"
            << (idleLatency ? ", under load; idle: " + std::to_string(*idleLatency) + " us)" : ")")
            << "\n";
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
  cmd->add_option("--graph,-g", args->graphs,
                  "Also profile this graph's kernels, at the size `doppler exec` gives them; its "
                  "ops are fitted to them (repeatable)");
  cmd->add_option("--target-ms", args->targetMs,
                  "The --target-ms of the runs to predict: sizes the --graph kernels")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the measurements as JSON");
  cmd->add_option("--repeat,-r", args->repeat, "Runs of each measurement; the median is used")
      ->capture_default_str();
  cmd->callback([args] { runCalibrate(*args); });
}

}  // namespace doppler::cli

#include "core/train/training_distribution.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/graph/generators.h"
#include "core/sim/fixed_costs.h"

namespace doppler::train {

namespace {

// A generator for one sample: seeded by (seed, index) through SplitMix64, so samples do not
// depend on each other.
std::mt19937_64 sampleRng(uint64_t seed, uint64_t index) {
  return std::mt19937_64(seedFor(seed, index));
}

int uniformInt(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

double logUniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}

template <class T>
T pick(std::mt19937_64& rng, const std::vector<T>& from) {
  return from[static_cast<size_t>(uniformInt(rng, 0, static_cast<int>(from.size()) - 1))];
}

// Rounds to a multiple of `m` (at least m).
double roundTo(double x, double m) {
  return std::max(m, std::round(x / m) * m);
}

// Parameters for a generator kind, kept to graphs of tens to a few hundred nodes.
std::map<std::string, double> generatorParams(const std::string& kind, std::mt19937_64& rng) {
  std::map<std::string, double> p;
  if (kind == "chainmm") {
    p["blocks"] = uniformInt(rng, 2, 4);
    p["n"] = roundTo(logUniform(rng, 2048, 24576), 256);
  } else if (kind == "ffnn") {
    p["layers"] = uniformInt(rng, 2, 6);
    p["shards"] = uniformInt(rng, 2, 4);
    p["batch"] = roundTo(logUniform(rng, 512, 16384), 64);
    p["d_in"] = roundTo(logUniform(rng, 1024, 16384), 256);
    p["hidden"] = roundTo(logUniform(rng, 1024, 16384), 256);
    p["d_out"] = roundTo(logUniform(rng, 256, 4096), 256);
  } else {  // llama-block, llama-layer: head dims of 64 or 128 (even, as RoPE needs)
    const int heads = pick(rng, std::vector<int>{16, 24, 32, 40});
    p["heads"] = heads;
    p["d_model"] = heads * pick(rng, std::vector<int>{64, 128});
    p["seq"] = pick(rng, std::vector<int>{512, 1024, 2048, 4096});
    p["head_shards"] = pick(rng, std::vector<int>{2, 4});
    p["batch"] = uniformInt(rng, 1, 4);
    p["batch_shards"] = uniformInt(rng, 1, static_cast<int>(p["batch"]));
    if (kind == "llama-layer") p["ffn_hidden"] = roundTo(logUniform(rng, 4096, 16384), 256);
  }
  return p;
}

bool areDefaults(const std::string& kind, const std::map<std::string, double>& p) {
  for (const GeneratorInfo& info : generatorKinds()) {
    if (info.kind != kind) continue;
    for (const GeneratorParam& gp : info.params) {
      const auto it = p.find(gp.name);
      if (it != p.end() && it->second != gp.value) return false;
    }
    return true;
  }
  return false;
}

DeviceSet sampleDevices(std::mt19937_64& rng, int n, bool mixed) {
  // A V100-like default, scaled: throughputs and bandwidths as the presets span them.
  Device proto{"gpu", logUniform(rng, 8, 120), 32};
  proto.memory_gbps = logUniform(rng, 700, 3000);
  // Links from PCIe peer copies through the host (8 GB/s) to NVSwitch (300 GB/s).
  const double link = logUniform(rng, 8, 300), latency = logUniform(rng, 2, 12);
  DeviceSet d = DeviceSet::uniform(n, proto, link, latency);
  if (mixed) {
    // Half of the devices a generation apart (0.3x to 0.8x), and some links PCIe-slow.
    for (int i = 0; i < n; ++i) {
      d.devices[i].name = "gpu" + std::to_string(i);
      if (i % 2 == 1) {
        const double f = std::uniform_real_distribution<double>(0.3, 0.8)(rng);
        d.devices[i].tflops *= f;
        d.devices[i].memory_gbps *= f;
      }
    }
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.3) {
          d.bandwidth_gbps[i][j] = d.bandwidth_gbps[j][i] = std::min(link, 16.0);
          d.latency_us[i][j] = d.latency_us[j][i] = latency * 2;
        }
  }
  d.name = std::to_string(n) + (mixed ? " mixed" : " identical") + " devices";
  return d;
}

// Rewrites g's costs as the paper's text files give them (TrainingDistribution::fixed_costs):
// each node's compute time on d's first device, on every device; every edge `ratio` times its
// producer's; and d made identical devices (the files carry one time per node).
void fixCosts(DataflowGraph& g, DeviceSet& d, double ratio) {
  g = withFixedCosts(g, d, ratio);
  const Device first = d.devices.front();
  for (Device& dev : d.devices) {
    const std::string name = dev.name;
    dev = first;
    dev.name = name;
  }
  d.name = std::to_string(d.devices.size()) + " identical devices";
}

}  // namespace

namespace {

// The settings every sample needs; cheap, so each sample checks them.
void checkSettings(const TrainingDistribution& d) {
  if (d.sourceCount() == 0)
    throw InputError("", "kinds", "the training distribution needs a kind or a graph");
  for (const std::string& k : d.kinds) {
    bool known = k == "layered";
    for (const GeneratorInfo& info : generatorKinds()) known = known || info.kind == k;
    if (!known)
      throw InputError(
          "", "kinds",
          "unknown kind '" + k + "' (known: chainmm, ffnn, llama-block, llama-layer, layered)");
  }
  if (d.min_devices < 1 || d.max_devices < d.min_devices || d.max_devices > 64)
    throw InputError("", "devices",
                     "needs 1 <= min_devices <= max_devices <= 64, got " +
                         std::to_string(d.min_devices) + " to " + std::to_string(d.max_devices));
  if (!(d.mixed >= 0 && d.mixed <= 1)) throw InputError("", "mixed", "must be between 0 and 1");
  if (!(d.fixed_costs >= 0 && d.fixed_costs <= 1))
    throw InputError("", "--fixed-costs", "the share must be between 0 and 1");
}

void checkGraph(const TrainingGraph& t) {
  const DataflowGraph& g = t.graph;
  if (g.nodeCount() == 0) throw InputError(t.name, "nodes", "the graph has no nodes");
  for (int v = 0; v < g.nodeCount(); ++v)
    if (g.node(v).compute_us.size() > 1)
      throw InputError(t.name, "nodes[" + std::to_string(v) + "] '" + g.node(v).id + "'.compute_us",
                       "has per-device compute times, which belong to one device set; general "
                       "training draws its own device sets (give one time, or flops)");
}

// The first draw of a sample: its source, uniform over kinds and graphs. With no graphs this is
// the draw sampleTraining always made (pick among the kinds), so samples of the generators alone
// stay what they were.
size_t drawSource(std::mt19937_64& rng, const TrainingDistribution& d) {
  return static_cast<size_t>(uniformInt(rng, 0, static_cast<int>(d.sourceCount()) - 1));
}

}  // namespace

void TrainingDistribution::validate() const {
  checkSettings(*this);
  for (const TrainingGraph& t : graphs) checkGraph(t);
}

DataflowGraph randomLayeredDag(uint64_t seed, int layers, int width) {
  std::mt19937_64 rng = sampleRng(seed, 0x1a7e5ULL);
  DataflowGraph g;
  g.name = "layered-" + std::to_string(seed);
  std::vector<std::vector<int>> layer(static_cast<size_t>(std::max(1, layers)));
  auto link = [&g](int u, int v) {  // an edge carries its producer's whole output
    Edge e;
    e.src = u;
    e.dst = v;
    e.bytes = g.node(u).output_bytes;
    g.addEdge(e);
  };
  for (int l = 0; l < static_cast<int>(layer.size()); ++l) {
    const int n = l == 0 ? uniformInt(rng, 1, std::max(1, width / 2)) : uniformInt(rng, 1, width);
    for (int i = 0; i < n; ++i) {
      Node node;
      node.id = 'L' + std::to_string(l);  // "L3_1" (appended: g++ 12 warns on "L" + ...)
      node.id += '_';
      node.id += std::to_string(i);
      node.op = l == 0 ? "input" : "matmul";
      node.flops = l == 0 ? 0 : logUniform(rng, 1e9, 1e12);
      node.output_bytes = logUniform(rng, 1e5, 1e8);
      const int v = g.addNode(node);
      layer[l].push_back(v);
      if (l == 0) continue;
      const auto& prev = layer[l - 1];
      const int inputs = std::min<int>(uniformInt(rng, 1, 3), static_cast<int>(prev.size()));
      std::vector<int> from = prev;
      std::shuffle(from.begin(), from.end(), rng);
      for (int k = 0; k < inputs; ++k) link(from[k], v);
      if (l >= 2 && std::uniform_real_distribution<double>(0, 1)(rng) < 0.2) {
        const auto& earlier = layer[static_cast<size_t>(uniformInt(rng, 0, l - 2))];
        const int u = pick(rng, earlier);
        link(u, v);
      }
    }
  }
  return g;
}

size_t sampleSource(const TrainingDistribution& d, uint64_t index) {
  checkSettings(d);
  std::mt19937_64 rng = sampleRng(d.seed, index);
  return drawSource(rng, d);
}

TrainingSample sampleTraining(const TrainingDistribution& d, uint64_t index) {
  checkSettings(d);
  std::mt19937_64 rng = sampleRng(d.seed, index);
  const size_t source = drawSource(rng, d);
  TrainingSample s;
  std::ostringstream what;
  if (source >= d.kinds.size()) {
    const TrainingGraph& given = d.graphs[source - d.kinds.size()];
    checkGraph(given);
    s.graph = given.graph;
    what << "graph " << given.name;
  } else if (const std::string& kind = d.kinds[source]; kind == "layered") {
    const int layers = uniformInt(rng, 4, 12), width = uniformInt(rng, 2, 10);
    s.graph = randomLayeredDag(rng(), layers, width);
    what << "layered layers=" << layers << " width=" << width;
  } else {
    std::map<std::string, double> params = generatorParams(kind, rng);
    // The defaults are the evaluation graphs: never train on them.
    while (areDefaults(kind, params)) params = generatorParams(kind, rng);
    s.graph = generateGraph(kind, params);
    what << kind;
    for (const auto& [name, value] : params) what << ' ' << name << '=' << value;
  }
  const int n = uniformInt(rng, d.min_devices, d.max_devices);
  const bool mixed = std::uniform_real_distribution<double>(0, 1)(rng) < d.mixed;
  s.devices = sampleDevices(rng, n, mixed);
  // Drawn last, and only when asked for, so that without it every sample is what it was.
  double ratio = 0;
  if (d.fixed_costs > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < d.fixed_costs) {
    ratio = logUniform(rng, 1, 16);
    fixCosts(s.graph, s.devices, ratio);  // renames the devices: identical now
  }
  what << " on " << s.devices.name;
  if (ratio > 0)
    what << ", fixed costs (edges " << std::round(ratio * 100) / 100 << "x their producer)";
  s.description = what.str();
  s.graph.name = s.description;
  return s;
}

}  // namespace doppler::train

#pragma once
// The training distribution of a general placement policy (one policy for any graph on any device
// set): graphs that no evaluation uses, on device sets of 2 to 8 devices, identical or mixed.
//   - The four generators with randomised parameters, drawn around the paper's sizes but never at
//     their defaults (the defaults are the evaluation graphs).
//   - Random layered DAGs (matmul-like nodes, skip connections).
//   - Given graphs (`train --general --graphs FILE|DIR`, read by the CLI): each sampled as it is,
//     on a sampled device set like the generated ones.
//   - Device sets: identical devices, or devices whose throughput, memory bandwidth and links vary
//     (a slow PCIe pair beside NVLink ones, a slower GPU generation).
//   - Optionally (fixed_costs), samples in the cost convention of the Doppler paper's text files:
//     fixed compute times on identical devices, each cross-device edge a fixed multiple of its
//     producer's compute time, whatever the links.
// A sample depends only on the seed and its index, so data-parallel workers can split the indices
// among themselves and still see exactly the samples one process would. Plain C++, no LibTorch.
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"

namespace doppler::train {

// A graph given as it is, with the name samples are described by (the CLI gives its file).
struct TrainingGraph {
  std::string name;
  DataflowGraph graph;
};

struct TrainingDistribution {
  // "chainmm", "ffnn", "llama-block", "llama-layer" (randomised generators) and "layered".
  std::vector<std::string> kinds = {"chainmm", "ffnn", "llama-block", "llama-layer", "layered"};
  int min_devices = 2, max_devices = 8;
  double mixed = 0.5;  // the share of device sets whose devices differ
  uint64_t seed = 1;
  // Given graphs. A sample picks uniformly among the kinds and these (a kind weighs as much as one
  // graph). Reading files is the caller's business: the distribution holds graphs, not formats.
  std::vector<TrainingGraph> graphs = {};
  // The share of samples given fixed costs, as the paper's Doppler text files give them: each
  // node's compute time on the sampled device set's first device, on every device, and each edge
  // `ratio` times its producer's compute time, the ratio log-uniform in [1, 16] per sample (the
  // paper's files use 4). Edge costs there do not depend on the links at all, which bandwidth
  // draws never give. 0 (the default) draws nothing, so samples stay as they were without it.
  double fixed_costs = 0;

  // The number of sources a sample picks among: kinds, then graphs.
  size_t sourceCount() const { return kinds.size() + graphs.size(); }
  // Throws InputError naming the field, or the graph's name for a graph that cannot be trained
  // on: no nodes, or per-device compute times (they belong to one device set; samples draw
  // theirs).
  void validate() const;
};

struct TrainingSample {
  DataflowGraph graph;
  DeviceSet devices;
  std::string description;  // "ffnn layers=3 shards=2 ... on 5 mixed devices"
};

// Sample `index` of the distribution (deterministic in seed and index). A given graph's sample is
// described as "graph NAME on 5 mixed devices".
TrainingSample sampleTraining(const TrainingDistribution& d, uint64_t index);

// Which source sample `index` draws, without building it: i < kinds.size() is kinds[i], else
// graphs[i - kinds.size()]. The first draw sampleTraining makes, so the two always agree.
size_t sampleSource(const TrainingDistribution& d, uint64_t index);

// A layered DAG: `layers` layers of up to `width` nodes, each node reading one to three nodes of
// the layer before (and, with probability 1/5, one of an earlier layer); FLOPs and bytes
// log-uniform over three decades. Deterministic in `seed`.
DataflowGraph randomLayeredDag(uint64_t seed, int layers, int width);

}  // namespace doppler::train

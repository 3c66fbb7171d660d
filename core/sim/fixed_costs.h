#pragma once
// The cost convention of the Doppler paper's text files, for any graph: fixed compute times (the
// same on every device) and each edge a fixed multiple of its producer's compute time, whatever
// the links. Training samples use it (`train --general --fixed-costs`), and so does
// `doppler graph generate --fixed-costs`, which makes graphs for evaluating in that convention.
#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"

namespace doppler {

// `g` with each node's compute time on `d`'s first device as its only compute time, and every
// edge `ratio` times its producer's compute time (the paper's files use 4). Names, FLOPs, bytes
// and memory are kept. Throws InputError (field --fixed-costs) unless ratio is finite and > 0.
DataflowGraph withFixedCosts(const DataflowGraph& g, const DeviceSet& d, double ratio);

}  // namespace doppler

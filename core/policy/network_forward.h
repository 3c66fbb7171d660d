#pragma once
// The dual policy's forward pass in plain C++ over BLAS (no LibTorch): what placing with a policy
// needs. It computes what prepare() in policy_network.cpp computes with LibTorch (the same
// layers, in the same order of operations), so the two agree to float rounding; training keeps
// LibTorch's, which it differentiates. A process that only places (the CLI, the studio) runs this
// one and never loads LibTorch.
#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/network_weights.h"

namespace doppler::policy {

// The network's outputs for one graph and device set (empty for a graph without nodes).
// std::invalid_argument when the features do not fit the weights' architecture.
PolicyScores networkScores(const NetworkWeights& weights, const GraphFeatures& features);

// OpenBLAS's threads for the forward pass's products (0 leaves them as they are; a BLAS other
// than OpenBLAS is left alone).
void setBlasThreads(int threads);

// For a process that loads a policy to place graphs (the CLI, the studio, the placement
// benchmark; not training): glibc serves blocks of a placement's size from the heap and keeps
// freed heap, so later placements reuse pages already touched (network_forward.cpp says why).
// Once per process; call it before the first placement.
void keepPlacementMemory();

}  // namespace doppler::policy

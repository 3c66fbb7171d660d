#pragma once
// The dual policy's weights as plain floats (no LibTorch), and the file that carries them. Placing
// needs only the network's forward pass (network_forward.h); with the weights in this form a
// process places with a policy without loading LibTorch, which costs about 0.65 s of a `doppler
// place --method doppler` that otherwise takes 0.03 s. Training keeps LibTorch checkpoints
// (policy.h); `doppler policy export` writes this file from one.
//
// The file (`doppler-policy-weights/1`, docs/formats.md): the line "doppler-policy-weights/1",
// one line of JSON ({"architecture": ..., "meta": ..., "tensors": [{"name", "shape"}, ...]}), then
// every tensor's float32 values, little-endian, row-major, in the order listed.
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/policy/policy_config.h"

namespace doppler::policy {

// A fully connected layer: y = x W^T + b, W out x in (row-major), b empty when it has none.
struct DenseLayer {
  int out = 0, in = 0;
  std::vector<float> w, b;
};

struct NetworkWeights {
  PolicyConfig config;
  nlohmann::json meta = nlohmann::json::object();  // what the checkpoint's trainer stored
  // The layers of NetImpl (policy_impl.h), same names and shapes. The GRU cell's input and
  // hidden layers hold its three gates in LibTorch's order: reset, update, new.
  DenseLayer in_proj, edge1, edge2, msg, gru_ih, gru_hh, sel_z, sel1, sel2, plc_y, plc_z, plc1,
      plc2;

  // Every layer sized for `config`, all values zero.
  explicit NetworkWeights(const PolicyConfig& config = {});
  // (LibTorch parameter name, values, shape) of every parameter, in LibTorch's registration
  // order: "in_proj.weight", "in_proj.bias", ..., "gru.weight_ih", ..., "plc2.weight".
  struct Named {
    std::string name;
    std::vector<float>* values;
    std::vector<int64_t> shape;
  };
  std::vector<Named> named();
  int64_t parameterCount() const;
};

// The number of parameters of an architecture (without allocating them).
int64_t parameterCount(const PolicyConfig& config);

// Weights from a policy's named parameters (Policy::parameters()); InputError naming `source`
// when one is missing, unknown or of the wrong size.
NetworkWeights weightsFromParameters(
    const PolicyConfig& config, const std::vector<std::pair<std::string, std::vector<float>>>& p,
    const nlohmann::json& meta, const std::string& source);

constexpr const char* kWeightsFormat = "doppler-policy-weights/1";
constexpr std::string_view kWeightsFamily = "doppler-policy-weights/";  // every version's prefix

// Written to a temporary sibling and renamed; InputError naming the file when it cannot be.
void writeWeightsFile(const std::string& path, const NetworkWeights& weights);
// InputError naming the file and the field (or byte offset) when it is not such a file or is
// damaged: a wrong format line, bad JSON, an architecture PolicyConfig refuses, tensors missing,
// unknown, repeated or of the wrong shape, too few or too many bytes, values that are not finite.
NetworkWeights readWeightsFile(const std::string& path);
// The same from a stream (`source` names it in errors): what readWeightsFile and the fuzz target
// (tests/fuzz/fuzz_policy_weights.cpp) run.
NetworkWeights parseWeights(std::istream& in, const std::string& source);
// Whether the file begins with a format line of this family, any version (false when it cannot
// be read).
bool isWeightsFile(const std::string& path);

}  // namespace doppler::policy

#pragma once
// Per-node costs of an ONNX op from its shapes (the importer's half that knows the ops). Internal
// to core/graph; plain C++ so it can be tested without building protobufs by hand.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace doppler::onnx_import {

struct Tensor {
  std::vector<int64_t> dims;  // fully known (the importer refuses unknown ones first)
  double element_bytes = 4;
  double elements() const {
    double n = 1;
    for (int64_t d : dims) n *= static_cast<double>(d);
    return n;
  }
  double bytes() const { return elements() * element_bytes; }
};

// What the cost rules need of a node: its op, integer and float attributes, its input and output
// tensors (a missing optional input is nullptr).
struct OpView {
  std::string op;
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, double> floats;
  std::vector<const Tensor*> inputs;
  std::vector<const Tensor*> outputs;
};

enum class CostRule { Formula, BytesOnly, OutputBytes };

struct OpCost {
  double flops = 0;
  double memory_bytes = 0;  // read + written, for the roofline (core/sim/cost_table)
  CostRule rule = CostRule::Formula;
};

// Formulas, counted per output element unless said (docs/onnx.md lists them):
//   MatMul 2·K per output element; Gemm 2·K, plus 1 for C and 1 for each alpha/beta != 1;
//   Conv 2·(C_in/group)·prod(kernel), plus 1 with a bias; ConvTranspose 2·(C_out/group)·prod(k)
//   per input element; elementwise 1 (variadic Sum/Max/Min: inputs - 1; Mean: inputs);
//   Softmax and LogSoftmax 5; LayerNormalization 5 plus 1 per affine input (scale, bias);
//   BatchNormalization 4; InstanceNormalization 7; reductions 1 per input element (means and
//   global average pooling add 1 per output element); MaxPool/AveragePool prod(kernel).
// Reshape, Transpose, Squeeze, Unsqueeze, Shape, Gather, Slice and the other data-movement ops
// move bytes only (flops 0). Any other op is costed by its output bytes (read and written).
OpCost opCost(const OpView& v);

}  // namespace doppler::onnx_import

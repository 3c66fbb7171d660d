#pragma once
// ONNX import: a model file (ModelProto) becomes a dataflow graph. Shapes come from the file and
// from ONNX shape inference, with dynamic dimensions bound by name (--dim batch=8); each node's
// FLOPs and bytes come from its shapes and data types. Initializers (weights) become "input"
// nodes, as in the generators. Weights stored in side files (external data) are never read: only
// their shapes count. ONNX headers stay in onnx_*.cpp; this header is plain C++.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler {

struct OnnxImportOptions {
  std::map<std::string, int64_t> dims;  // dynamic dimension name -> value
  int dtype_bytes = 0;                  // > 0: every element is this many bytes, whatever its type
  std::size_t max_bytes = std::size_t(2) << 30;  // protobuf's own limit is 2 GiB
};

struct OnnxImportReport {
  int64_t ir_version = 0;
  int64_t opset = 0;  // of the default ("ai.onnx") domain
  std::string producer;
  int op_nodes = 0, weight_nodes = 0, input_nodes = 0;
  int folded_nodes = 0;        // shape arithmetic folded away once the dimensions are bound
  bool external_data = false;  // some weights live in side files (not read)
  // Ops without a FLOP formula, costed from their output bytes: op type -> count.
  std::map<std::string, int> costed_by_output_bytes;
  // One line for the CLI and the studio: "costed by output bytes: Foo x3, Bar x1", or empty.
  std::string fallbackLine() const;
};

// A dynamic dimension the model leaves open, with one tensor that has it (for a prompt).
struct OnnxDynamicDim {
  std::string name;
  std::string tensor;
};

// Each throws InputError with the file, the node or tensor, and the problem: a truncated or
// malformed protobuf, an unsupported opset, a cycle, an input no node or initializer produces, a
// dimension still unknown after binding and inference (naming the tensor and the dimension).
DataflowGraph importOnnx(std::string_view bytes, const OnnxImportOptions& opts = {},
                         const std::string& file = {}, OnnxImportReport* report = nullptr);
DataflowGraph importOnnxFile(const std::string& path, const OnnxImportOptions& opts = {},
                             OnnxImportReport* report = nullptr);
// The dynamic dimensions of a model's graph inputs, each once, in order of appearance.
std::vector<OnnxDynamicDim> onnxDynamicDims(const std::string& path);

// True when a file should be read as ONNX: its name ends in ".onnx", or its content starts like a
// ModelProto (field 1, ir_version, as a varint) and is not text.
bool looksLikeOnnx(const std::string& path, std::string_view head);

}  // namespace doppler

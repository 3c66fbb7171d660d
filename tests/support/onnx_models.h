#pragma once
// ONNX models built with the ONNX C++ API, for the import tests, the import benchmark and
// make_onnx_model: no downloads, every shape known to the test that counts its FLOPs by hand.
// Names follow PyTorch's exporter ("/h.3/attn/MatMul" for nodes, "h.3.attn.q.weight" for
// weights), so coarsening by name scope sees what it sees on real exports.
#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace doppler::testmodels {

// A tensor dimension: a number, or a named dynamic one ("batch").
struct Dim {
  Dim(int64_t v) : value(v) {}            // NOLINT: a plain number is a fixed dimension
  Dim(const char* name) : param(name) {}  // NOLINT
  int64_t value = -1;
  std::string param;
};

// A small builder over onnx::ModelProto. Weights get zero data (raw_data) unless `external`, where
// they point into a side file that is never written (the importer must not read it).
class OnnxBuilder {
 public:
  explicit OnnxBuilder(const std::string& name, int64_t opset = 17);
  ~OnnxBuilder();
  OnnxBuilder(const OnnxBuilder&) = delete;
  OnnxBuilder& operator=(const OnnxBuilder&) = delete;

  void setExternalWeights(bool external) { external_ = external; }
  // elem_type is onnx::TensorProto_DataType (1 = FLOAT, 7 = INT64, 10 = FLOAT16).
  std::string input(const std::string& name, const std::vector<Dim>& dims, int elem_type = 1);
  std::string weight(const std::string& name, const std::vector<int64_t>& dims, int elem_type = 1);
  // An int64 initializer with data (Reshape's shape, axes): always stored inline.
  std::string ints(const std::string& name, const std::vector<int64_t>& values);
  // A float initializer with data (Resize's scales): always stored inline.
  std::string floats(const std::string& name, const std::vector<float>& values);
  // Adds a node with one output named after the node; returns the output's name.
  std::string node(const std::string& op, const std::string& name,
                   const std::vector<std::string>& inputs);
  // The node just added, for attributes.
  onnx::NodeProto& last();
  void attr(const std::string& name, int64_t value);
  void attr(const std::string& name, float value);
  void attr(const std::string& name, const std::vector<int64_t>& values);
  void output(const std::string& tensor, const std::vector<Dim>& dims);

  onnx::ModelProto& model() { return *model_; }
  std::string serialize() const;

 private:
  // A 1-D initializer with inline data, its values still to add.
  onnx::TensorProto* constant(const std::string& name, int elem_type, size_t count);

  onnx::ModelProto* model_;
  bool external_ = false;
  int64_t externalOffset_ = 0;
};

// x[batch, widths[0]] -> (Gemm with bias, Relu) per layer, no Relu after the last -> Softmax.
std::string mlpModel(int64_t batch, const std::vector<int64_t>& widths);

// x[N,3,32,32] -> Conv(8, 3x3, pad 1, bias) -> Relu -> MaxPool(2x2, stride 2)
//   -> Conv(16, 3x3, pad 1, bias) -> Relu -> GlobalAveragePool -> Flatten -> Gemm(10, bias).
std::string convNetModel(int64_t batch);

// GPT-2-style decoder blocks: LayerNormalization, Q/K/V projections (MatMul + Add), heads split
// by Reshape + Transpose, scores MatMul, Div by sqrt(head dim), Softmax, context MatMul, merge
// heads, output projection, residual Add; LayerNormalization, MLP up (4 x d_model) with GELU as
// PyTorch exports it below opset 20 (Div, Erf, Add, Mul, Mul), MLP down, residual Add.
struct TransformerSpec {
  int layers = 1;
  int64_t batch = 2, seq = 16, d_model = 64, heads = 4;
  bool dynamic = false;  // batch and seq as dynamic dimensions "batch" and "seq"
  bool external_weights = false;
};
std::string transformerModel(const TransformerSpec& spec);
// Nodes the importer makes for one decoder block: ops, and weight inputs.
inline constexpr int kTransformerOpsPerLayer = 33;
inline constexpr int kTransformerWeightsPerLayer = 16;

}  // namespace doppler::testmodels

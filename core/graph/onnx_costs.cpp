#include "core/graph/onnx_costs.h"

#include <algorithm>
#include <optional>
#include <set>

namespace doppler::onnx_import {
namespace {

const std::set<std::string>& elementwiseOps() {
  static const std::set<std::string> ops = {"Add",
                                            "Sub",
                                            "Mul",
                                            "Div",
                                            "Pow",
                                            "Sqrt",
                                            "Reciprocal",
                                            "Relu",
                                            "LeakyRelu",
                                            "PRelu",
                                            "Elu",
                                            "Selu",
                                            "Celu",
                                            "Sigmoid",
                                            "HardSigmoid",
                                            "HardSwish",
                                            "Tanh",
                                            "Erf",
                                            "Exp",
                                            "Log",
                                            "Neg",
                                            "Abs",
                                            "Ceil",
                                            "Floor",
                                            "Round",
                                            "Sign",
                                            "Clip",
                                            "Where",
                                            "Equal",
                                            "Less",
                                            "LessOrEqual",
                                            "Greater",
                                            "GreaterOrEqual",
                                            "Not",
                                            "And",
                                            "Or",
                                            "Xor",
                                            "Mod",
                                            "Sin",
                                            "Cos",
                                            "Tan",
                                            "Asin",
                                            "Acos",
                                            "Atan",
                                            "Sinh",
                                            "Cosh",
                                            "Asinh",
                                            "Acosh",
                                            "Atanh",
                                            "Softplus",
                                            "Softsign",
                                            "Mish",
                                            "Gelu",
                                            "Cast",
                                            "CastLike",
                                            "IsNaN",
                                            "IsInf",
                                            "BitShift",
                                            "ThresholdedRelu",
                                            "Shrink",
                                            "QuickGelu",
                                            "BitwiseAnd",
                                            "BitwiseOr",
                                            "BitwiseXor",
                                            "BitwiseNot"};
  return ops;
}

const std::set<std::string>& bytesOnlyOps() {
  static const std::set<std::string> ops = {"Reshape",
                                            "Transpose",
                                            "Squeeze",
                                            "Unsqueeze",
                                            "Shape",
                                            "Gather",
                                            "Slice",
                                            "Flatten",
                                            "Concat",
                                            "Split",
                                            "Identity",
                                            "Expand",
                                            "Tile",
                                            "Pad",
                                            "Size",
                                            "GatherElements",
                                            "GatherND",
                                            "ScatterND",
                                            "ScatterElements",
                                            "DepthToSpace",
                                            "SpaceToDepth",
                                            "Dropout",
                                            "Constant",
                                            "ConstantOfShape",
                                            "Range",
                                            "Trilu",
                                            "ReverseSequence",
                                            "Compress",
                                            "OneHot",
                                            "NonZero"};
  return ops;
}

const std::set<std::string>& reductionOps() {
  static const std::set<std::string> ops = {
      "ReduceSum", "ReduceMean", "ReduceMax",         "ReduceMin",       "ReduceProd",
      "ReduceL1",  "ReduceL2",   "ReduceLogSum",      "ReduceLogSumExp", "ReduceSumSquare",
      "ArgMax",    "ArgMin",     "GlobalAveragePool", "GlobalMaxPool",   "GlobalLpPool"};
  return ops;
}

double outElements(const OpView& v) {
  double n = 0;
  for (const Tensor* t : v.outputs)
    if (t) n += t->elements();
  return n;
}

double ioBytes(const OpView& v) {
  double b = 0;
  for (const Tensor* t : v.inputs)
    if (t) b += t->bytes();
  for (const Tensor* t : v.outputs)
    if (t) b += t->bytes();
  return b;
}

const Tensor* input(const OpView& v, size_t i) {
  return i < v.inputs.size() ? v.inputs[i] : nullptr;
}

int64_t intAttr(const OpView& v, const std::string& name, int64_t fallback) {
  auto it = v.ints.find(name);
  return it == v.ints.end() || it->second.empty() ? fallback : it->second.front();
}

double floatAttr(const OpView& v, const std::string& name, double fallback) {
  auto it = v.floats.find(name);
  return it == v.floats.end() ? fallback : it->second;
}

double product(const std::vector<int64_t>& xs, size_t from = 0) {
  double p = 1;
  for (size_t i = from; i < xs.size(); ++i) p *= static_cast<double>(xs[i]);
  return p;
}

// The kernel's spatial size: the attribute when given, else the weight's trailing dimensions.
double kernelSize(const OpView& v, const Tensor* w) {
  auto it = v.ints.find("kernel_shape");
  if (it != v.ints.end() && !it->second.empty()) return product(it->second);
  return w && w->dims.size() > 2 ? product(w->dims, 2) : 1;
}

std::optional<double> formulaFlops(const OpView& v) {
  const double out = outElements(v);
  const std::string& op = v.op;
  if (op == "MatMul" || op == "MatMulInteger") {
    const Tensor* a = input(v, 0);
    if (!a || a->dims.empty()) return std::nullopt;
    return 2.0 * out * static_cast<double>(a->dims.back());
  }
  if (op == "Gemm") {
    const Tensor* a = input(v, 0);
    if (!a || a->dims.size() != 2) return std::nullopt;
    const double k = static_cast<double>(intAttr(v, "transA", 0) ? a->dims[0] : a->dims[1]);
    double f = 2.0 * out * k;
    if (floatAttr(v, "alpha", 1.0) != 1.0) f += out;
    if (input(v, 2)) f += out * (floatAttr(v, "beta", 1.0) != 1.0 ? 2 : 1);
    return f;
  }
  if (op == "Conv") {
    const Tensor* w = input(v, 1);
    if (!w || w->dims.size() < 2) return std::nullopt;
    double f = 2.0 * out * static_cast<double>(w->dims[1]) * kernelSize(v, w);
    if (input(v, 2)) f += out;
    return f;
  }
  if (op == "ConvTranspose") {
    const Tensor* x = input(v, 0);
    const Tensor* w = input(v, 1);
    if (!x || !w || w->dims.size() < 2) return std::nullopt;
    double f = 2.0 * x->elements() * static_cast<double>(w->dims[1]) * kernelSize(v, w);
    if (input(v, 2)) f += out;
    return f;
  }
  if (op == "Sum" || op == "Max" || op == "Min" || op == "Mean") {
    int n = 0;
    for (const Tensor* t : v.inputs) n += t != nullptr;
    return out * std::max(0, n - 1) + (op == "Mean" ? out : 0);
  }
  if (elementwiseOps().count(op)) return out;
  if (op == "Softmax" || op == "LogSoftmax") return 5.0 * out;
  if (op == "LayerNormalization") {
    const double affine = (input(v, 1) ? 1 : 0) + (input(v, 2) ? 1 : 0);
    const Tensor* y = v.outputs.empty() ? nullptr : v.outputs[0];
    return (5.0 + affine) * (y ? y->elements() : out);
  }
  if (op == "BatchNormalization")
    return 4.0 * (v.outputs.empty() || !v.outputs[0] ? out : v.outputs[0]->elements());
  if (op == "InstanceNormalization" || op == "GroupNormalization") return 7.0 * out;
  if (reductionOps().count(op)) {
    const Tensor* x = input(v, 0);
    if (!x) return std::nullopt;
    const bool mean = op == "ReduceMean" || op == "GlobalAveragePool";
    return x->elements() + (mean ? out : 0);
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    auto it = v.ints.find("kernel_shape");
    if (it == v.ints.end() || it->second.empty()) return std::nullopt;
    const Tensor* y = v.outputs.empty() ? nullptr : v.outputs[0];
    return (y ? y->elements() : out) * product(it->second);
  }
  return std::nullopt;
}

}  // namespace

OpCost opCost(const OpView& v) {
  OpCost c;
  if (bytesOnlyOps().count(v.op)) {
    c.rule = CostRule::BytesOnly;
    c.memory_bytes = v.op == "Shape" || v.op == "Size" ? outElements(v) * 8 : ioBytes(v);
    return c;
  }
  if (auto f = formulaFlops(v)) {
    c.flops = *f;
    c.memory_bytes = ioBytes(v);
    return c;
  }
  c.rule = CostRule::OutputBytes;
  double out = 0;
  for (const Tensor* t : v.outputs)
    if (t) out += t->bytes();
  c.memory_bytes = 2 * out;
  return c;
}

}  // namespace doppler::onnx_import

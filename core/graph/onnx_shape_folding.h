#pragma once
// Shape arithmetic folding for ONNX import. PyTorch exports with dynamic axes compute Reshape and
// Range arguments at run time: Shape -> Gather -> Div -> Cast -> Unsqueeze -> Concat. Once the
// dimensions are bound these are constants, but ONNX 1.12's data propagation covers only some of
// those ops (not Div), and Range or ConstantOfShape read only constant inputs. So the importer
// evaluates the integer arithmetic itself, replaces the nodes that make it by Constant nodes, and
// runs shape inference again until nothing new folds, as an inference runtime's constant folding
// would. Internal to core/graph.
#include <string>
#include <unordered_map>

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace doppler::onnx_import {

// Evaluates every node whose inputs are known small tensors (initializers, Constant nodes, Shape
// or Size of a fully inferred tensor, and earlier results) and returns, by output name, the value
// of each single-output non-Constant node whose output is integral (shapes, indices, masks of up
// to 4096 elements). Ops it evaluates: Shape, Size, Identity, Cast, Neg, Unsqueeze, Squeeze,
// Gather (1-D, axis 0), Concat (1-D), Slice (1-D, step 1), ReduceProd, ReduceSum, Add, Sub, Mul,
// Div, Max, Min, Equal, Where, Range.
std::unordered_map<std::string, onnx::TensorProto> foldShapeArithmetic(
    const onnx::ModelProto& model);

}  // namespace doppler::onnx_import

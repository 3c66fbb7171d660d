// ONNX import: models built with the ONNX C++ API (tests/support/onnx_models.h), FLOPs counted by
// hand here from the shapes, and every bad-file case docs/onnx.md names.
#include "core/graph/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "core/common/input_error.h"
#include "core/common/numbered.h"
#include "core/graph/graph_io.h"
#include "core/sim/cost_table.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/onnx_models.h"
#include "tests/support/temp_dir.h"

namespace doppler {
namespace {

using testmodels::OnnxBuilder;

const Node& node(const DataflowGraph& g, const std::string& id) {
  auto v = g.find(id);
  EXPECT_TRUE(v.has_value()) << "no node " << id;
  return g.node(v.value_or(0));
}

double edgeBytes(const DataflowGraph& g, const std::string& src, const std::string& dst) {
  const int s = *g.find(src), d = *g.find(dst);
  for (int e : g.outEdges(s))
    if (g.edge(e).dst == d) return g.edge(e).bytes;
  ADD_FAILURE() << "no edge " << src << " -> " << dst;
  return -1;
}

std::string errorOf(const std::string& bytes, const OnnxImportOptions& opts = {}) {
  try {
    importOnnx(bytes, opts, "model.onnx");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "model.onnx");
    return e.what();
  }
  ADD_FAILURE() << "import succeeded";
  return {};
}

TEST(OnnxImport, MlpFlopsBytesAndWeights) {
  // x[32, 784] -> Gemm(256) -> Relu -> Gemm(128) -> Relu -> Gemm(10) -> Softmax
  OnnxImportReport report;
  const DataflowGraph g =
      importOnnx(testmodels::mlpModel(32, {784, 256, 128, 10}), {}, "mlp.onnx", &report);
  EXPECT_EQ(report.op_nodes, 6);
  EXPECT_EQ(report.weight_nodes, 6);
  EXPECT_EQ(report.input_nodes, 1);
  EXPECT_EQ(report.opset, 17);
  EXPECT_EQ(g.nodeCount(), 13);
  // Gemm: 2*M*N*K multiply-adds plus M*N for the bias (C).
  EXPECT_DOUBLE_EQ(node(g, "/fc0/Gemm").flops, 2.0 * 32 * 256 * 784 + 32 * 256);
  EXPECT_DOUBLE_EQ(node(g, "/fc1/Gemm").flops, 2.0 * 32 * 128 * 256 + 32 * 128);
  EXPECT_DOUBLE_EQ(node(g, "/fc2/Gemm").flops, 2.0 * 32 * 10 * 128 + 32 * 10);
  EXPECT_DOUBLE_EQ(node(g, "/act0/Relu").flops, 32.0 * 256);
  EXPECT_DOUBLE_EQ(node(g, "/Softmax").flops, 5.0 * 32 * 10);
  EXPECT_EQ(node(g, "/fc0/Gemm").op, "gemm");
  // Weights are input nodes with their bytes, feeding their Gemm.
  EXPECT_EQ(node(g, "fc0.weight").op, "input");
  EXPECT_DOUBLE_EQ(node(g, "fc0.weight").output_bytes, 256.0 * 784 * 4);
  EXPECT_DOUBLE_EQ(edgeBytes(g, "fc0.weight", "/fc0/Gemm"), 256.0 * 784 * 4);
  EXPECT_DOUBLE_EQ(edgeBytes(g, "x", "/fc0/Gemm"), 32.0 * 784 * 4);
  EXPECT_DOUBLE_EQ(edgeBytes(g, "/fc0/Gemm", "/act0/Relu"), 32.0 * 256 * 4);
  // The roofline's bytes: every input and the output, read and written once.
  EXPECT_DOUBLE_EQ(node(g, "/act0/Relu").memory_bytes, 2 * 32.0 * 256 * 4);
  EXPECT_DOUBLE_EQ(node(g, "/fc0/Gemm").memory_bytes,
                   (32.0 * 784 + 256.0 * 784 + 256 + 32.0 * 256) * 4);
  // Weights sit just before their consumer, so a group by topological interval keeps them.
  EXPECT_EQ(*g.find("fc0.weight") + 2, *g.find("/fc0/Gemm"));
  EXPECT_TRUE(report.fallbackLine().empty());
}

TEST(OnnxImport, ConvNetFlops) {
  const DataflowGraph g = importOnnx(testmodels::convNetModel(4));
  // conv1: out [4, 8, 32, 32], 3 input channels, 3x3 kernel, with bias.
  const double c1 = 4.0 * 8 * 32 * 32;
  EXPECT_DOUBLE_EQ(node(g, "/conv1/Conv").flops, 2 * c1 * 3 * 9 + c1);
  EXPECT_DOUBLE_EQ(node(g, "/conv1/Relu").flops, c1);
  // MaxPool 2x2 stride 2: out [4, 8, 16, 16], 4 comparisons each.
  EXPECT_DOUBLE_EQ(node(g, "/pool/MaxPool").flops, 4.0 * 8 * 16 * 16 * 4);
  // conv2: out [4, 16, 16, 16], 8 input channels.
  const double c2 = 4.0 * 16 * 16 * 16;
  EXPECT_DOUBLE_EQ(node(g, "/conv2/Conv").flops, 2 * c2 * 8 * 9 + c2);
  // Global average pooling: one add per input element, one divide per output.
  EXPECT_DOUBLE_EQ(node(g, "/gap/GlobalAveragePool").flops, c2 + 4 * 16);
  EXPECT_DOUBLE_EQ(node(g, "/Flatten").flops, 0);  // moves bytes only
  EXPECT_DOUBLE_EQ(node(g, "/Flatten").memory_bytes, 2 * 4.0 * 16 * 4);
  EXPECT_DOUBLE_EQ(node(g, "/fc/Gemm").flops, 2.0 * 4 * 10 * 16 + 4 * 10);
  EXPECT_DOUBLE_EQ(node(g, "conv1.weight").output_bytes, 8.0 * 3 * 9 * 4);
}

TEST(OnnxImport, TransformerBlockFlops) {
  testmodels::TransformerSpec spec;  // batch 2, seq 16, d_model 64, 4 heads of 16
  OnnxImportReport report;
  const DataflowGraph g = importOnnx(testmodels::transformerModel(spec), {}, "t.onnx", &report);
  EXPECT_EQ(report.op_nodes, testmodels::kTransformerOpsPerLayer);
  EXPECT_EQ(report.weight_nodes, testmodels::kTransformerWeightsPerLayer);
  const double N = 2 * 16, D = 64, F = 256;  // tokens, width, MLP width
  EXPECT_DOUBLE_EQ(node(g, "/h.0/ln_1/LayerNormalization").flops, 7 * N * D);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn.q/MatMul").flops, 2 * N * D * D);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn.q/Add").flops, N * D);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/q/Reshape").flops, 0);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/k/Transpose").flops, 0);
  // Scores: [2, 4, 16, 16] per head, each a dot product of 16.
  const double scores = 2.0 * 4 * 16 * 16;
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/MatMul").flops, 2 * scores * 16);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/Div").flops, scores);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/Softmax").flops, 5 * scores);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/MatMul_1").flops, 2 * scores * 16);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/mlp.c_fc/MatMul").flops, 2 * N * D * F);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/mlp/act/Erf").flops, N * F);
  EXPECT_DOUBLE_EQ(node(g, "/h.0/mlp.c_proj/MatMul").flops, 2 * N * F * D);
  // The whole block, counted op by op: 2 LayerNorms, 4 projections of D x D and their biases,
  // the scores and context products, the scale and softmax, the MLP and its GELU (5 ops of N*F),
  // 2 residual adds.
  const double expected = 2 * 7 * N * D + 4 * (2 * N * D * D + N * D) + 2 * (2 * scores * 16) +
                          scores + 5 * scores + (2 * N * D * F + N * F) + 5 * N * F +
                          (2 * N * F * D + N * D) + 2 * N * D;
  double total = 0;
  for (const Node& n : g.nodes()) total += n.flops;
  EXPECT_DOUBLE_EQ(total, expected);
  // The head split reads the tensor and writes it again; the shape tensor is a constant, no node.
  EXPECT_DOUBLE_EQ(node(g, "/h.0/attn/q/Reshape").memory_bytes, 2 * N * D * 4 + 4 * 8);
  EXPECT_FALSE(g.find("split_heads_shape"));
  EXPECT_FALSE(g.find("attn_scale"));
  EXPECT_TRUE(g.isAcyclic());
}

TEST(OnnxImport, DynamicDimensionsMustBeBound) {
  testmodels::TransformerSpec spec;
  spec.dynamic = true;
  const std::string model = testmodels::transformerModel(spec);
  const std::string err = errorOf(model);
  EXPECT_NE(err.find("tensor 'input' dimension 0 'batch' is unknown"), std::string::npos) << err;
  EXPECT_NE(err.find("--dim batch=N"), std::string::npos) << err;

  OnnxImportOptions opts;
  opts.dims = {{"batch", 2}, {"seq", 16}};
  const DataflowGraph bound = importOnnx(model, opts);
  spec.dynamic = false;
  const DataflowGraph fixed = importOnnx(testmodels::transformerModel(spec));
  ASSERT_EQ(bound.nodeCount(), fixed.nodeCount());
  for (int v = 0; v < fixed.nodeCount(); ++v) {
    EXPECT_EQ(bound.node(v).id, fixed.node(v).id);
    EXPECT_DOUBLE_EQ(bound.node(v).flops, fixed.node(v).flops) << fixed.node(v).id;
  }
  opts.dims = {{"batch", 8}, {"seq", 16}};  // four times the tokens: four times the MatMul
  EXPECT_DOUBLE_EQ(node(importOnnx(model, opts), "/h.0/attn.q/MatMul").flops,
                   4 * node(fixed, "/h.0/attn.q/MatMul").flops);

  opts.dims = {{"batch", 2}, {"seq", 16}, {"heads", 3}};
  EXPECT_NE(errorOf(model, opts)
                .find("no dimension named 'heads' (its dynamic dimensions: "
                      "batch, seq)"),
            std::string::npos);
}

TEST(OnnxImport, DynamicDimsListedForPrompt) {
  testing::TempDir dir;
  testmodels::TransformerSpec spec;
  spec.dynamic = true;
  const std::string path = dir.write("dyn.onnx", testmodels::transformerModel(spec));
  const auto dims = onnxDynamicDims(path);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0].name, "batch");
  EXPECT_EQ(dims[1].name, "seq");
  EXPECT_EQ(dims[0].tensor, "input");
}

TEST(OnnxImport, ExternalWeightsAreNotRead) {
  testmodels::TransformerSpec spec;
  spec.external_weights = true;  // the side file weights.bin does not even exist
  OnnxImportReport report;
  const DataflowGraph g = importOnnx(testmodels::transformerModel(spec), {}, "x.onnx", &report);
  EXPECT_TRUE(report.external_data);
  EXPECT_DOUBLE_EQ(node(g, "h.0.mlp.c_fc.weight").output_bytes, 64.0 * 256 * 4);
}

TEST(OnnxImport, DtypeBytesOverride) {
  OnnxImportOptions opts;
  opts.dtype_bytes = 2;
  const DataflowGraph g = importOnnx(testmodels::mlpModel(4, {8, 16}), opts);
  EXPECT_DOUBLE_EQ(node(g, "fc0.weight").output_bytes, 16.0 * 8 * 2);
  EXPECT_DOUBLE_EQ(edgeBytes(g, "x", "/fc0/Gemm"), 4.0 * 8 * 2);
}

TEST(OnnxImport, OpWithoutFormulaIsCostedByOutputBytesAndListed) {
  OnnxBuilder b("cumsum");
  const std::string x = b.input("x", {4, 100});
  const std::string axis = b.ints("axis", {1});
  const std::string y = b.node("CumSum", "/CumSum", {x, axis});
  b.output(y, {4, 100});
  OnnxImportReport report;
  const DataflowGraph g = importOnnx(b.serialize(), {}, "c.onnx", &report);
  EXPECT_EQ(report.costed_by_output_bytes.at("CumSum"), 1);
  EXPECT_EQ(report.fallbackLine(), "costed by output bytes (no FLOP formula): CumSum x1");
  EXPECT_DOUBLE_EQ(node(g, "/CumSum").flops, 0);
  EXPECT_DOUBLE_EQ(node(g, "/CumSum").memory_bytes, 2 * 400.0 * 4);
}

TEST(OnnxImport, RooflineTimesInTheCostTable) {
  const DataflowGraph g = importOnnx(testmodels::mlpModel(32, {784, 256, 10}));
  DeviceSet d = DeviceSet::uniform(1, Device{"gpu", 10, 16, 500});
  const CostTable costs(g, d);
  const Node& relu = node(g, "/act0/Relu");
  const Node& gemm = node(g, "/fc0/Gemm");
  // Relu is memory-bound: bytes / (500 GB/s); the Gemm's FLOPs take longer than its bytes.
  EXPECT_DOUBLE_EQ(costs.compute(*g.find("/act0/Relu"), 0), relu.memory_bytes / 500e3);
  EXPECT_DOUBLE_EQ(costs.compute(*g.find("/fc0/Gemm"), 0),
                   std::max(gemm.flops / 10e6, gemm.memory_bytes / 500e3));
}

TEST(OnnxImport, TruncatedProtobuf) {
  const std::string model = testmodels::mlpModel(4, {8, 16, 4});
  for (size_t cut : {model.size() / 2, model.size() - 1, size_t{3}}) {
    const std::string err = errorOf(model.substr(0, cut));
    EXPECT_NE(err.find("model.onnx"), std::string::npos) << err;
    EXPECT_TRUE(err.find("truncated or malformed") != std::string::npos ||
                err.find("no graph nodes") != std::string::npos)
        << err;
  }
}

TEST(OnnxImport, CycleIsNamed) {
  OnnxBuilder b("cycle");
  const std::string x = b.input("x", {4});
  b.node("Add", "a", {x, "b_output_0"});
  b.node("Relu", "b", {"a_output_0"});
  b.output("b_output_0", {4});
  const std::string err = errorOf(b.serialize());
  EXPECT_NE(err.find("cycle"), std::string::npos) << err;
  EXPECT_NE(err.find("'a'"), std::string::npos) << err;
  EXPECT_NE(err.find("a -> b"), std::string::npos) << err;
}

TEST(OnnxImport, MissingInputIsNamed) {
  OnnxBuilder b("missing");
  const std::string x = b.input("x", {4});
  const std::string y = b.node("Add", "/add", {x, "bias_nobody_made"});
  b.output(y, {4});
  EXPECT_EQ(errorOf(b.serialize()),
            "model.onnx: node 0 '/add' (Add): input 'bias_nobody_made' is not produced by any "
            "node, initializer or graph input");
}

TEST(OnnxImport, UnsupportedOpset) {
  OnnxBuilder b("future", 99);
  const std::string x = b.input("x", {4});
  b.output(b.node("Relu", "/relu", {x}), {4});
  const std::string err = errorOf(b.serialize());
  EXPECT_NE(err.find("opset 99 is not supported"), std::string::npos) << err;
}

TEST(OnnxImport, UnsortedNodesAreSorted) {
  OnnxBuilder b("unsorted");
  const std::string x = b.input("x", {4, 8});
  b.node("Relu", "/second", {"/first_output_0"});
  b.node("Sigmoid", "/first", {x});
  b.output("/second_output_0", {4, 8});
  const DataflowGraph g = importOnnx(b.serialize());
  EXPECT_DOUBLE_EQ(node(g, "/second").flops, 32);  // shape inference saw /first first
  EXPECT_LT(*g.find("/first"), *g.find("/second"));
}

TEST(OnnxImport, ReadGraphFileDetectsOnnx) {
  testing::TempDir dir;
  // By name, and by content under another name.
  const std::string model = testmodels::mlpModel(4, {8, 16});
  for (const char* name : {"m.onnx", "m.bin"}) {
    const DataflowGraph g = readGraphFile(dir.write(name, model));
    EXPECT_TRUE(g.find("/fc0/Gemm")) << name;
  }
  ReadOptions opts;
  testmodels::TransformerSpec spec;
  spec.dynamic = true;
  const std::string dyn = dir.write("dyn.onnx", testmodels::transformerModel(spec));
  EXPECT_THROW(readGraphFile(dyn, opts), InputError);
  opts.onnx.dims = {{"batch", 1}, {"seq", 4}};
  EXPECT_GT(readGraphFile(dyn, opts).nodeCount(), 40);
}

// What PyTorch exports for `x.view(b, t, h, c // h)` with dynamic axes: the target shape is
// computed at run time (Shape, Gather, Div, Cast, Unsqueeze, Concat), and `arange(t)` is a Range
// of a computed length. ONNX's own propagation stops at Div and Range; the import folds them.
TEST(OnnxImport, RuntimeShapeArithmeticIsFolded) {
  OnnxBuilder b("view");
  const std::string x = b.input("x", {"batch", "seq", 64});
  const std::string shape = b.node("Shape", "/Shape", {x});
  auto gather = [&](const std::string& name, int64_t i) {
    const std::string idx = b.ints(name + "_index", {i});
    const std::string g = b.node("Gather", name, {shape, idx});
    b.attr("axis", int64_t{0});
    return g;
  };
  const std::string bt = gather("/Gather_b", 0), t = gather("/Gather_t", 1),
                    c = gather("/Gather_c", 2);
  const std::string four = b.ints("four", {4});
  const std::string dh = b.node("Cast", "/Cast", {b.node("Div", "/Div", {c, four})});
  b.attr("to", int64_t{7});
  const std::string heads = b.ints("heads", {4});
  const std::string target = b.node("Concat", "/Concat", {bt, t, heads, dh});
  b.attr("axis", int64_t{0});
  const std::string y = b.node("Reshape", "/Reshape", {x, target});
  const std::string zero = b.ints("zero", {0}), one = b.ints("one", {1});
  auto scalar = [&](const std::string& in, const std::string& name) {
    const std::string axes = b.ints(name + "_axes", {0});
    return b.node("Squeeze", name, {in, axes});
  };
  const std::string pos =
      b.node("Range", "/Range", {scalar(zero, "/Sq0"), scalar(t, "/Sq1"), scalar(one, "/Sq2")});
  const std::string posf = b.node("Cast", "/CastPos", {pos});
  b.attr("to", int64_t{1});
  b.output(y, {"batch", "seq", 4, 16});
  b.output(posf, {"seq"});
  OnnxImportOptions opts;
  opts.dims = {{"batch", 2}, {"seq", 10}};
  OnnxImportReport report;
  const DataflowGraph g = importOnnx(b.serialize(), opts, "view.onnx", &report);
  // The reshape's output is known: [2, 10, 4, 16]; the shape nodes are gone.
  EXPECT_DOUBLE_EQ(node(g, "/Reshape").output_bytes, 2.0 * 10 * 64 * 4);
  EXPECT_FALSE(g.find("/Shape"));
  EXPECT_FALSE(g.find("/Div"));
  EXPECT_FALSE(g.find("/Concat"));
  EXPECT_FALSE(g.find("/Range"));  // integer positions of a known length: a constant too
  EXPECT_DOUBLE_EQ(node(g, "/CastPos").output_bytes, 10.0 * 4);
  EXPECT_GE(report.folded_nodes, 9);
  // The reshape depends on x only.
  EXPECT_EQ(g.inEdges(*g.find("/Reshape")).size(), 1u);
}

// `x.flatten(1)` as exported with dynamic axes: Slice(shape, 1, INT64_MAX) ("to the end"), a
// product that ONNX does not propagate, and a Gather with a negative index. The MatMul after the
// Reshape only gets its FLOPs if all of it folds right.
TEST(OnnxImport, FoldingSlicesToTheEndAndNegativeIndices) {
  OnnxBuilder b("flatten");
  const std::string x = b.input("x", {"batch", 10, 64});
  const std::string shape = b.node("Shape", "/Shape", {x});
  const std::string head =
      b.node("Slice", "/Slice_head", {shape, b.ints("s0", {0}), b.ints("e0", {1})});
  const std::string tail =
      b.node("Slice", "/Slice_tail",
             {shape, b.ints("s1", {1}), b.ints("e1", {std::numeric_limits<int64_t>::max()})});
  const std::string prod = b.node("ReduceProd", "/ReduceProd", {tail});
  b.attr("keepdims", int64_t{1});
  const std::string last = b.node("Gather", "/Gather_last", {shape, b.ints("minus_one", {-1})});
  // prod / last * last: the same number, through an integer Div ONNX cannot propagate.
  const std::string same = b.node("Mul", "/Mul", {b.node("Div", "/Div", {prod, last}), last});
  const std::string target = b.node("Concat", "/Concat", {head, same});
  b.attr("axis", int64_t{0});
  const std::string flat = b.node("Reshape", "/Reshape", {x, target});
  const std::string y = b.node("MatMul", "/MatMul", {flat, b.weight("w", {640, 8})});
  b.output(y, {"batch", 8});
  OnnxImportOptions opts;
  opts.dims = {{"batch", 3}};
  const DataflowGraph g = importOnnx(b.serialize(), opts);
  EXPECT_DOUBLE_EQ(node(g, "/MatMul").flops, 2.0 * 3 * 640 * 8);
  EXPECT_FALSE(g.find("/Slice_tail"));
}

// Resize reads its scales from a small float initializer: the importer keeps those values.
TEST(OnnxImport, ResizeScalesFromAnInitializer) {
  OnnxBuilder b("resize");
  const std::string x = b.input("x", {1, 3, 8, 8});
  const std::string up = b.node("Resize", "/Resize", {x, "", b.floats("scales", {1, 1, 2, 2})});
  const std::string y = b.node("Relu", "/Relu", {up});
  b.output(y, {1, 3, 16, 16});
  const DataflowGraph g = importOnnx(b.serialize());
  EXPECT_DOUBLE_EQ(node(g, "/Relu").flops, 3.0 * 16 * 16);
}

TEST(OnnxImport, NegativeInitializerDimensionIsAnError) {
  OnnxBuilder b("neg");
  const std::string x = b.input("x", {4});
  auto* w = b.model().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(-4);
  b.output(b.node("Add", "/add", {x, "w"}), {4});
  EXPECT_NE(errorOf(b.serialize()).find("initializer 'w': has a negative dimension"),
            std::string::npos);
}

TEST(OnnxImport, DuplicateGraphInputNamesStayDistinctAndErrorsNameTheFile) {
  OnnxBuilder b("dup");
  const std::string x = b.input("x", {4});
  b.input("x", {4});
  b.output(b.node("Relu", "/relu", {x}), {4});
  try {
    const DataflowGraph g = importOnnx(b.serialize(), {}, "dup.onnx");
    EXPECT_TRUE(g.find("x#2"));
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "dup.onnx") << e.what();
  }
}

TEST(OnnxImport, NodesSharingANameGetNumberedIds) {
  OnnxBuilder b("same");
  std::string x = b.input("x", {4});
  for (int i = 0; i < 3; ++i) {
    auto* n = b.model().mutable_graph()->add_node();
    n->set_op_type("Relu");
    n->set_name("/relu");
    n->add_input(x);
    x = numbered("y", i);
    n->add_output(x);
  }
  b.output(x, {4});
  const DataflowGraph g = importOnnx(b.serialize());
  EXPECT_TRUE(g.find("/relu") && g.find("/relu#2") && g.find("/relu#3"));
  EXPECT_EQ(g.nodeCount(), 4);
}

// A real PyTorch export when Debian's python3-torch and python3-onnx are installed.
TEST(OnnxImport, PyTorchExportOfAGpt2Block) {
  if (std::system("/usr/bin/python3 -c 'import torch, onnx' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3-torch or python3-onnx is not installed (scripts/export_onnx.py)";
  testing::TempDir dir;
  const std::string model = dir.path("block.onnx");
  ASSERT_EQ(
      std::system(("/usr/bin/python3 " DOPPLER_SOURCE_DIR "/scripts/export_onnx.py gpt2-block "
                   "--d-model 64 --heads 4 --out " +
                   model + " >/dev/null 2>&1")
                      .c_str()),
      0);
  OnnxImportOptions opts;
  opts.dims = {{"batch", 2}, {"seq", 16}};
  OnnxImportReport report;
  const DataflowGraph g = importOnnxFile(model, opts, &report);
  EXPECT_EQ(report.producer.rfind("pytorch", 0), 0u) << report.producer;
  EXPECT_GT(report.folded_nodes, 10);
  EXPECT_TRUE(report.costed_by_output_bytes.empty()) << report.fallbackLine();
  // c_attn (64 -> 192), c_proj, and the MLP (64 -> 256 -> 64) over 32 tokens, plus the two
  // attention products of 4 heads x 16 x 16 x 16.
  double matmul = 0;
  for (const Node& n : g.nodes())
    if (n.op == "matmul") matmul += n.flops;
  const double N = 32;
  EXPECT_DOUBLE_EQ(matmul, 2 * N * 64 * 192 + 2 * N * 64 * 64 + 2 * N * 64 * 256 +
                               2 * N * 256 * 64 + 2 * (2 * 2.0 * 4 * 16 * 16 * 16));
}

class OnnxCli : public testing::CliFixture {};

TEST_F(OnnxCli, ImportWritesAGraphAndAReport) {
  const std::string model = write("m.onnx", testmodels::mlpModel(32, {784, 256, 10}));
  const auto r =
      run("graph import " + model + " --out " + path("g.json") + " --report " + path("r.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("imported"), std::string::npos) << r.err;
  const DataflowGraph g = readGraphFile(path("g.json"));
  EXPECT_DOUBLE_EQ(node(g, "/fc0/Gemm").flops, 2.0 * 32 * 256 * 784 + 32 * 256);
  EXPECT_DOUBLE_EQ(
      node(g, "/fc0/Gemm").memory_bytes,
      importOnnx(testmodels::mlpModel(32, {784, 256, 10})).node(*g.find("/fc0/Gemm")).memory_bytes);
  EXPECT_NE(testing::slurp(path("r.json")).find("\"op_nodes\":4"), std::string::npos);
  // Place reads the model directly too.
  const auto p = run("place --graph " + model + " --devices 2 --method critical-path --json");
  EXPECT_EQ(p.status, 0) << p.err;
}

TEST_F(OnnxCli, BadInputIsOneLineAndStatusTwo) {
  testmodels::TransformerSpec spec;
  spec.dynamic = true;
  const std::string dyn = write("dyn.onnx", testmodels::transformerModel(spec));
  expectBadInput("graph import " + dyn, {"dyn.onnx", "'batch' is unknown", "--dim batch=N"});
  expectBadInput("graph import " + dyn + " --dim batch=x", {"--dim batch", "not a positive"});
  expectBadInput("graph import " + dyn + " --dim batch", {"expected NAME=VALUE"});
  const std::string cut = testmodels::mlpModel(4, {8, 16});
  const std::string truncated = write("cut.onnx", cut.substr(0, cut.size() / 2));
  expectBadInput("graph import " + truncated, {"cut.onnx", "truncated or malformed"});
  expectBadInput("graph import " + path("none.onnx"), {"none.onnx", "no such file"});
  expectBadInput("place --graph " + dyn + " --devices 2", {"dyn.onnx", "--dim batch=N"});
}

// Hostile models (issue: hardening): each is refused with the node and what is wrong, before ONNX's
// own shape inference sees it (stride 0 divided by zero inside it: SIGFPE) or after it (with its
// errors on, declared shapes that contradict the op are not taken as they are).

std::string convWith(const char* attr, std::vector<int64_t> values) {
  OnnxBuilder b("conv");
  const std::string x = b.input("x", {1, 3, 16, 16});
  const std::string w = b.weight("w", {8, 3, 3, 3});
  const std::string y = b.node("Conv", "/conv", {x, w});
  b.attr(attr, values);
  b.output(y, {1, 8, 8, 8});
  return b.serialize();
}

TEST(OnnxHostile, ConvStridesZeroIsRefusedBeforeShapeInference) {
  const std::string err = errorOf(convWith("strides", {0, 0}));
  EXPECT_NE(err.find("'/conv' (Conv)"), std::string::npos) << err;
  EXPECT_NE(err.find("strides"), std::string::npos) << err;
  EXPECT_NE(err.find("at least 1"), std::string::npos) << err;
}

TEST(OnnxHostile, MaxPoolStridesZeroAndConvDilationsZeroAreRefused) {
  OnnxBuilder b("pool");
  const std::string x = b.input("x", {1, 3, 16, 16});
  const std::string y = b.node("MaxPool", "/pool", {x});
  b.attr("kernel_shape", std::vector<int64_t>{2, 2});
  b.attr("strides", std::vector<int64_t>{0, 0});
  b.output(y, {1, 3, 8, 8});
  EXPECT_NE(errorOf(b.serialize()).find("'/pool' (MaxPool): attribute strides"), std::string::npos);
  EXPECT_NE(errorOf(convWith("dilations", {0, 1})).find("dilations"), std::string::npos);
  EXPECT_NE(errorOf(convWith("pads", {-1, 0, 0, 0})).find("pads"), std::string::npos);
}

TEST(OnnxHostile, MatMulOfMismatchedShapesIsRefused) {
  OnnxBuilder b("mm");
  const std::string x = b.input("x", {4, 8});
  const std::string w = b.weight("w", {9, 16});
  b.output(b.node("MatMul", "/mm", {x, w}), {4, 16});
  const std::string err = errorOf(b.serialize());
  EXPECT_NE(err.find("shape inference"), std::string::npos) << err;
  EXPECT_NE(err.find("/mm"), std::string::npos) << err;
}

TEST(OnnxHostile, ConcatAxisOutOfRangeAndTransposeOfARepeatedAxisAreRefused) {
  {
    OnnxBuilder b("concat");
    const std::string x = b.input("x", {1, 2, 3, 4});
    b.node("Concat", "/cat", {x, x});
    b.attr("axis", int64_t{99});
    b.output("/cat_output_0", {2, 2, 3, 4});
    EXPECT_NE(errorOf(b.serialize()).find("shape inference"), std::string::npos);
  }
  {
    OnnxBuilder b("transpose");
    const std::string x = b.input("x", {1, 2, 3, 4});
    b.node("Transpose", "/t", {x});
    b.attr("perm", std::vector<int64_t>{7, 7, 7, 7});
    b.output("/t_output_0", {1, 2, 3, 4});
    EXPECT_NE(errorOf(b.serialize()).find("shape inference"), std::string::npos);
  }
}

TEST(OnnxHostile, DeclaredDimensionsAreCappedLikeDim) {
  OnnxBuilder b("huge");
  const std::string x = b.input("x", {int64_t{1} << 41, 8});
  b.output(b.node("Relu", "/relu", {x}), {int64_t{1} << 41, 8});
  const std::string err = errorOf(b.serialize());
  EXPECT_NE(err.find("2^40"), std::string::npos) << err;
  // Each dimension within the cap, but elements beyond any machine: 2^80.
  OnnxBuilder c("huger");
  const std::string y = c.input("y", {int64_t{1} << 40, int64_t{1} << 40});
  c.output(c.node("Relu", "/relu", {y}), {int64_t{1} << 40, int64_t{1} << 40});
  const std::string err2 = errorOf(c.serialize());
  EXPECT_NE(err2.find("elements"), std::string::npos) << err2;
}

TEST(OnnxHostile, ANegativeInputDimensionIsCalledNegative) {
  OnnxBuilder b("negin");
  const std::string x = b.input("x", {-3, 8});
  b.output(b.node("Relu", "/relu", {x}), {-3, 8});
  const std::string err = errorOf(b.serialize());
  EXPECT_NE(err.find("negative"), std::string::npos) << err;
  EXPECT_EQ(err.find("unknown"), std::string::npos) << err;
}

TEST(OnnxHostile, ReshapeGatherAndResizeNonsenseIsRefused) {
  {
    OnnxBuilder b("reshape");
    const std::string x = b.input("x", {2, 8});
    const std::string y = b.node("Reshape", "/r", {x, b.ints("shape", {0, -7})});
    b.output(y, {2, 8});
    EXPECT_NE(errorOf(b.serialize()).find("/r"), std::string::npos);
  }
  {
    OnnxBuilder b("gather");
    const std::string x = b.input("x", {2, 8});
    const std::string y = b.node("Gather", "/g", {x, b.ints("idx", {99})});
    b.attr("axis", int64_t{9});
    b.output(y, {2, 1});
    EXPECT_NE(errorOf(b.serialize()).find("/g"), std::string::npos);
  }
  {
    OnnxBuilder b("resize");
    const std::string x = b.input("x", {1, 3, 8, 8});
    const std::string y = b.node("Resize", "/up", {x, "", b.floats("scales", {1, 1, 0, 0})});
    b.output(y, {1, 3, 16, 16});
    EXPECT_NE(errorOf(b.serialize()).find("/up"), std::string::npos);
  }
}

}  // namespace
}  // namespace doppler

#include "tests/support/onnx_models.h"

#include <onnx/onnx_pb.h>

#include <cmath>

namespace doppler::testmodels {
namespace {

int64_t elementBytes(int elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::DOUBLE:
      return 8;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      return 2;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      return 1;
    default:
      return 4;
  }
}

}  // namespace

OnnxBuilder::OnnxBuilder(const std::string& name, int64_t opset) : model_(new onnx::ModelProto) {
  model_->set_ir_version(8);
  model_->set_producer_name("doppler-testmodels");
  auto* op = model_->add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  model_->mutable_graph()->set_name(name);
}

OnnxBuilder::~OnnxBuilder() {
  delete model_;
}

std::string OnnxBuilder::input(const std::string& name, const std::vector<Dim>& dims,
                               int elem_type) {
  auto* in = model_->mutable_graph()->add_input();
  in->set_name(name);
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  for (const Dim& d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (d.param.empty())
      dim->set_dim_value(d.value);
    else
      dim->set_dim_param(d.param);
  }
  return name;
}

std::string OnnxBuilder::weight(const std::string& name, const std::vector<int64_t>& dims,
                                int elem_type) {
  auto* w = model_->mutable_graph()->add_initializer();
  w->set_name(name);
  w->set_data_type(elem_type);
  int64_t count = 1;
  for (int64_t d : dims) {
    w->add_dims(d);
    count *= d;
  }
  const int64_t bytes = count * elementBytes(elem_type);
  if (external_) {
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* key, const std::string& value) {
      auto* e = w->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    add("location", "weights.bin");
    add("offset", std::to_string(externalOffset_));
    add("length", std::to_string(bytes));
    externalOffset_ += bytes;
  } else {
    w->set_raw_data(std::string(static_cast<size_t>(bytes), '\0'));
  }
  return name;
}

std::string OnnxBuilder::ints(const std::string& name, const std::vector<int64_t>& values) {
  auto* w = constant(name, onnx::TensorProto::INT64, values.size());
  for (int64_t v : values) w->add_int64_data(v);
  return name;
}

std::string OnnxBuilder::floats(const std::string& name, const std::vector<float>& values) {
  auto* w = constant(name, onnx::TensorProto::FLOAT, values.size());
  for (float v : values) w->add_float_data(v);
  return name;
}

onnx::TensorProto* OnnxBuilder::constant(const std::string& name, int elem_type, size_t count) {
  auto* w = model_->mutable_graph()->add_initializer();
  w->set_name(name);
  w->set_data_type(elem_type);
  w->add_dims(static_cast<int64_t>(count));
  return w;
}

std::string OnnxBuilder::node(const std::string& op, const std::string& name,
                              const std::vector<std::string>& inputs) {
  auto* n = model_->mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  const std::string out = name + "_output_0";
  n->add_output(out);
  return out;
}

onnx::NodeProto& OnnxBuilder::last() {
  auto* g = model_->mutable_graph();
  return *g->mutable_node(g->node_size() - 1);
}

void OnnxBuilder::attr(const std::string& name, int64_t value) {
  auto* a = last().add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void OnnxBuilder::attr(const std::string& name, float value) {
  auto* a = last().add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void OnnxBuilder::attr(const std::string& name, const std::vector<int64_t>& values) {
  auto* a = last().add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

void OnnxBuilder::output(const std::string& tensor, const std::vector<Dim>& dims) {
  auto* o = model_->mutable_graph()->add_output();
  o->set_name(tensor);
  auto* t = o->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (const Dim& d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (d.param.empty())
      dim->set_dim_value(d.value);
    else
      dim->set_dim_param(d.param);
  }
}

std::string OnnxBuilder::serialize() const {
  return model_->SerializeAsString();
}

std::string mlpModel(int64_t batch, const std::vector<int64_t>& widths) {
  OnnxBuilder b("mlp");
  std::string x = b.input("x", {batch, widths.front()});
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::string scope = "/fc" + std::to_string(l) + "/";
    const std::string w =
        b.weight("fc" + std::to_string(l) + ".weight", {widths[l + 1], widths[l]});
    const std::string bias = b.weight("fc" + std::to_string(l) + ".bias", {widths[l + 1]});
    x = b.node("Gemm", scope + "Gemm", {x, w, bias});
    b.attr("transB", int64_t{1});
    if (l + 2 < widths.size()) x = b.node("Relu", "/act" + std::to_string(l) + "/Relu", {x});
  }
  x = b.node("Softmax", "/Softmax", {x});
  b.attr("axis", int64_t{-1});
  b.output(x, {batch, widths.back()});
  return b.serialize();
}

std::string convNetModel(int64_t batch) {
  OnnxBuilder b("convnet");
  std::string x = b.input("image", {batch, 3, 32, 32});
  auto conv = [&](const std::string& name, int64_t cin, int64_t cout) {
    const std::string w = b.weight(name + ".weight", {cout, cin, 3, 3});
    const std::string bias = b.weight(name + ".bias", {cout});
    x = b.node("Conv", "/" + name + "/Conv", {x, w, bias});
    b.attr("kernel_shape", std::vector<int64_t>{3, 3});
    b.attr("pads", std::vector<int64_t>{1, 1, 1, 1});
    b.attr("strides", std::vector<int64_t>{1, 1});
    x = b.node("Relu", "/" + name + "/Relu", {x});
  };
  conv("conv1", 3, 8);
  x = b.node("MaxPool", "/pool/MaxPool", {x});
  b.attr("kernel_shape", std::vector<int64_t>{2, 2});
  b.attr("strides", std::vector<int64_t>{2, 2});
  conv("conv2", 8, 16);
  x = b.node("GlobalAveragePool", "/gap/GlobalAveragePool", {x});
  x = b.node("Flatten", "/Flatten", {x});
  const std::string w = b.weight("fc.weight", {10, 16});
  const std::string bias = b.weight("fc.bias", {10});
  x = b.node("Gemm", "/fc/Gemm", {x, w, bias});
  b.attr("transB", int64_t{1});
  b.output(x, {batch, 10});
  return b.serialize();
}

std::string transformerModel(const TransformerSpec& s) {
  OnnxBuilder b("transformer");
  b.setExternalWeights(s.external_weights);
  const int64_t D = s.d_model, H = s.heads, Dh = D / H, F = 4 * D;
  std::string x =
      s.dynamic ? b.input("input", {"batch", "seq", D}) : b.input("input", {s.batch, s.seq, D});
  const std::string splitShape = b.ints("split_heads_shape", {0, 0, H, Dh});
  const std::string mergeShape = b.ints("merge_heads_shape", {0, 0, D});
  // Scalars are initializers of one element: constants, not weight nodes.
  auto scalar = [&](const std::string& name) {
    auto* t = b.model().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(1.0f);
    return name;
  };
  const std::string scale = scalar("attn_scale"), sqrt2 = scalar("sqrt2"), one = scalar("one"),
                    half = scalar("half");
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    const std::string sc = "/h." + std::to_string(l) + "/";
    auto layerNorm = [&](const std::string& name, const std::string& in) {
      const std::string g = b.weight(p + name + ".weight", {D});
      const std::string beta = b.weight(p + name + ".bias", {D});
      std::string out =
          b.node("LayerNormalization", sc + name + "/LayerNormalization", {in, g, beta});
      b.attr("axis", int64_t{-1});
      b.attr("epsilon", 1e-5f);
      return out;
    };
    auto linear = [&](const std::string& name, const std::string& in, int64_t k, int64_t n) {
      const std::string w = b.weight(p + name + ".weight", {k, n});
      const std::string bias = b.weight(p + name + ".bias", {n});
      std::string mm = b.node("MatMul", sc + name + "/MatMul", {in, w});
      return b.node("Add", sc + name + "/Add", {mm, bias});
    };
    const std::string ln1 = layerNorm("ln_1", x);
    auto heads = [&](const std::string& name, const std::vector<int64_t>& perm) {
      std::string proj = linear("attn." + name, ln1, D, D);
      std::string r = b.node("Reshape", sc + "attn/" + name + "/Reshape", {proj, splitShape});
      std::string t = b.node("Transpose", sc + "attn/" + name + "/Transpose", {r});
      b.attr("perm", perm);
      return t;
    };
    const std::string q = heads("q", {0, 2, 1, 3});
    const std::string k = heads("k", {0, 2, 3, 1});
    const std::string v = heads("v", {0, 2, 1, 3});
    std::string att = b.node("MatMul", sc + "attn/MatMul", {q, k});
    att = b.node("Div", sc + "attn/Div", {att, scale});
    att = b.node("Softmax", sc + "attn/Softmax", {att});
    b.attr("axis", int64_t{-1});
    std::string ctx = b.node("MatMul", sc + "attn/MatMul_1", {att, v});
    ctx = b.node("Transpose", sc + "attn/Transpose", {ctx});
    b.attr("perm", std::vector<int64_t>{0, 2, 1, 3});
    ctx = b.node("Reshape", sc + "attn/Reshape", {ctx, mergeShape});
    const std::string proj = linear("attn.c_proj", ctx, D, D);
    x = b.node("Add", sc + "Add", {x, proj});
    const std::string ln2 = layerNorm("ln_2", x);
    std::string h = linear("mlp.c_fc", ln2, D, F);
    std::string g = b.node("Div", sc + "mlp/act/Div", {h, sqrt2});
    g = b.node("Erf", sc + "mlp/act/Erf", {g});
    g = b.node("Add", sc + "mlp/act/Add", {g, one});
    g = b.node("Mul", sc + "mlp/act/Mul", {h, g});
    g = b.node("Mul", sc + "mlp/act/Mul_1", {g, half});
    const std::string down = linear("mlp.c_proj", g, F, D);
    x = b.node("Add", sc + "Add_1", {x, down});
  }
  if (s.dynamic)
    b.output(x, {"batch", "seq", D});
  else
    b.output(x, {s.batch, s.seq, D});
  return b.serialize();
}

}  // namespace doppler::testmodels

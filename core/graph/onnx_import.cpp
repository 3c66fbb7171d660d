// ONNX import: parse the ModelProto, check its structure, bind dynamic dimensions, run ONNX shape
// inference, then build the dataflow graph with each node's costs (onnx_costs.cpp).
#include "core/graph/onnx_import.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <filesystem>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "core/graph/onnx_costs.h"
#include "core/graph/onnx_shape_folding.h"

namespace doppler {
namespace {

using onnx_import::Tensor;

constexpr int kMaxInferencePasses = 256;
constexpr double kKeepValuesUpTo = 4096;  // elements of a float initializer whose values stay
constexpr int64_t kMaxDimension = int64_t(1) << 40;  // a --dim beyond this overflows FLOP counts
// Elements of one tensor at most (2^50: a petabyte of floats): a model declaring more (2^80 from
// dims each within kMaxDimension) imported as 10^46 GFLOP and was placed.
constexpr int64_t kMaxElements = int64_t(1) << 50;

// Element count as a double: hostile dims cannot overflow it.
double elementCount(const onnx::TensorProto& t) {
  double n = 1;
  for (int64_t d : t.dims()) n *= static_cast<double>(d);
  return n;
}

double elementBytes(int type) {
  switch (type) {
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::COMPLEX64:
      return 8;
    case onnx::TensorProto::COMPLEX128:
      return 16;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
      return 2;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      return 1;
    default:  // FLOAT, INT32, UINT32, and anything unknown
      return 4;
  }
}

bool isFloating(int type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE ||
         type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16;
}

std::string nodeLabel(const onnx::NodeProto& n, int index) {
  return "node " + std::to_string(index) + " '" + (n.name().empty() ? n.op_type() : n.name()) +
         "' (" + n.op_type() + ")";
}

// The importer's working state: the model, and what it learns of each tensor.
class Importer {
 public:
  Importer(const OnnxImportOptions& opts, std::string file) : opts_(opts), file_(std::move(file)) {}

  DataflowGraph run(std::string_view bytes, OnnxImportReport* report);

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw InputError(file_, where, problem);
  }
  void parse(std::string_view bytes);
  void checkOpset();
  void checkStructure();  // missing inputs, duplicate outputs, cycles; sorts the nodes
  // Attributes ONNX's shape inference divides by or counts with (strides, dilations, kernel
  // shapes, pads, group), before it runs: a stride of 0 raised SIGFPE inside it.
  void checkAttributes() const;
  // Declared dimensions: none negative, none beyond kMaxDimension, no tensor beyond kMaxElements.
  void checkDims(const std::string& where, const std::string& tensor,
                 const std::vector<int64_t>& dims) const;
  void checkDeclaredShapes() const;
  void bindDims();
  void inferShapes();
  bool allShapesKnown() const;  // every node output has a fully numeric shape
  int replaceFoldedNodes();     // folded shape arithmetic becomes Constant nodes
  void collectTensors();
  const Tensor& tensor(const std::string& name, const std::string& where);
  bool isConstant(const onnx::TensorProto& t) const;
  DataflowGraph build(OnnxImportReport* report);

  const OnnxImportOptions& opts_;
  std::string file_;
  onnx::ModelProto model_;
  int64_t opset_ = 0;
  int foldedNodes_ = 0;
  std::unordered_map<std::string, int> producer_;  // tensor -> node index
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, const onnx::TypeProto*> types_;  // inputs, value_info, outputs
  std::unordered_map<std::string, Tensor> tensors_;
};

void Importer::parse(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    fail("", "file is larger than protobuf's 2 GiB limit");
  if (!model_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    fail("", "not a valid ONNX model: the protobuf is truncated or malformed");
  if (!model_.has_graph() || model_.graph().node_size() == 0)
    fail("graph", "the model has no graph nodes (is this an ONNX model?)");
}

void Importer::checkOpset() {
  const auto& range = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const int max = range.at(onnx::ONNX_DOMAIN).second;
  bool found = false;
  for (const auto& op : model_.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") {
      opset_ = op.version();
      found = true;
    }
  }
  if (!found) fail("opset_import", "the model imports no default (ai.onnx) opset");
  if (opset_ < 7 || opset_ > max)
    fail("opset_import", "opset " + std::to_string(opset_) +
                             " is not supported (this importer reads opsets 7 to " +
                             std::to_string(max) + ", ONNX " + "1.12" + ")");
}

void Importer::checkStructure() {
  auto* g = model_.mutable_graph();
  // Weight values are never used, only their shapes: dropping them now spares shape inference
  // and the node reordering below from copying them (tens of MB on a large model). Integer
  // tensors stay: shape inference reads Reshape targets and axes from them.
  for (auto& t : *g->mutable_initializer()) {
    for (int64_t d : t.dims())
      if (d < 0) fail("initializer '" + t.name() + "'", "has a negative dimension");
    // Small float tensors stay: shape inference reads Resize scales and Range bounds from them.
    if (isFloating(t.data_type()) && elementCount(t) > kKeepValuesUpTo) {
      t.clear_raw_data();
      t.clear_float_data();
      t.clear_double_data();
      t.clear_int32_data();  // FLOAT16 and BFLOAT16 values live here
    }
  }
  std::unordered_set<std::string> available;
  for (const auto& in : g->input()) available.insert(in.name());
  for (const auto& t : g->initializer()) {
    available.insert(t.name());
    initializers_[t.name()] = &t;
  }
  const int n = g->node_size();
  for (int i = 0; i < n; ++i) {
    const auto& node = g->node(i);
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      if (producer_.count(out) || initializers_.count(out))
        fail(nodeLabel(node, i), "output '" + out + "' is produced twice");
      producer_[out] = i;
      available.insert(out);
    }
  }
  // Edges between nodes, and a Kahn order (ONNX asks writers for a sorted node list; we do not
  // rely on it, and shape inference needs one).
  std::vector<std::vector<int>> consumers(n);
  std::vector<int> indegree(n, 0);
  for (int i = 0; i < n; ++i) {
    const auto& node = g->node(i);
    std::set<int> preds;
    for (const auto& in : node.input()) {
      if (in.empty()) continue;  // an optional input left out
      if (!available.count(in))
        fail(nodeLabel(node, i),
             "input '" + in + "' is not produced by any node, initializer or graph input");
      auto p = producer_.find(in);
      if (p != producer_.end() && !initializers_.count(in)) preds.insert(p->second);
    }
    for (int p : preds) {
      if (p == i) fail(nodeLabel(node, i), "the node consumes its own output (a cycle)");
      consumers[p].push_back(i);
      ++indegree[i];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int v = ready.top();
    ready.pop();
    order.push_back(v);
    for (int w : consumers[v])
      if (--indegree[w] == 0) ready.push(w);
  }
  if (static_cast<int>(order.size()) < n) {
    // Walk back along unfinished producers from any node left: that reaches a cycle.
    int v = 0;
    while (indegree[v] == 0) ++v;
    std::vector<int> seen(n, -1), path;
    while (seen[v] < 0) {
      seen[v] = static_cast<int>(path.size());
      path.push_back(v);
      const auto& node = g->node(v);
      for (const auto& in : node.input()) {
        auto p = producer_.find(in);
        if (p != producer_.end() && indegree[p->second] > 0 && !initializers_.count(in)) {
          v = p->second;
          break;
        }
      }
    }
    // The walk went from consumers to producers: print it the way data flows, closing the loop.
    auto name = [&](int k) {
      const auto& nd = g->node(k);
      return nd.name().empty() ? nd.op_type() : nd.name();
    };
    std::string cycle;
    for (size_t k = path.size(); k-- > static_cast<size_t>(seen[v]);)
      cycle += name(path[k]) + " -> ";
    cycle += name(path.back());
    fail(nodeLabel(g->node(v), v), "the graph has a cycle: " + cycle);
  }
  bool sorted = true;
  for (int i = 0; i < n; ++i) sorted = sorted && order[i] == i;
  if (!sorted) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (int i : order) *nodes.Add() = g->node(i);
    g->mutable_node()->Swap(&nodes);
    producer_.clear();
    for (int i = 0; i < n; ++i)
      for (const auto& out : g->node(i).output())
        if (!out.empty()) producer_[out] = i;
  }
}

void Importer::checkAttributes() const {
  const auto& g = model_.graph();
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& node = g.node(i);
    for (const auto& a : node.attribute()) {
      const std::string& name = a.name();
      const bool positive = name == "strides" || name == "dilations" || name == "kernel_shape";
      if ((positive || name == "pads") && a.type() == onnx::AttributeProto::INTS) {
        const int64_t least = positive ? 1 : 0;
        for (int64_t v : a.ints())
          if (v < least)
            fail(nodeLabel(node, i), "attribute " + name + ": every value must be at least " +
                                         std::to_string(least) + " (got " + std::to_string(v) +
                                         ")");
      }
      if (name == "group" && a.type() == onnx::AttributeProto::INT && a.i() < 1)
        fail(nodeLabel(node, i),
             "attribute group must be at least 1 (got " + std::to_string(a.i()) + ")");
    }
  }
}

void Importer::checkDims(const std::string& where, const std::string& tensor,
                         const std::vector<int64_t>& dims) const {
  int64_t elements = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string which = "tensor '" + tensor + "' dimension " + std::to_string(d);
    if (dims[d] < 0) fail(where, which + " is negative (" + std::to_string(dims[d]) + ")");
    if (dims[d] > kMaxDimension)
      fail(where, which + " is " + std::to_string(dims[d]) +
                      ", beyond 2^40 (the most --dim binds, and what FLOP counts stay exact for)");
    if (dims[d] > 0 && elements > kMaxElements / dims[d])
      fail(where, "tensor '" + tensor + "' has more than 2^50 elements (a petabyte of floats)");
    elements *= dims[d];
  }
}

void Importer::checkDeclaredShapes() const {
  const auto& g = model_.graph();
  auto check = [&](const onnx::ValueInfoProto& vi, const char* kind) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& dim : vi.type().tensor_type().shape().dim())
      if (dim.has_dim_value()) dims.push_back(dim.dim_value());
    checkDims(std::string(kind) + " '" + vi.name() + "'", vi.name(), dims);
  };
  for (const auto& vi : g.input()) check(vi, "graph input");
  for (const auto& vi : g.output()) check(vi, "graph output");
  for (const auto& vi : g.value_info()) check(vi, "value_info");
  for (const auto& t : g.initializer())
    checkDims("initializer '" + t.name() + "'", t.name(),
              std::vector<int64_t>(t.dims().begin(), t.dims().end()));
}

void Importer::bindDims() {
  std::set<std::string> known, ofInputs;  // every dimension name; those of the graph inputs
  auto bind = [&](onnx::ValueInfoProto& vi, bool input) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    auto* shape = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (auto& dim : *shape->mutable_dim()) {
      if (!dim.has_dim_param()) continue;
      known.insert(dim.dim_param());
      if (input) ofInputs.insert(dim.dim_param());
      auto it = opts_.dims.find(dim.dim_param());
      if (it != opts_.dims.end()) dim.set_dim_value(it->second);
    }
  };
  auto* g = model_.mutable_graph();
  for (auto& vi : *g->mutable_input()) bind(vi, !initializers_.count(vi.name()));
  for (auto& vi : *g->mutable_output()) bind(vi, false);
  for (auto& vi : *g->mutable_value_info()) bind(vi, false);
  for (const auto& [name, value] : opts_.dims) {
    if (value <= 0 || value > kMaxDimension)
      fail("--dim " + name,
           "must be a positive integer up to 2^40 (got " + std::to_string(value) + ")");
    if (!known.count(name)) {
      std::string names;
      for (const auto& k : ofInputs) names += (names.empty() ? "" : ", ") + k;
      fail("--dim " + name, "the model has no dimension named '" + name + "'" +
                                (names.empty() ? " (it has no dynamic dimensions)"
                                               : " (its dynamic dimensions: " + names + ")"));
    }
  }
}

void Importer::inferShapes() {
  // Data propagation lets Reshape targets computed by Shape -> Gather -> Concat chains (common in
  // PyTorch exports with dynamic axes) resolve to numbers.
  // Type checks and errors on: a model whose declared shapes contradict its ops (a MatMul of
  // [4,8] by [9,16], a Concat on axis 99 of a rank-4 tensor) is refused, not taken as declared.
  onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1,
                                      /*enable_data_propagation=*/true);
  // Shape arithmetic that ONNX cannot resolve is folded into Constant nodes and inference runs
  // again: each pass can resolve one more layer of a deep export, so a model whose shapes are
  // all known at once (the common case) takes one pass, plus the final fold.
  try {
    for (int pass = 0; pass < kMaxInferencePasses; ++pass) {
      onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), options);
      if (allShapesKnown() || replaceFoldedNodes() == 0) break;
    }
    replaceFoldedNodes();  // what inference resolved alone folds too: it is not a kernel
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    std::string what = e.what();
    what.erase(std::remove(what.begin(), what.end(), '\n'), what.end());
    fail("shape inference", what);
  }
}

bool Importer::allShapesKnown() const {
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  const auto& g = model_.graph();
  for (const auto& vi : g.value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : g.output()) types.emplace(vi.name(), &vi.type());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      auto it = types.find(o);
      if (it == types.end() || !it->second->has_tensor_type() ||
          !it->second->tensor_type().has_shape())
        return false;
      for (const auto& d : it->second->tensor_type().shape().dim())
        if (!d.has_dim_value()) return false;
    }
  return true;
}

int Importer::replaceFoldedNodes() {
  auto folded = onnx_import::foldShapeArithmetic(model_);
  int replaced = 0;
  for (auto& node : *model_.mutable_graph()->mutable_node()) {
    if (node.op_type() == "Constant" || node.output_size() != 1) continue;
    auto it = folded.find(node.output(0));
    if (it == folded.end()) continue;
    node.clear_input();
    node.clear_attribute();
    node.clear_domain();
    node.set_op_type("Constant");
    auto* value = node.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = std::move(it->second);
    ++replaced;
  }
  foldedNodes_ += replaced;
  return replaced;
}

void Importer::collectTensors() {
  const auto& g = model_.graph();
  for (const auto& vi : g.input()) types_[vi.name()] = &vi.type();
  for (const auto& vi : g.value_info()) types_[vi.name()] = &vi.type();
  for (const auto& vi : g.output()) types_.emplace(vi.name(), &vi.type());
}

// A tensor's shape and element size, refusing one that is not fully known.
const Tensor& Importer::tensor(const std::string& name, const std::string& where) {
  auto cached = tensors_.find(name);
  if (cached != tensors_.end()) return cached->second;
  Tensor t;
  if (auto init = initializers_.find(name); init != initializers_.end()) {
    t.dims.assign(init->second->dims().begin(), init->second->dims().end());
    t.element_bytes = elementBytes(init->second->data_type());
  } else {
    auto it = types_.find(name);
    if (it == types_.end() || !it->second->has_tensor_type() ||
        !it->second->tensor_type().has_shape())
      fail(where, "the shape of tensor '" + name +
                      "' is unknown (shape inference could not derive it; is the op supported?)");
    const auto& tt = it->second->tensor_type();
    t.element_bytes = elementBytes(tt.elem_type());
    const auto& shape = tt.shape();
    for (int d = 0; d < shape.dim_size(); ++d) {
      const auto& dim = shape.dim(d);
      if (dim.has_dim_value()) {
        t.dims.push_back(dim.dim_value());
      } else if (dim.has_dim_param()) {
        fail(where, "tensor '" + name + "' dimension " + std::to_string(d) + " '" +
                        dim.dim_param() + "' is unknown: bind it with --dim " + dim.dim_param() +
                        "=N");
      } else {
        fail(where, "tensor '" + name + "' dimension " + std::to_string(d) +
                        " is unknown (shape inference could not derive it)");
      }
    }
  }
  // Inferred shapes too: inference multiplies what the model declares.
  checkDims(where, name, t.dims);
  if (opts_.dtype_bytes > 0) t.element_bytes = opts_.dtype_bytes;
  return tensors_.emplace(name, std::move(t)).first->second;
}

// Integer and boolean initializers (shapes, axes, indices) and scalars are constants, not weights:
// they cost nothing to place and would crowd the graph.
bool Importer::isConstant(const onnx::TensorProto& t) const {
  return !isFloating(t.data_type()) || elementCount(t) <= 1;
}

// A node id not yet in the graph: the name itself, else name#2, name#3, ... `next` remembers the
// last suffix per name, so thousands of nodes sharing one name stay linear.
std::string uniqueId(const DataflowGraph& g, const std::string& id,
                     std::unordered_map<std::string, int>& next) {
  if (!g.find(id)) return id;
  for (int& k = next.try_emplace(id, 2).first->second;; ++k) {
    std::string candidate = id + "#" + std::to_string(k);
    if (!g.find(candidate)) return candidate;
  }
}

DataflowGraph Importer::build(OnnxImportReport* report) {
  const auto& g = model_.graph();
  DataflowGraph out;
  // Exporters name every graph alike ("torch_jit", "main_graph"): the file says more.
  const bool generic = g.name().empty() || g.name() == "torch_jit" || g.name() == "main_graph" ||
                       g.name() == "torch-jit-export";
  out.name = generic && !file_.empty() ? std::filesystem::path(file_).stem().string() : g.name();
  std::unordered_map<std::string, int> nodeOf;    // tensor -> dataflow node producing it
  std::unordered_map<std::string, int> suffixes;  // uniqueId's next suffix per name
  OnnxImportReport rep;
  rep.ir_version = model_.ir_version();
  rep.opset = opset_;
  rep.folded_nodes = foldedNodes_;
  rep.producer = model_.producer_name() +
                 (model_.producer_version().empty() ? "" : " " + model_.producer_version());

  for (const auto& in : g.input()) {
    if (initializers_.count(in.name())) continue;  // old exporters list weights as inputs too
    const Tensor& t = tensor(in.name(), "graph input '" + in.name() + "'");
    Node node;
    node.id = uniqueId(out, in.name().empty() ? "input" : in.name(), suffixes);
    node.op = "input";
    node.output_bytes = t.bytes();
    nodeOf[in.name()] = out.addNode(std::move(node));
    ++rep.input_nodes;
  }
  // Constant nodes holding a weight-like tensor are weights; the others (shapes, scalars) vanish.
  std::unordered_set<int> constantNodes;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (n.op_type() != "Constant" || n.output_size() != 1) continue;
    constantNodes.insert(i);
    for (const auto& a : n.attribute())
      if (a.name() == "value" && a.has_t() && !isConstant(a.t()))
        initializers_.emplace(n.output(0), &a.t());  // joins the graph like an initializer
  }

  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (constantNodes.count(i)) continue;
    const std::string where = nodeLabel(n, i);
    onnx_import::OpView view;
    view.op = n.op_type();
    for (const auto& a : n.attribute()) {
      if (a.type() == onnx::AttributeProto::INT) view.ints[a.name()] = {a.i()};
      if (a.type() == onnx::AttributeProto::INTS)
        view.ints[a.name()].assign(a.ints().begin(), a.ints().end());
      if (a.type() == onnx::AttributeProto::FLOAT) view.floats[a.name()] = a.f();
    }
    // Weights join the graph just before their first consumer, so a group keeps its weights.
    std::vector<std::pair<int, double>> preds;  // (dataflow node, bytes)
    std::set<std::string> seenTensors;
    for (const auto& in : n.input()) {
      if (in.empty()) {
        view.inputs.push_back(nullptr);
        continue;
      }
      const Tensor& t = tensor(in, where);
      view.inputs.push_back(&t);
      auto src = nodeOf.find(in);
      if (src == nodeOf.end()) {
        auto init = initializers_.find(in);
        if (init == initializers_.end() || isConstant(*init->second)) continue;
        Node w;
        w.id = uniqueId(out, in, suffixes);
        w.op = "input";
        w.output_bytes = t.bytes();
        src = nodeOf.emplace(in, out.addNode(std::move(w))).first;
        ++rep.weight_nodes;
        if (init->second->data_location() == onnx::TensorProto::EXTERNAL) rep.external_data = true;
      }
      // One edge per producer: a second tensor of a multi-output producer adds its bytes, the
      // same tensor read twice (Mul(x, x)) travels once.
      if (!seenTensors.insert(in).second) continue;
      auto same = std::find_if(preds.begin(), preds.end(),
                               [&](const auto& p) { return p.first == src->second; });
      if (same == preds.end())
        preds.emplace_back(src->second, t.bytes());
      else
        same->second += t.bytes();
    }
    double outBytes = 0;
    for (const auto& o : n.output()) {
      if (o.empty()) {
        view.outputs.push_back(nullptr);
        continue;
      }
      const Tensor& t = tensor(o, where);
      view.outputs.push_back(&t);
      outBytes += t.bytes();
    }
    const onnx_import::OpCost cost = onnx_import::opCost(view);
    if (cost.rule == onnx_import::CostRule::OutputBytes) ++rep.costed_by_output_bytes[n.op_type()];
    Node node;
    node.id = uniqueId(out, n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name(),
                       suffixes);
    node.op = n.op_type();
    std::transform(node.op.begin(), node.op.end(), node.op.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    node.flops = cost.flops;
    node.memory_bytes = cost.memory_bytes;
    node.output_bytes = outBytes;
    const int v = out.addNode(std::move(node));
    ++rep.op_nodes;
    for (const auto& [src, bytes] : preds) out.addEdge(Edge{src, v, bytes, std::nullopt});
    for (const auto& o : n.output())
      if (!o.empty()) nodeOf[o] = v;
  }
  if (report) *report = std::move(rep);
  return out;
}

DataflowGraph Importer::run(std::string_view bytes, OnnxImportReport* report) {
  parse(bytes);
  checkOpset();
  checkStructure();
  checkAttributes();
  bindDims();
  checkDeclaredShapes();
  inferShapes();
  collectTensors();
  return build(report);
}

}  // namespace

std::string OnnxImportReport::fallbackLine() const {
  if (costed_by_output_bytes.empty()) return {};
  std::string s = "costed by output bytes (no FLOP formula):";
  for (const auto& [op, count] : costed_by_output_bytes)
    s += " " + op + " x" + std::to_string(count) + ",";
  s.pop_back();
  return s;
}

DataflowGraph importOnnx(std::string_view bytes, const OnnxImportOptions& opts,
                         const std::string& file, OnnxImportReport* report) {
  Importer importer(opts, file);
  try {
    return importer.run(bytes, report);
  } catch (const InputError& e) {
    throw e.file().empty() ? e.inFile(file) : e;  // the graph's own checks know no file
  } catch (const std::exception& e) {             // protobuf or ONNX throwing on a malformed model
    throw InputError(file, "", std::string("not a valid ONNX model: ") + e.what());
  }
}

DataflowGraph importOnnxFile(const std::string& path, const OnnxImportOptions& opts,
                             OnnxImportReport* report) {
  return importOnnx(readTextFile(path, opts.max_bytes), opts, path, report);
}

std::vector<OnnxDynamicDim> onnxDynamicDims(const std::string& path) {
  const std::string bytes = readTextFile(path, std::size_t(2) << 30);
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InputError(path, "", "not a valid ONNX model: the protobuf is truncated or malformed");
  std::vector<OnnxDynamicDim> dims;
  std::set<std::string> seen;
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  for (const auto& in : model.graph().input()) {
    if (inits.count(in.name()) || !in.type().has_tensor_type()) continue;
    for (const auto& d : in.type().tensor_type().shape().dim())
      if (d.has_dim_param() && seen.insert(d.dim_param()).second)
        dims.push_back({d.dim_param(), in.name()});
  }
  return dims;
}

bool looksLikeOnnx(const std::string& path, std::string_view head) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) return true;
  // A ModelProto starts with field 1 (ir_version, varint: tag byte 0x08) then a small version.
  return head.size() >= 2 && head[0] == '\x08' && static_cast<unsigned char>(head[1]) < 0x20;
}

}  // namespace doppler

#include "core/graph/onnx_shape_folding.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_set>
#include <vector>

namespace doppler::onnx_import {
namespace {

// A small tensor's values (integers held exactly in doubles) and dimensions.
struct Value {
  std::vector<int64_t> dims;
  std::vector<double> data;
  bool integral = true;  // from the element type: integer Div truncates, float Div does not
};

// Doubles back to int64, saturating: INT64_MAX ("to the end" in Slice) is 2^63 as a double, and
// casting that back is undefined.
int64_t toInt(double x) {
  if (!(x == x)) return 0;
  if (x >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (x <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}

// The element count of dims, or nullopt when a dimension is negative or the count passes
// kMaxElements (also guards against overflow).
std::optional<size_t> countOf(const std::vector<int64_t>& dims);

// A value is well formed when its dims describe exactly its data.
bool consistent(const Value& v) {
  auto n = countOf(v.dims);
  return n && *n == v.data.size();
}

constexpr size_t kMaxElements = 4096;  // shape arithmetic is tiny; anything larger is data

std::optional<size_t> countOf(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > kMaxElements / static_cast<size_t>(d))) return std::nullopt;
    n *= static_cast<size_t>(d);
  }
  return n;
}

bool isIntegral(int type) {
  return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 ||
         type == onnx::TensorProto::INT16 || type == onnx::TensorProto::INT8 ||
         type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::BOOL;
}

std::optional<Value> fromTensor(const onnx::TensorProto& t) {
  Value v;
  v.dims.assign(t.dims().begin(), t.dims().end());
  const auto count = countOf(v.dims);
  if (!count) return std::nullopt;
  const size_t n = *count;
  v.integral = isIntegral(t.data_type());
  const std::string& raw = t.raw_data();
  auto readRaw = [&](size_t width, auto convert) -> bool {
    if (raw.size() != n * width) return false;
    for (size_t i = 0; i < n; ++i) v.data.push_back(convert(raw.data() + i * width));
    return true;
  };
  switch (t.data_type()) {
    case onnx::TensorProto::INT64:
      if (!raw.empty())
        return readRaw(8,
                       [](const char* p) {
                         int64_t x;
                         std::memcpy(&x, p, 8);
                         return static_cast<double>(x);
                       })
                   ? std::optional(v)
                   : std::nullopt;
      for (int64_t x : t.int64_data()) v.data.push_back(static_cast<double>(x));
      break;
    case onnx::TensorProto::INT32:
      if (!raw.empty())
        return readRaw(4,
                       [](const char* p) {
                         int32_t x;
                         std::memcpy(&x, p, 4);
                         return static_cast<double>(x);
                       })
                   ? std::optional(v)
                   : std::nullopt;
      for (int32_t x : t.int32_data()) v.data.push_back(x);
      break;
    case onnx::TensorProto::FLOAT:
      if (!raw.empty())
        return readRaw(4,
                       [](const char* p) {
                         float x;
                         std::memcpy(&x, p, 4);
                         return static_cast<double>(x);
                       })
                   ? std::optional(v)
                   : std::nullopt;
      for (float x : t.float_data()) v.data.push_back(x);
      break;
    default:
      return std::nullopt;
  }
  if (v.data.size() != n) return std::nullopt;
  return v;
}

size_t count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// Elementwise with broadcasting of equal shapes or a one-element side.
// Broadcasting is limited to equal shapes or a one-element side (all shape arithmetic needs).
std::optional<Value> binary(const Value& a, const Value& b,
                            const std::function<std::optional<double>(double, double)>& f) {
  const size_t na = a.data.size(), nb = b.data.size();
  if (na == 0 || nb == 0) return std::nullopt;
  if (!(a.dims == b.dims || na == 1 || nb == 1)) return std::nullopt;
  Value out;
  out.integral = a.integral && b.integral;
  out.dims = na >= nb ? a.dims : b.dims;
  if (na == nb && a.dims.size() < b.dims.size()) out.dims = b.dims;
  for (size_t i = 0; i < std::max(na, nb); ++i) {
    auto r = f(a.data[na == 1 ? 0 : i], b.data[nb == 1 ? 0 : i]);
    if (!r) return std::nullopt;
    out.data.push_back(*r);
  }
  return out;
}

int64_t attrInt(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
  return fallback;
}

std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

std::vector<int64_t> asInts(const Value& v) {
  std::vector<int64_t> out;
  for (double x : v.data) out.push_back(toInt(x));
  return out;
}

class Folder {
 public:
  explicit Folder(const onnx::ModelProto& m) : model_(m) {
    const auto& g = m.graph();
    for (const auto& vi : g.input()) types_[vi.name()] = &vi.type();
    for (const auto& vi : g.value_info()) types_[vi.name()] = &vi.type();
    for (const auto& vi : g.output()) types_.emplace(vi.name(), &vi.type());
    for (const auto& t : g.initializer())
      if (auto v = fromTensor(t)) values_[t.name()] = *v;
  }

  // Evaluates every node it can, in order (the node list is sorted), and returns the value of
  // each node output it computed whose type is integral (or unknown).
  std::unordered_map<std::string, onnx::TensorProto> run() {
    std::unordered_map<std::string, onnx::TensorProto> out;
    for (const auto& n : model_.graph().node()) {
      if (n.output_size() != 1 || n.output(0).empty() || values_.count(n.output(0))) continue;
      std::optional<Value> v;
      try {
        v = eval(n);
      } catch (const std::exception&) {
        v.reset();  // anything odd: leave it to shape inference
      }
      if (!v || v->data.size() > kMaxElements || !consistent(*v)) continue;
      values_[n.output(0)] = *v;
      if (n.op_type() == "Constant") continue;
      int type = onnx::TensorProto::INT64;
      if (auto t = types_.find(n.output(0));
          t != types_.end() && t->second->has_tensor_type() && t->second->tensor_type().elem_type())
        type = t->second->tensor_type().elem_type();
      if (!isIntegral(type)) continue;  // float arithmetic on shapes stays a node
      onnx::TensorProto t;
      t.set_name(n.output(0));
      t.set_data_type(type == onnx::TensorProto::BOOL || type == onnx::TensorProto::INT32 ||
                              type == onnx::TensorProto::INT64
                          ? type
                          : onnx::TensorProto::INT64);
      for (int64_t d : v->dims) t.add_dims(d);
      for (double x : v->data) {
        if (t.data_type() == onnx::TensorProto::INT64)
          t.add_int64_data(toInt(x));
        else
          t.add_int32_data(static_cast<int32_t>(x));
      }
      out.emplace(n.output(0), std::move(t));
    }
    return out;
  }

 private:
  const Value* in(const onnx::NodeProto& n, int i) const {
    if (i >= n.input_size() || n.input(i).empty()) return nullptr;
    auto it = values_.find(n.input(i));
    return it == values_.end() ? nullptr : &it->second;
  }

  // The fully known shape of a tensor, from inference.
  std::optional<std::vector<int64_t>> shapeOf(const std::string& name) const {
    auto it = types_.find(name);
    if (it == types_.end() || !it->second->has_tensor_type() ||
        !it->second->tensor_type().has_shape())
      return std::nullopt;
    std::vector<int64_t> dims;
    for (const auto& d : it->second->tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return std::nullopt;
      dims.push_back(d.dim_value());
    }
    return dims;
  }

  std::optional<Value> eval(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") {
      for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.has_t()) return fromTensor(a.t());
        if (a.name() == "value_int") return Value{{}, {static_cast<double>(a.i())}};
        if (a.name() == "value_ints") {
          Value v{{a.ints_size()}, {}};
          for (int64_t x : a.ints()) v.data.push_back(static_cast<double>(x));
          return v;
        }
      }
      return std::nullopt;
    }
    if ((op == "Shape" || op == "Size") && n.input_size() < 1) return std::nullopt;
    if (op == "Shape") {
      auto dims = shapeOf(n.input(0));
      if (!dims) return std::nullopt;
      const int64_t r = static_cast<int64_t>(dims->size());
      int64_t start = attrInt(n, "start", 0), end = attrInt(n, "end", r);
      if (start < 0) start += r;
      if (end < 0) end += r;
      start = std::clamp<int64_t>(start, 0, r);
      end = std::clamp<int64_t>(end, start, r);
      Value v{{end - start}, {}};
      for (int64_t i = start; i < end; ++i) v.data.push_back(static_cast<double>((*dims)[i]));
      return v;
    }
    if (op == "Size") {
      auto dims = shapeOf(n.input(0));
      if (!dims) return std::nullopt;
      return Value{{}, {static_cast<double>(count(*dims))}};
    }
    const Value* a = in(n, 0);
    if (!a) return std::nullopt;
    if (op == "Identity") return *a;
    if (op == "Cast") {
      Value v = *a;
      const int to = static_cast<int>(attrInt(n, "to", 1));
      v.integral = isIntegral(to);
      for (double& x : v.data) {
        if (to == onnx::TensorProto::BOOL)
          x = x != 0;
        else if (v.integral)
          x = std::trunc(x);
      }
      return v;
    }
    if (op == "Neg") {
      Value v = *a;
      for (double& x : v.data) x = -x;
      return v;
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
      std::vector<int64_t> axes;
      if (auto at = attrInts(n, "axes"))
        axes = *at;
      else if (const Value* ax = in(n, 1))
        axes = asInts(*ax);
      Value v = *a;
      // Axes are normalised against the output rank (Unsqueeze) or the input rank (Squeeze);
      // any out of range or repeated makes the node not foldable.
      const int64_t r =
          static_cast<int64_t>(op == "Unsqueeze" ? a->dims.size() + axes.size() : a->dims.size());
      for (int64_t& x : axes) {
        if (x < -r || x >= r) return std::nullopt;
        if (x < 0) x += r;
      }
      std::sort(axes.begin(), axes.end());
      if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
      if (op == "Unsqueeze") {
        for (int64_t x : axes) v.dims.insert(v.dims.begin() + x, 1);
      } else {
        std::vector<int64_t> dims;
        for (int64_t i = 0; i < r; ++i) {
          const bool listed = std::binary_search(axes.begin(), axes.end(), i);
          if (listed && a->dims[i] != 1) return std::nullopt;  // only dimensions of 1 squeeze
          if (!(listed || (axes.empty() && a->dims[i] == 1))) dims.push_back(a->dims[i]);
        }
        v.dims = dims;
      }
      return v;
    }
    if (op == "Gather") {
      const Value* idx = in(n, 1);
      if (!idx || a->dims.size() != 1 || attrInt(n, "axis", 0) != 0) return std::nullopt;
      Value v{idx->dims, {}};
      const int64_t len = a->dims[0];
      for (double x : idx->data) {
        int64_t i = toInt(x);
        if (i < 0) i += len;
        if (i < 0 || i >= len) return std::nullopt;
        v.data.push_back(a->data[i]);
      }
      return v;
    }
    if (op == "Concat") {
      Value v{{0}, {}};
      for (int i = 0; i < n.input_size(); ++i) {
        const Value* x = in(n, i);
        if (!x || x->dims.size() > 1) return std::nullopt;
        v.data.insert(v.data.end(), x->data.begin(), x->data.end());
      }
      v.dims[0] = static_cast<int64_t>(v.data.size());
      return v;
    }
    if (op == "Slice" && a->dims.size() == 1) {
      const Value* s = in(n, 1);
      const Value* e = in(n, 2);
      if (!s || !e) return std::nullopt;
      const Value* st = in(n, 4);
      const int64_t len = a->dims[0];
      int64_t start = toInt(s->data.at(0)), end = toInt(e->data.at(0));
      const int64_t step = st ? toInt(st->data.at(0)) : 1;
      if (step != 1) return std::nullopt;
      if (start < 0) start += len;
      if (end < 0) end += len;
      start = std::clamp<int64_t>(start, 0, len);
      end = std::clamp<int64_t>(end, start, len);
      Value v{{end - start}, {}};
      for (int64_t i = start; i < end; ++i) v.data.push_back(a->data[i]);
      return v;
    }
    if (op == "ReduceProd" || op == "ReduceSum") {
      if (a->dims.size() > 1) return std::nullopt;
      double r = op == "ReduceProd" ? 1 : 0;
      for (double x : a->data) r = op == "ReduceProd" ? r * x : r + x;
      const bool keep = attrInt(n, "keepdims", 1) && !a->dims.empty();
      return Value{keep ? std::vector<int64_t>{1} : std::vector<int64_t>{}, {r}, a->integral};
    }
    const Value* b = in(n, 1);
    if (!b) return std::nullopt;
    if (op == "Range") {
      const Value* c = in(n, 2);
      if (!c || a->data.size() != 1 || b->data.size() != 1 || c->data.size() != 1 ||
          c->data[0] == 0)
        return std::nullopt;
      const double start = a->data[0], limit = b->data[0], delta = c->data[0];
      const double steps = std::max(0.0, std::ceil((limit - start) / delta));
      if (steps > kMaxElements) return std::nullopt;
      Value v{{static_cast<int64_t>(steps)}, {}};
      for (int64_t i = 0; i < static_cast<int64_t>(steps); ++i) v.data.push_back(start + i * delta);
      return v;
    }
    if (op == "Add") return binary(*a, *b, [](double x, double y) { return x + y; });
    if (op == "Sub") return binary(*a, *b, [](double x, double y) { return x - y; });
    if (op == "Mul") return binary(*a, *b, [](double x, double y) { return x * y; });
    if (op == "Div")
      return binary(*a, *b, [&](double x, double y) -> std::optional<double> {
        if (y == 0) return std::nullopt;
        // Integer tensors divide with truncation, as ONNX's integer Div does (by type).
        return a->integral && b->integral ? std::trunc(x / y) : x / y;
      });
    if (op == "Max") return binary(*a, *b, [](double x, double y) { return std::max(x, y); });
    if (op == "Min") return binary(*a, *b, [](double x, double y) { return std::min(x, y); });
    if (op == "Equal") return binary(*a, *b, [](double x, double y) { return double(x == y); });
    if (op == "Where") {
      const Value* c = in(n, 2);
      if (!c || a->data.size() != b->data.size() || b->data.size() != c->data.size())
        return std::nullopt;
      Value v = *b;
      for (size_t i = 0; i < v.data.size(); ++i)
        v.data[i] = a->data[i] != 0 ? b->data[i] : c->data[i];
      return v;
    }
    return std::nullopt;
  }

  const onnx::ModelProto& model_;
  std::unordered_map<std::string, const onnx::TypeProto*> types_;
  std::unordered_map<std::string, Value> values_;
};

}  // namespace

std::unordered_map<std::string, onnx::TensorProto> foldShapeArithmetic(
    const onnx::ModelProto& model) {
  return Folder(model).run();
}

}  // namespace doppler::onnx_import

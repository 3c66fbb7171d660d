#include "core/sim/assignment_io.h"

#include "core/common/input_error.h"
#include "core/graph/json_access.h"

namespace doppler {

using nlohmann::json;
using namespace json_access;

namespace {

// An order: an array listing every node once, by id (or by index).
std::vector<int> parseOrder(const json& j, const std::string& field, const DataflowGraph& g) {
  if (!j.is_array())
    throw InputError("", field, "expected an array of node ids, found " + typeName(j));
  const int n = g.nodeCount();
  std::vector<int> order, seen(n, -1);
  order.reserve(j.size());
  for (size_t k = 0; k < j.size(); ++k) {
    const std::string path = field + "[" + std::to_string(k) + "]";
    int v = -1;
    if (j[k].is_string()) {
      auto found = g.find(j[k].get<std::string>());
      if (!found)
        throw InputError("", path,
                         "unknown node '" + j[k].get<std::string>() + "' (not in the graph)");
      v = *found;
    } else {
      v = integerIndex(j[k], path);
      if (v < 0 || v >= n)
        throw InputError("", path,
                         "node index " + std::to_string(v) + " does not exist (the graph has " +
                             std::to_string(n) + " nodes)");
    }
    if (seen[v] >= 0)
      throw InputError("", path,
                       "node '" + g.node(v).id + "' is listed twice (also at " + field + "[" +
                           std::to_string(seen[v]) + "])");
    seen[v] = static_cast<int>(k);
    order.push_back(v);
  }
  for (int v = 0; v < n; ++v)
    if (seen[v] < 0)
      throw InputError("", field,
                       "lists " + std::to_string(order.size()) + " of the graph's " +
                           std::to_string(n) + " nodes; node '" + g.node(v).id + "' is missing");
  return order;
}

}  // namespace

AssignmentFile parseAssignmentFile(std::string_view text, const DataflowGraph& g, int devices,
                                   const std::string& file) {
  AssignmentFile out;
  try {
    json root = parse(text);
    out.assignment = parseAssignment(text, g, devices);
    // Only the wrapped form has room for an order: in a bare {node: device} object, "order"
    // would be a node id.
    if (root.is_object() && root.contains("assignment")) {
      for (const char* field : {"execution_order", "order"})
        if (root.contains(field)) {
          out.order = parseOrder(root[field], field, g);
          out.order_field = field;
          break;
        }
    }
  } catch (const InputError& e) {
    throw e.inFile(file);
  }
  return out;
}

Assignment parseAssignment(std::string_view text, const DataflowGraph& g, int devices,
                           const std::string& file) {
  try {
    json root = parse(text);
    const json* body = &root;
    std::string base;
    if (root.is_object() && root.contains("assignment")) {
      body = &root["assignment"];
      base = "assignment";
    }
    const int n = g.nodeCount();
    Assignment a(n, -1);
    auto device = [&](const json& j, const std::string& path, const std::string& node) {
      int d = integerIndex(j, path);
      if (d < 0 || d >= devices)
        throw InputError("", path,
                         "node '" + node + "' is on device " + std::to_string(d) +
                             ", which does not exist (devices 0.." + std::to_string(devices - 1) +
                             ")");
      return d;
    };
    if (body->is_array()) {
      if (static_cast<int>(body->size()) != n)
        throw InputError("", base.empty() ? "top level" : base,
                         "has " + std::to_string(body->size()) + " entries, the graph has " +
                             std::to_string(n) + " nodes");
      for (int v = 0; v < n; ++v)
        a[v] = device((*body)[v], (base.empty() ? "" : base) + "[" + std::to_string(v) + "]",
                      g.node(v).id);
    } else if (body->is_object()) {
      for (auto it = body->begin(); it != body->end(); ++it) {
        const std::string path = (base.empty() ? "" : base + ".") + it.key();
        auto v = g.find(it.key());
        if (!v) throw InputError("", path, "unknown node '" + it.key() + "' (not in the graph)");
        a[*v] = device(it.value(), path, it.key());
      }
      for (int v = 0; v < n; ++v)
        if (a[v] < 0)
          throw InputError("", base.empty() ? "top level" : base,
                           "node '" + g.node(v).id + "' has no device");
    } else {
      throw InputError(
          "", base.empty() ? "top level" : base,
          "expected an object {node id: device} or an array of devices, found " + typeName(*body));
    }
    return a;
  } catch (const InputError& e) {
    throw e.inFile(file);
  }
}

}  // namespace doppler

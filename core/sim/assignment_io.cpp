#include "core/sim/assignment_io.h"

#include "core/graph/input_error.h"
#include "core/graph/json_access.h"

namespace doppler {

using nlohmann::json;
using namespace json_access;

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

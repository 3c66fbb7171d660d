// dataflow-graph/1 and device-set/1 JSON, read and written with nlohmann-json. A coarsened graph
// also carries its members and its fine graph (docs/formats.md, "Groups (coarsened graphs)").
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/common/input_error.h"
#include "core/graph/coarsening.h"
#include "core/graph/graph_io.h"
#include "core/graph/json_access.h"

namespace doppler {

using nlohmann::json;
using namespace json_access;

namespace {

void checkFormat(const json& root, const char* expected) {
  if (!root.is_object())
    throw InputError("", "top level", "expected a JSON object, found " + typeName(root));
  auto it = root.find("format");
  if (it == root.end())
    throw InputError("", "format", std::string("missing; expected \"") + expected + "\"");
  std::string f = string(*it, "format");
  if (f != expected) {
    throw InputError(
        "", "format",
        "is \"" + f + "\", expected \"" + expected + "\"" +
            (f.rfind("device-set", 0) == 0       ? " (this is a device file, not a graph)"
             : f.rfind("dataflow-graph", 0) == 0 ? " (this is a graph file, not a device set)"
                                                 : ""));
  }
}

// A matrix field that may be one number (every pair) or an n x n array.
std::vector<std::vector<double>> matrixField(const json& j, size_t n, const std::string& path) {
  std::vector<std::vector<double>> m(n, std::vector<double>(n, 0));
  if (j.is_number()) {
    double x = nonNegative(j, path);
    for (auto& row : m) std::fill(row.begin(), row.end(), x);
    return m;
  }
  if (!j.is_array())
    throw InputError("", path, "expected a number or an array of arrays, found " + typeName(j));
  if (j.size() != n)
    throw InputError("", path,
                     "has " + std::to_string(j.size()) + " rows, expected one per device (" +
                         std::to_string(n) + ")");
  for (size_t i = 0; i < n; ++i) {
    const std::string rowPath = path + "[" + std::to_string(i) + "]";
    if (!j[i].is_array())
      throw InputError("", rowPath, "expected an array, found " + typeName(j[i]));
    if (j[i].size() != n)
      throw InputError(
          "", rowPath,
          "has " + std::to_string(j[i].size()) + " entries, expected " + std::to_string(n));
    for (size_t k = 0; k < n; ++k)
      m[i][k] = nonNegative(j[i][k], rowPath + "[" + std::to_string(k) + "]");
  }
  return m;
}

}  // namespace

namespace {

// The nodes and edges of a dataflow-graph/1 object (paths relative to it). `members` collects
// each node's "members" field, or null where a node has none.
DataflowGraph graphFromJson(const json& root, std::vector<const json*>* members) {
  checkFormat(root, "dataflow-graph/1");
  DataflowGraph g;
  if (auto it = root.find("name"); it != root.end()) g.name = string(*it, "name");
  const json& nodes = require(root, "nodes", "");
  if (!nodes.is_array())
    throw InputError("", "nodes", "expected an array, found " + typeName(nodes));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string p = "nodes[" + std::to_string(i) + "]";
    const json& jn = nodes[i];
    if (!jn.is_object()) throw InputError("", p, "expected an object, found " + typeName(jn));
    Node n;
    n.id = string(require(jn, "id", p), p + ".id");
    if (auto it = jn.find("op"); it != jn.end()) n.op = string(*it, p + ".op");
    if (auto it = jn.find("flops"); it != jn.end()) n.flops = nonNegative(*it, p + ".flops");
    if (auto it = jn.find("output_bytes"); it != jn.end())
      n.output_bytes = nonNegative(*it, p + ".output_bytes");
    if (auto it = jn.find("memory_bytes"); it != jn.end())
      n.memory_bytes = nonNegative(*it, p + ".memory_bytes");
    if (auto it = jn.find("compute_us"); it != jn.end()) {
      if (it->is_array()) {
        if (it->empty()) throw InputError("", p + ".compute_us", "is an empty array");
        for (size_t k = 0; k < it->size(); ++k)
          n.compute_us.push_back(
              nonNegative((*it)[k], p + ".compute_us[" + std::to_string(k) + "]"));
      } else {
        n.compute_us.push_back(nonNegative(*it, p + ".compute_us"));
      }
    }
    if (members) {
      auto it = jn.find("members");
      members->push_back(it == jn.end() ? nullptr : &*it);
    }
    g.addNode(std::move(n));
  }
  const json& edges = require(root, "edges", "");
  if (!edges.is_array())
    throw InputError("", "edges", "expected an array, found " + typeName(edges));
  for (size_t i = 0; i < edges.size(); ++i) {
    const std::string p = "edges[" + std::to_string(i) + "]";
    const json& je = edges[i];
    if (!je.is_object()) throw InputError("", p, "expected an object, found " + typeName(je));
    std::string src = string(require(je, "src", p), p + ".src");
    std::string dst = string(require(je, "dst", p), p + ".dst");
    Edge e;
    auto s = g.find(src);
    if (!s) throw InputError("", p + ".src", "unknown node '" + src + "'");
    auto d = g.find(dst);
    if (!d) throw InputError("", p + ".dst", "unknown node '" + dst + "'");
    e.src = *s;
    e.dst = *d;
    if (auto it = je.find("bytes"); it != je.end()) e.bytes = nonNegative(*it, p + ".bytes");
    if (auto it = je.find("transfer_us"); it != je.end())
      e.transfer_us = nonNegative(*it, p + ".transfer_us");
    if (e.src == e.dst) throw InputError("", p, "self loop on node '" + src + "'");
    g.addEdge(e);
  }
  return g;
}

// Equal up to rounding in the last digits (the written sums are read back exactly; a hand edit
// is not).
bool same(double x, double y) {
  return std::abs(x - y) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(y)});
}

std::string show(double x) {
  return json(x).dump();
}

// A coarsened graph: `written` as read from the file, `members` each node's "members" field,
// `fineJson` the "fine" object. Rebuilds the graph from the fine graph and the partition
// (groupGraph) and checks that the written nodes and edges are what the groups make.
DataflowGraph groupedFromJson(const DataflowGraph& written, const std::vector<const json*>& members,
                              const json& fineJson) {
  DataflowGraph fine;
  try {
    if (!fineJson.is_object())
      throw InputError("", "", "expected an object, found " + typeName(fineJson));
    if (fineJson.contains("fine"))
      throw InputError("", "fine", "a fine graph cannot itself have groups");
    std::vector<const json*> fineMembers;
    fine = graphFromJson(fineJson, &fineMembers);
    for (size_t f = 0; f < fineMembers.size(); ++f)
      if (fineMembers[f])
        throw InputError("", "nodes[" + std::to_string(f) + "].members",
                         "a fine graph cannot itself have groups");
    fine.topologicalOrder();  // throws naming a cycle
  } catch (const InputError& e) {
    throw InputError("", e.where().empty() ? "fine" : "fine." + e.where(), e.problem());
  }
  const int n = fine.nodeCount();
  std::vector<int> group_of(n, -1);
  for (int i = 0; i < written.nodeCount(); ++i) {
    const std::string p = "nodes[" + std::to_string(i) + "]";
    if (!members[i])
      throw InputError("", p + ".members",
                       "missing: in a graph with a \"fine\" graph every node lists its members");
    const json& list = *members[i];
    if (!list.is_array())
      throw InputError("", p + ".members", "expected an array, found " + typeName(list));
    if (list.empty()) throw InputError("", p + ".members", "is empty; a group needs a member");
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string mp = p + ".members[" + std::to_string(k) + "]";
      const std::string id = string(list[k], mp);
      auto f = fine.find(id);
      if (!f) throw InputError("", mp, "unknown fine node '" + id + "'");
      if (group_of[*f] >= 0)
        throw InputError("", mp,
                         "fine node '" + id + "' is already a member of nodes[" +
                             std::to_string(group_of[*f]) + "] '" + written.node(group_of[*f]).id +
                             "'");
      group_of[*f] = i;
    }
  }
  for (int f = 0; f < n; ++f)
    if (group_of[f] < 0)
      throw InputError("", "fine.nodes[" + std::to_string(f) + "]",
                       "fine node '" + fine.node(f).id + "' is a member of no group");

  DataflowGraph g;
  try {
    g = groupGraph(fine, std::move(group_of));
  } catch (const InputError& e) {
    // groupGraph names a group ("groups[i]": coarse node i) or a fine node or edge.
    const std::string& w = e.where();
    if (w.rfind("groups[", 0) == 0)
      throw InputError("", "nodes[" + w.substr(7, w.find(']') - 7) + "].members", e.problem());
    throw InputError("", "fine." + w, e.problem());
  }
  g.name = written.name;

  // The written costs and edges must be what the groups make (a hand edit that changed a cost
  // would otherwise be dropped silently). Ids and ops are names: the written ones are kept, so a
  // group can be renamed by hand.
  for (int i = 0; i < g.nodeCount(); ++i) {
    const std::string p = "nodes[" + std::to_string(i) + "]";
    const Node& want = g.node(i);
    const Node& got = written.node(i);
    if (!same(got.flops, want.flops))
      throw InputError("", p + ".flops",
                       "is " + show(got.flops) + ", but its members sum to " + show(want.flops));
    if (!same(got.output_bytes, want.output_bytes))
      throw InputError(
          "", p + ".output_bytes",
          "is " + show(got.output_bytes) + ", but its members sum to " + show(want.output_bytes));
    if (!same(got.memory_bytes, want.memory_bytes))
      throw InputError(
          "", p + ".memory_bytes",
          "is " + show(got.memory_bytes) + ", but its members sum to " + show(want.memory_bytes));
    bool computeSame = got.compute_us.size() == want.compute_us.size();
    for (size_t d = 0; computeSame && d < got.compute_us.size(); ++d)
      computeSame = same(got.compute_us[d], want.compute_us[d]);
    if (!computeSame)
      throw InputError("", p + ".compute_us",
                       "is " + json(got.compute_us).dump() + ", but its members sum to " +
                           json(want.compute_us).dump());
  }
  if (written.edgeCount() != g.edgeCount())
    throw InputError("", "edges",
                     "has " + std::to_string(written.edgeCount()) + " edges, but the groups make " +
                         std::to_string(g.edgeCount()));
  for (int e = 0; e < g.edgeCount(); ++e) {
    const std::string p = "edges[" + std::to_string(e) + "]";
    const Edge& want = g.edge(e);
    const Edge& got = written.edge(e);
    if (got.src != want.src || got.dst != want.dst)
      throw InputError("", p,
                       "is '" + written.node(got.src).id + "' -> '" + written.node(got.dst).id +
                           "', but the groups make '" + g.node(want.src).id + "' -> '" +
                           g.node(want.dst).id + "' here");
    if (!same(got.bytes, want.bytes))
      throw InputError("", p + ".bytes",
                       "is " + show(got.bytes) + ", but the fine edges make " + show(want.bytes));
    if (got.transfer_us.has_value() != want.transfer_us.has_value() ||
        (got.transfer_us && !same(*got.transfer_us, *want.transfer_us)))
      throw InputError("", p + ".transfer_us",
                       (got.transfer_us ? "is " + show(*got.transfer_us) : std::string("missing")) +
                           ", but the fine edges make " +
                           (want.transfer_us ? show(*want.transfer_us) : std::string("none")));
  }
  DataflowGraph named;
  named.name = g.name;
  for (int i = 0; i < g.nodeCount(); ++i) {
    Node n = g.node(i);
    n.id = written.node(i).id;
    n.op = written.node(i).op;
    named.addNode(std::move(n));
  }
  for (const Edge& e : g.edges()) named.addEdge(e);
  named.groups = g.groups;
  return named;
}

}  // namespace

DataflowGraph parseGraphJson(std::string_view text, const std::string& file) {
  try {
    json root = parse(text);
    std::vector<const json*> members;
    DataflowGraph g = graphFromJson(root, &members);
    auto fine = root.find("fine");
    if (fine != root.end()) return groupedFromJson(g, members, *fine);
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i])
        throw InputError("", "fine",
                         "missing: nodes[" + std::to_string(i) +
                             "] lists members, so the file needs the \"fine\" graph they name");
    g.topologicalOrder();  // throws naming a cycle
    return g;
  } catch (const InputError& e) {
    throw e.inFile(file);
  }
}

DeviceSet parseDeviceSet(std::string_view text, const std::string& file) {
  try {
    json root = parse(text);
    checkFormat(root, "device-set/1");
    DeviceSet d;
    if (auto it = root.find("name"); it != root.end()) d.name = string(*it, "name");
    const json& devs = require(root, "devices", "");
    if (!devs.is_array())
      throw InputError("", "devices", "expected an array, found " + typeName(devs));
    if (devs.empty()) throw InputError("", "devices", "the device set has no devices");
    if (devs.size() > 4096) throw InputError("", "devices", "more than 4096 devices");
    for (size_t i = 0; i < devs.size(); ++i) {
      const std::string p = "devices[" + std::to_string(i) + "]";
      if (!devs[i].is_object())
        throw InputError("", p, "expected an object, found " + typeName(devs[i]));
      Device dev;
      dev.name = devs[i].contains("name") ? string(devs[i]["name"], p + ".name")
                                          : "gpu" + std::to_string(i);
      dev.tflops = number(require(devs[i], "tflops", p), p + ".tflops");
      if (dev.tflops <= 0) throw InputError("", p + ".tflops", "must be positive");
      // A zettaflop device at most: beyond, the rates derived from it (memory bandwidth, times
      // in microseconds) overflow and the error would name a field the file does not have.
      if (dev.tflops > 1e9)
        throw InputError("", p + ".tflops", "must be at most 1e9 (a zettaflop per second)");
      if (auto it = devs[i].find("memory_gb"); it != devs[i].end())
        dev.memory_gb = nonNegative(*it, p + ".memory_gb");
      // Memory bandwidth (the roofline of nodes with memory_bytes): when a file leaves it out,
      // the P100's ratio of 732 GB/s to 9.3 TFLOPS, scaled to the device's throughput.
      dev.memory_gbps = dev.tflops * (732.0 / 9.3);
      if (auto it = devs[i].find("memory_gbps"); it != devs[i].end()) {
        dev.memory_gbps = number(*it, p + ".memory_gbps");
        if (dev.memory_gbps <= 0) throw InputError("", p + ".memory_gbps", "must be positive");
      }
      if (auto it = devs[i].find("kernel_overhead_us"); it != devs[i].end())
        dev.kernel_overhead_us = nonNegative(*it, p + ".kernel_overhead_us");
      if (auto it = devs[i].find("ops"); it != devs[i].end()) {
        if (!it->is_object())
          throw InputError("", p + ".ops", "expected an object of op kind -> rates");
        for (const auto& [op, jr] : it->items()) {
          const std::string q = p + ".ops." + op;
          if (!jr.is_object()) throw InputError("", q, "expected an object with tflops");
          Device::OpRate rate;
          rate.tflops = number(require(jr, "tflops", q), q + ".tflops");
          if (rate.tflops <= 0) throw InputError("", q + ".tflops", "must be positive");
          if (auto m = jr.find("memory_gbps"); m != jr.end()) {
            rate.memory_gbps = number(*m, q + ".memory_gbps");
            if (*rate.memory_gbps <= 0)
              throw InputError("", q + ".memory_gbps", "must be positive");
          }
          if (auto o = jr.find("overhead_us"); o != jr.end())
            rate.overhead_us = nonNegative(*o, q + ".overhead_us");
          dev.ops[op] = rate;
        }
      }
      d.devices.push_back(dev);
    }
    const size_t n = d.devices.size();
    const json& links = require(root, "links", "");
    d.bandwidth_gbps =
        matrixField(require(links, "bandwidth_gbps", "links"), n, "links.bandwidth_gbps");
    d.latency_us = links.contains("latency_us")
                       ? matrixField(links["latency_us"], n, "links.latency_us")
                       : std::vector<std::vector<double>>(n, std::vector<double>(n, 0));
    for (size_t i = 0; i < n; ++i) d.latency_us[i][i] = 0;
    d.validate();
    return d;
  } catch (const InputError& e) {
    throw e.inFile(file);
  }
}

namespace {

json graphToJson(const DataflowGraph& g) {
  json root;
  root["format"] = "dataflow-graph/1";
  root["name"] = g.name;
  json nodes = json::array();
  for (int v = 0; v < g.nodeCount(); ++v) {
    const Node& n = g.node(v);
    json jn;
    jn["id"] = n.id;
    if (!n.op.empty()) jn["op"] = n.op;
    if (n.flops > 0) jn["flops"] = n.flops;
    if (n.output_bytes > 0) jn["output_bytes"] = n.output_bytes;
    if (n.memory_bytes > 0) jn["memory_bytes"] = n.memory_bytes;
    if (n.compute_us.size() == 1) jn["compute_us"] = n.compute_us[0];
    if (n.compute_us.size() > 1) jn["compute_us"] = n.compute_us;
    if (g.groups) {
      json ids = json::array();
      for (int m : g.groups->members[v]) ids.push_back(g.groups->fine.node(m).id);
      jn["members"] = std::move(ids);
    }
    nodes.push_back(std::move(jn));
  }
  json edges = json::array();
  for (const Edge& e : g.edges()) {
    json je;
    je["src"] = g.node(e.src).id;
    je["dst"] = g.node(e.dst).id;
    if (e.bytes > 0) je["bytes"] = e.bytes;
    if (e.transfer_us) je["transfer_us"] = *e.transfer_us;
    edges.push_back(std::move(je));
  }
  root["nodes"] = std::move(nodes);
  root["edges"] = std::move(edges);
  if (g.groups) root["fine"] = graphToJson(g.groups->fine);
  return root;
}

}  // namespace

std::string writeGraphJson(const DataflowGraph& g, int indent) {
  return json_access::dump(graphToJson(g), indent) + "\n";
}

std::string writeDeviceSetJson(const DeviceSet& d, int indent) {
  json root;
  root["format"] = "device-set/1";
  root["name"] = d.name;
  json devs = json::array();
  for (const Device& dev : d.devices) {
    json jd = {{"name", dev.name},
               {"tflops", dev.tflops},
               {"memory_gb", dev.memory_gb},
               {"memory_gbps", dev.memory_gbps}};
    for (const auto& [op, rate] : dev.ops) {
      jd["ops"][op]["tflops"] = rate.tflops;
      if (rate.memory_gbps) jd["ops"][op]["memory_gbps"] = *rate.memory_gbps;
      if (rate.overhead_us) jd["ops"][op]["overhead_us"] = *rate.overhead_us;
    }
    if (dev.kernel_overhead_us > 0) jd["kernel_overhead_us"] = dev.kernel_overhead_us;
    devs.push_back(std::move(jd));
  }
  root["devices"] = std::move(devs);
  root["links"] = {{"bandwidth_gbps", d.bandwidth_gbps}, {"latency_us", d.latency_us}};
  return json_access::dump(root, indent) + "\n";
}

}  // namespace doppler

#include "core/fleet/world/topology.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/common/executable_dir.h"
#include "core/common/input_error.h"
#include "core/graph/graph_io.h"

namespace doppler::fleet {

namespace {

constexpr double kEarthRadiusKm = 6371.0088;
constexpr double kPi = 3.14159265358979323846;

std::string at(size_t line) {
  return "line " + std::to_string(line);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Whitespace-separated tokens, with '(' and ')' always tokens of their own ("(a" -> "(", "a").
std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back(s.substr(i, 1));
      ++i;
    } else {
      size_t j = i;
      while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])) && s[j] != '(' &&
             s[j] != ')')
        ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

bool parseDouble(std::string_view s, double& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool containsPlanar(std::string_view line) {
  std::string upper(line);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper.find("PLANAR") != std::string::npos;
}

// Checks that every node reaches every other; names one that node 0 cannot reach.
void checkConnected(const Topology& topo, const std::string& file, const std::string& where) {
  const int n = topo.nodeCount();
  std::vector<std::vector<int>> adjacent(n);
  for (const TopologyLink& link : topo.links) {
    adjacent[link.a].push_back(link.b);
    adjacent[link.b].push_back(link.a);
  }
  std::vector<char> seen(n, 0);
  std::vector<int> stack{0};
  seen[0] = 1;
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (int next : adjacent[node])
      if (!seen[next]) seen[next] = 1, stack.push_back(next);
  }
  for (int node = 0; node < n; ++node)
    if (!seen[node])
      throw InputError(file, where,
                       "the graph is disconnected: node " + topo.nodes[node].name +
                           " cannot be reached from " + topo.nodes[0].name +
                           " (a region that cannot route cannot share load)");
}

void addNode(Topology& topo, std::unordered_map<std::string, int>& index, std::string name,
             double x, double y, const std::string& file, const std::string& where) {
  if (index.count(name)) throw InputError(file, where, "duplicate node " + name);
  if (topo.coordinates == Coordinates::LonLat && (x < -180 || x > 180 || y < -90 || y > 90))
    throw InputError(file, where,
                     "node " + name + ": (" + std::to_string(x) + ", " + std::to_string(y) +
                         ") is not a longitude/latitude; planar km files carry a comment "
                         "line containing PLANAR before NODES");
  index.emplace(name, topo.nodeCount());
  topo.nodes.push_back({std::move(name), x, y});
}

void addLink(Topology& topo, const std::unordered_map<std::string, int>& index,
             std::unordered_map<std::string, int>& linkIndex, std::string name,
             const std::string& a, const std::string& b, const std::string& file,
             const std::string& where) {
  auto ia = index.find(a), ib = index.find(b);
  if (ia == index.end()) throw InputError(file, where, "link " + name + ": unknown node " + a);
  if (ib == index.end()) throw InputError(file, where, "link " + name + ": unknown node " + b);
  if (ia->second == ib->second)
    throw InputError(file, where, "link " + name + " joins node " + a + " to itself");
  if (!linkIndex.emplace(name, static_cast<int>(topo.links.size())).second)
    throw InputError(file, where, "duplicate link " + name);
  topo.links.push_back({std::move(name), ia->second, ib->second});
}

// TopoHub's networkx node-link JSON: {"nodes": [{"name", "pos": [x, y], "id"}], "links":
// [{"source", "target", ...}]} with planar km positions (resources/data/README.md).
Topology parseTopoHub(std::string_view text, const std::string& file, const std::string& name) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file, "byte " + std::to_string(e.byte), "not valid JSON");
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double is out_of_range, not a parse error.
    throw InputError(file, "", std::string("not valid JSON: ") + e.what());
  }
  Topology topo;
  topo.name = name;
  topo.coordinates = Coordinates::PlanarKm;
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array())
    throw InputError(file, "/nodes", "missing: a TopoHub topology has a nodes array");
  // networkx writes the links as "links" or (newer versions, TopoHub's files) "edges".
  const std::string linksKey = j.contains("edges") ? "edges" : "links";
  if (!j.contains(linksKey) || !j[linksKey].is_array())
    throw InputError(file, "/links", "missing: a TopoHub topology has a links (or edges) array");
  std::unordered_map<std::string, int> index, linkIndex;
  std::unordered_map<long long, std::string> idToName;
  for (size_t i = 0; i < j["nodes"].size(); ++i) {
    const auto& node = j["nodes"][i];
    const std::string where = "/nodes/" + std::to_string(i);
    if (!node.is_object() || !node.contains("pos") || !node["pos"].is_array() ||
        node["pos"].size() != 2 || !node["pos"][0].is_number() || !node["pos"][1].is_number())
      throw InputError(file, where, "a node needs \"pos\": [x_km, y_km]");
    std::string nodeName = node.contains("name") && node["name"].is_string()
                               ? node["name"].get<std::string>()
                               : std::to_string(i);
    if (node.contains("id") && node["id"].is_number_integer())
      idToName[node["id"].get<long long>()] = nodeName;
    addNode(topo, index, nodeName, node["pos"][0].get<double>(), node["pos"][1].get<double>(), file,
            where);
  }
  auto endName = [&](const nlohmann::json& v, const std::string& where) -> std::string {
    if (v.is_number_integer()) {
      auto it = idToName.find(v.get<long long>());
      if (it == idToName.end())
        throw InputError(file, where, "unknown node id " + std::to_string(v.get<long long>()));
      return it->second;
    }
    if (v.is_string()) return v.get<std::string>();
    throw InputError(file, where, "a link end is a node id or name");
  };
  for (size_t i = 0; i < j[linksKey].size(); ++i) {
    const auto& link = j[linksKey][i];
    const std::string where = "/" + linksKey + "/" + std::to_string(i);
    if (!link.is_object() || !link.contains("source") || !link.contains("target"))
      throw InputError(file, where, "a link needs \"source\" and \"target\"");
    const std::string a = endName(link["source"], where + "/source");
    const std::string b = endName(link["target"], where + "/target");
    addLink(topo, index, linkIndex, "L_" + a + "_" + b, a, b, file, where);
  }
  if (topo.nodes.empty()) throw InputError(file, "/nodes", "no nodes");
  checkConnected(topo, file, "/" + linksKey);
  return topo;
}

}  // namespace

std::vector<int> Topology::degrees() const {
  std::vector<int> degree(nodes.size(), 0);
  for (const TopologyLink& link : links) ++degree[link.a], ++degree[link.b];
  return degree;
}

double haversineKm(double lon1, double lat1, double lon2, double lat2) {
  const double toRad = kPi / 180.0;
  const double dLat = (lat2 - lat1) * toRad, dLon = (lon2 - lon1) * toRad;
  const double h =
      std::sin(dLat / 2) * std::sin(dLat / 2) +
      std::cos(lat1 * toRad) * std::cos(lat2 * toRad) * std::sin(dLon / 2) * std::sin(dLon / 2);
  return 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(h)));
}

double Topology::distanceKm(int a, int b) const {
  const TopologyNode &p = nodes[a], &q = nodes[b];
  if (coordinates == Coordinates::PlanarKm) return std::hypot(p.x - q.x, p.y - q.y);
  return haversineKm(p.x, p.y, q.x, q.y);
}

Topology parseTopology(std::string_view text, const std::string& file, const std::string& name) {
  {
    std::string_view head = trim(text);
    if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") head = trim(head.substr(3));
    if (!head.empty() && head.front() == '{') return parseTopoHub(head, file, name);
  }
  Topology topo;
  topo.name = name;
  std::unordered_map<std::string, int> index, linkIndex;
  enum class Section { None, Nodes, Links, Skipped };
  Section section = Section::None;
  std::string sectionName;
  size_t sectionLine = 0, linksLine = 0;
  int depth = 0;
  bool sawNodes = false, sawLinks = false;
  size_t lineNo = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineNo;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string_view line = trim(raw);
    if (lineNo == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF")
      line = trim(line.substr(3));
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (!sawNodes && containsPlanar(line)) topo.coordinates = Coordinates::PlanarKm;
      continue;
    }
    if (line.front() == '?') continue;  // "?SNDlib native format; type: network; version: 1.0"
    const std::vector<std::string_view> tok = tokens(line);
    const std::string where = at(lineNo);
    if (section == Section::None) {
      if (tok.size() != 2 || tok[1] != "(")
        throw InputError(
            file, where,
            "expected a section such as \"NODES (\", found \"" + std::string(line) + "\"");
      sectionName = std::string(tok[0]);
      sectionLine = lineNo;
      depth = 1;
      if (sectionName == "NODES") {
        if (sawNodes) throw InputError(file, where, "a second NODES section");
        section = Section::Nodes;
        sawNodes = true;
      } else if (sectionName == "LINKS") {
        if (!sawNodes) throw InputError(file, where, "LINKS before NODES");
        if (sawLinks) throw InputError(file, where, "a second LINKS section");
        section = Section::Links;
        sawLinks = true;
        linksLine = lineNo;
      } else {
        section = Section::Skipped;  // META, DEMANDS, ADMISSIBLE_PATHS: not used here
      }
      continue;
    }
    // Inside a section: the line ")" closes it; other lines are its items.
    for (std::string_view t : tok) depth += t == "(" ? 1 : t == ")" ? -1 : 0;
    if (depth < 0) throw InputError(file, where, "unbalanced ')'");
    if (depth == 0) {
      if (tok.size() != 1)
        throw InputError(file, where, "the line closing " + sectionName + " holds more than \")\"");
      section = Section::None;
      continue;
    }
    if (section == Section::Skipped) continue;
    if (depth != 1) throw InputError(file, where, "unbalanced '(' in a " + sectionName + " item");
    if (section == Section::Nodes) {
      // id ( x y )
      if (tok.size() != 5 || tok[1] != "(" || tok[4] != ")")
        throw InputError(file, where, "expected a node as \"id ( longitude latitude )\"");
      double x = 0, y = 0;
      if (!parseDouble(tok[2], x))
        throw InputError(file, where, "bad number \"" + std::string(tok[2]) + "\"");
      if (!parseDouble(tok[3], y))
        throw InputError(file, where, "bad number \"" + std::string(tok[3]) + "\"");
      addNode(topo, index, std::string(tok[0]), x, y, file, where);
    } else {
      // id ( source target ) capacity cost routing-cost setup-cost ( module pairs )
      if (tok.size() < 5 || tok[1] != "(" || tok[4] != ")")
        throw InputError(file, where, "expected a link as \"id ( source target ) ...\"");
      for (size_t i = 5; i < tok.size(); ++i) {
        double v = 0;
        if (tok[i] != "(" && tok[i] != ")" && tok[i] != "UNLIMITED" && !parseDouble(tok[i], v))
          throw InputError(file, where, "bad number \"" + std::string(tok[i]) + "\"");
      }
      addLink(topo, index, linkIndex, std::string(tok[0]), std::string(tok[2]), std::string(tok[3]),
              file, where);
    }
  }
  if (section != Section::None)
    throw InputError(file, at(sectionLine), "section " + sectionName + " is never closed");
  if (!sawNodes) throw InputError(file, at(lineNo), "no NODES section");
  if (!sawLinks) throw InputError(file, at(lineNo), "no LINKS section");
  if (topo.nodes.empty()) throw InputError(file, at(lineNo), "the NODES section is empty");
  checkConnected(topo, file, at(linksLine));
  return topo;
}

Topology readTopologyFile(const std::string& path) {
  const std::string text = readTextFile(path, 64u << 20);
  return parseTopology(text, path, std::filesystem::path(path).stem().string());
}

const std::vector<std::string>& shippedTopologies() {
  static const std::vector<std::string> names{"abilene", "polska",    "cost266",
                                              "gabriel", "germany50", "intercontinental"};
  return names;
}

std::string resourcesDir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  // An installed program reads its own prefix's copy, wherever the prefix is (and whatever
  // source tree is still around); a program in the build tree has none there and reads the
  // checkout's.
  const fs::path installed =
      (executableDir() / ".." / "share" / "doppler-studio" / "data").lexically_normal();
  if (fs::is_directory(installed, ec)) return installed.string();
#ifdef DOPPLER_RESOURCES_DIR
  if (fs::is_directory(DOPPLER_RESOURCES_DIR, ec)) return DOPPLER_RESOURCES_DIR;
#endif
  return "resources/data";
}

Topology loadTopology(const std::string& nameOrPath) {
  const auto& names = shippedTopologies();
  if (std::find(names.begin(), names.end(), nameOrPath) != names.end()) {
    Topology topo = readTopologyFile(resourcesDir() + "/topologies/" + nameOrPath + ".txt");
    topo.name = nameOrPath;
    return topo;
  }
  std::error_code ec;
  if (!std::filesystem::exists(nameOrPath, ec)) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw InputError(nameOrPath, "", "no such file, and not a shipped topology (" + known + ")");
  }
  return readTopologyFile(nameOrPath);
}

}  // namespace doppler::fleet

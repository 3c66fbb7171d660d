#include "core/policy/network_weights.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/common/input_error.h"
#include "core/common/temporary_name.h"
#include "core/graph/json_access.h"

namespace doppler::policy {

static_assert(std::endian::native == std::endian::little,
              "the weights file stores little-endian floats; a big-endian build would swap them");

namespace {

DenseLayer layer(int out, int in, bool bias) {
  DenseLayer l;
  l.out = out;
  l.in = in;
  l.w.assign(static_cast<size_t>(out) * static_cast<size_t>(in), 0.0f);
  if (bias) l.b.assign(static_cast<size_t>(out), 0.0f);
  return l;
}

// The longest header line a reader accepts: a real one is a few kB (the trainer's metadata); a
// damaged file without a newline must not be read whole as one.
constexpr size_t kMaxHeader = 16 << 20;

}  // namespace

NetworkWeights::NetworkWeights(const PolicyConfig& c) : config(c) {
  const int H = c.hidden;
  in_proj = layer(H, kNodeFeatures, true);
  edge1 = layer(c.edge_hidden, kEdgeFeatures, true);
  edge2 = layer(2 * H, c.edge_hidden, true);
  msg = layer(2 * H, H, false);
  gru_ih = layer(3 * H, H, true);
  gru_hh = layer(3 * H, H, true);
  sel_z = layer(H, kNodeFeatures, true);
  sel1 = layer(c.head_hidden, 4 * H, true);
  sel2 = layer(1, c.head_hidden, false);
  plc_y = layer(c.device_hidden, c.device_features, true);
  plc_z = layer(H, kNodeFeatures, true);
  plc1 = layer(c.head_hidden, c.device_hidden + 3 * H, true);
  plc2 = layer(1, c.head_hidden, false);
}

std::vector<NetworkWeights::Named> NetworkWeights::named() {
  std::vector<Named> out;
  auto add = [&](const char* name, DenseLayer& l, const char* weight, const char* bias) {
    out.push_back({std::string(name) + "." + weight, &l.w, {l.out, l.in}});
    if (!l.b.empty()) out.push_back({std::string(name) + "." + bias, &l.b, {l.out}});
  };
  // LibTorch's registration order (NetImpl's constructor); a GRUCell lists both weights first.
  add("in_proj", in_proj, "weight", "bias");
  add("edge1", edge1, "weight", "bias");
  add("edge2", edge2, "weight", "bias");
  add("msg", msg, "weight", "bias");
  out.push_back({"gru.weight_ih", &gru_ih.w, {gru_ih.out, gru_ih.in}});
  out.push_back({"gru.weight_hh", &gru_hh.w, {gru_hh.out, gru_hh.in}});
  out.push_back({"gru.bias_ih", &gru_ih.b, {gru_ih.out}});
  out.push_back({"gru.bias_hh", &gru_hh.b, {gru_hh.out}});
  add("sel_z", sel_z, "weight", "bias");
  add("sel1", sel1, "weight", "bias");
  add("sel2", sel2, "weight", "bias");
  add("plc_y", plc_y, "weight", "bias");
  add("plc_z", plc_z, "weight", "bias");
  add("plc1", plc1, "weight", "bias");
  add("plc2", plc2, "weight", "bias");
  return out;
}

int64_t parameterCount(const PolicyConfig& c) {
  const int64_t H = c.hidden, eh = c.edge_hidden, hh = c.head_hidden, dh = c.device_hidden,
                df = c.device_features;
  return 3 * (H * kNodeFeatures + H)              // in_proj, sel_z, plc_z
         + eh * kEdgeFeatures + eh                // edge1
         + 2 * H * eh + 2 * H + 2 * H * H         // edge2, msg
         + 2 * (3 * H * H + 3 * H)                // gru
         + hh * 4 * H + hh + hh                   // sel1, sel2
         + dh * df + dh + hh * (dh + 3 * H) + hh  // plc_y, plc1
         + hh;                                    // plc2
}

int64_t NetworkWeights::parameterCount() const {
  return doppler::policy::parameterCount(config);
}

NetworkWeights weightsFromParameters(
    const PolicyConfig& config, const std::vector<std::pair<std::string, std::vector<float>>>& p,
    const nlohmann::json& meta, const std::string& source) {
  NetworkWeights w(config);
  w.meta = meta;
  auto slots = w.named();
  std::set<std::string> filled;
  for (const auto& param : p) {
    // Named, not a structured binding: clang 14 (the fuzz build) cannot capture one.
    const std::string& name = param.first;
    const std::vector<float>& values = param.second;
    auto it =
        std::find_if(slots.begin(), slots.end(), [&](const auto& s) { return s.name == name; });
    if (it == slots.end()) throw InputError(source, name, "not a parameter of this architecture");
    if (values.size() != it->values->size())
      throw InputError(source, name,
                       "holds " + std::to_string(values.size()) + " values; the architecture has " +
                           std::to_string(it->values->size()));
    *it->values = values;
    filled.insert(name);
  }
  for (const auto& s : slots)
    if (!filled.count(s.name)) throw InputError(source, s.name, "parameter missing");
  return w;
}

void writeWeightsFile(const std::string& path, const NetworkWeights& weights) {
  NetworkWeights& w = const_cast<NetworkWeights&>(weights);  // named() hands out pointers only
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& t : w.named()) tensors.push_back({{"name", t.name}, {"shape", t.shape}});
  const nlohmann::json header = {
      {"architecture", weights.config.toJson()}, {"meta", weights.meta}, {"tensors", tensors}};
  const std::string tmp = temporarySibling(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << kWeightsFormat << '\n' << json_access::dump(header) << '\n';
    for (const auto& t : w.named())
      out.write(reinterpret_cast<const char*>(t.values->data()),
                static_cast<std::streamsize>(t.values->size() * sizeof(float)));
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw InputError(path, "", "cannot write the weights file");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "cannot write the weights file: " + why);
  }
}

namespace {

bool readLine(std::istream& in, std::string& line, size_t limit) {
  line.clear();
  char c;
  while (in.get(c)) {
    if (c == '\n') return true;
    if (line.size() >= limit) return false;
    line.push_back(c);
  }
  return false;
}

}  // namespace

bool isWeightsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  // Any version of the format: a newer one is then refused by parseWeights naming its version,
  // not mistaken for a LibTorch checkpoint.
  return in && readLine(in, line, 64) && line.starts_with(kWeightsFamily);
}

NetworkWeights readWeightsFile(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw InputError(path, "", "no such policy weights file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the policy weights file");
  return parseWeights(in, path);
}

NetworkWeights parseWeights(std::istream& in, const std::string& path) {
  std::string line;
  const bool read = readLine(in, line, 64);
  if (read && line != kWeightsFormat && line.starts_with(kWeightsFamily))
    throw InputError(path, "line 1",
                     "policy weights of format '" + line + "', and this doppler reads '" +
                         kWeightsFormat + "' (a newer doppler wrote them: update this one)");
  if (!read || line != kWeightsFormat)
    throw InputError(
        path, "line 1",
        std::string("not a policy weights file (expected the line '") + kWeightsFormat + "')");
  if (!readLine(in, line, kMaxHeader))
    throw InputError(path, "line 2", "the JSON header is missing or does not end in a newline");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number too large for a double (found by
    // fuzz_policy_weights: it ended the program).
    throw InputError(path, "line 2", std::string("bad JSON: ") + e.what());
  }
  if (!header.is_object() || !header.contains("architecture") ||
      !header["architecture"].is_object())
    throw InputError(path, "architecture", "missing or not an object");
  PolicyConfig config;
  try {
    config = PolicyConfig::fromJson(header["architecture"]);
  } catch (const InputError& e) {
    throw e.inFile(path);
  }
  // The values' size before anything is allocated: a damaged header may name an architecture of
  // gigabytes.
  const int64_t want = parameterCount(config) * 4;
  const auto start = in.tellg();
  in.seekg(0, std::ios::end);
  const int64_t have = static_cast<int64_t>(in.tellg() - start);
  in.seekg(start);
  if (have != want)
    throw InputError(path, "tensors",
                     "the values take " + std::to_string(have) + " bytes; the architecture needs " +
                         std::to_string(want) + (have < want ? " (truncated)" : ""));
  NetworkWeights w(config);
  if (header.contains("meta")) {
    if (!header["meta"].is_object()) throw InputError(path, "meta", "not an object");
    w.meta = header["meta"];
  }
  if (!header.contains("tensors") || !header["tensors"].is_array())
    throw InputError(path, "tensors", "missing or not an array");
  auto slots = w.named();
  const nlohmann::json& tensors = header["tensors"];
  if (tensors.size() != slots.size())
    throw InputError(path, "tensors",
                     "lists " + std::to_string(tensors.size()) + " tensors; the architecture has " +
                         std::to_string(slots.size()));
  // Listed in any order, each once, with the architecture's shape.
  std::vector<std::vector<float>*> order;
  std::set<std::string> seen;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string where = "tensors[" + std::to_string(i) + "]";
    const nlohmann::json& t = tensors[i];
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string())
      throw InputError(path, where + ".name", "missing or not a string");
    const std::string name = t["name"].get<std::string>();
    auto it =
        std::find_if(slots.begin(), slots.end(), [&](const auto& s) { return s.name == name; });
    if (it == slots.end())
      throw InputError(path, where + ".name",
                       "'" + name + "' is not a parameter of this architecture");
    if (!seen.insert(name).second)
      throw InputError(path, where + ".name", "'" + name + "' is listed twice");
    if (!t.contains("shape") || !t["shape"].is_array())
      throw InputError(path, where + ".shape", "missing or not an array");
    std::vector<int64_t> shape;
    for (const auto& d : t["shape"]) {
      if (!d.is_number_integer()) throw InputError(path, where + ".shape", "not integers");
      shape.push_back(d.get<int64_t>());
    }
    if (shape != it->shape)
      throw InputError(path, where + ".shape",
                       "'" + name + "' has another shape than the architecture gives it");
    order.push_back(it->values);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    std::vector<float>& v = *order[i];
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    if (static_cast<size_t>(in.gcount()) != v.size() * 4)
      throw InputError(path, "tensors[" + std::to_string(i) + "]",
                       "the file ends inside its values (truncated)");
    for (float x : v)
      if (!std::isfinite(x))
        throw InputError(path, "tensors[" + std::to_string(i) + "]",
                         "holds a value that is not finite");
  }
  return w;
}

}  // namespace doppler::policy

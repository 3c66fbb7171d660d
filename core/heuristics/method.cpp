#include "core/heuristics/method.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "core/common/input_error.h"

namespace doppler {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string formatNumber(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Parses the whole string as a finite double.
bool parseDouble(const std::string& text, double& out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x)) return false;
  out = x;
  return true;
}

const std::string* lookup(const std::map<std::string, std::string>& values,
                          const std::string& name) {
  auto it = values.find(name);
  if (it == values.end())
    throw std::logic_error("Params: the method asked for an undeclared parameter '" + name + "'");
  return &it->second;
}

// Checks `text` against `spec` and returns its canonical form; throws InputError.
std::string resolve(const ParamSpec& spec, const std::string& raw) {
  const std::string where = "--param " + spec.name;
  const std::string text = trim(raw);
  switch (spec.type) {
    case ParamSpec::Type::Number:
    case ParamSpec::Type::Integer: {
      const bool integer = spec.type == ParamSpec::Type::Integer;
      double x = 0;
      if (!parseDouble(text, x))
        throw InputError("", where,
                         "'" + raw + "' is not " + (integer ? "an integer" : "a number"));
      if (integer && x != std::floor(x))
        throw InputError("", where, "'" + raw + "' is not an integer");
      if (x < spec.min || x > spec.max)
        throw InputError("", where,
                         "value " + text + " is outside the allowed range [" +
                             formatNumber(spec.min) + ", " + formatNumber(spec.max) + "]");
      if (integer) return std::to_string(static_cast<long>(x));
      return text;
    }
    case ParamSpec::Type::Choice:
      for (const auto& c : spec.choices)
        if (c == text) return text;
      throw InputError("", where, "'" + raw + "' is not one of: " + joinNames(spec.choices));
    case ParamSpec::Type::Bool:
      if (text == "true" || text == "1") return "true";
      if (text == "false" || text == "0") return "false";
      throw InputError("", where, "'" + raw + "' is not a boolean (true, false, 1 or 0)");
  }
  throw std::logic_error("Params: bad parameter type");
}

}  // namespace

Params::Params(const std::vector<ParamSpec>& specs, const ParamValues& values) {
  std::vector<std::string> known;
  known.reserve(specs.size());
  for (const auto& s : specs) known.push_back(s.name);
  for (const auto& [name, text] : values) {
    const ParamSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (!spec)
      throw InputError("", "--param " + name,
                       "unknown parameter '" + name + "'" +
                           (known.empty() ? std::string(" (this method takes no parameters)")
                                          : " (known: " + joinNames(known) + ")"));
    values_[name] = resolve(*spec, text);
  }
  for (const auto& s : specs)
    if (!values_.count(s.name)) values_[s.name] = resolve(s, s.default_value);
}

double Params::number(const std::string& name) const {
  double x = 0;
  if (!parseDouble(*lookup(values_, name), x))
    throw std::logic_error("Params: parameter '" + name + "' is not numeric");
  return x;
}

long Params::integer(const std::string& name) const {
  return static_cast<long>(std::llround(number(name)));
}

const std::string& Params::choice(const std::string& name) const {
  return *lookup(values_, name);
}

bool Params::flag(const std::string& name) const {
  return *lookup(values_, name) == "true";
}

std::vector<int> executionOrder(const Placement& p) {
  if (!p.planned) return p.order;
  const std::vector<NodeSpan>& spans = p.planned->nodes;
  const int n = static_cast<int>(spans.size());
  std::vector<int> position(n, n), out;
  for (size_t k = 0; k < p.order.size(); ++k) position[p.order[k]] = static_cast<int>(k);
  out.reserve(n);
  for (int v = 0; v < n; ++v)
    if (spans[v].device >= 0) out.push_back(v);
  // A zero-length node sorts before a node starting at the same time (it finishes first), and
  // equal spans keep the method's order, so the result stays topological.
  std::sort(out.begin(), out.end(), [&](int x, int y) {
    const NodeSpan &a = spans[x], &b = spans[y];
    if (a.start_us != b.start_us) return a.start_us < b.start_us;
    if (a.finish_us != b.finish_us) return a.finish_us < b.finish_us;
    if (position[x] != position[y]) return position[x] < position[y];
    return x < y;
  });
  return out;
}

}  // namespace doppler

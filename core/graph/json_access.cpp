#include "core/graph/json_access.h"

#include <cmath>

namespace doppler::json_access {

json parse(std::string_view text) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // Turn the byte offset into line and column, which editors understand.
    size_t offset = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
    size_t line = 1, col = 1;
    for (size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string msg = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 2: ".
    auto colon = msg.find(": ", msg.find("parse error"));
    if (colon != std::string::npos) msg = msg.substr(colon + 2);
    throw InputError("", "line " + std::to_string(line) + ", column " + std::to_string(col),
                     "malformed JSON: " + msg);
  } catch (const json::exception& e) {
    // Number overflow (1e999) surfaces as out_of_range with no position.
    std::string msg = e.what();
    auto close = msg.find("] ");
    if (close != std::string::npos) msg = msg.substr(close + 2);
    throw InputError("", "", "malformed JSON: " + msg + " (number is not finite)");
  }
}

std::string typeName(const json& j) {
  return j.type_name();
}

const json& require(const json& obj, const char* key, const std::string& path) {
  if (!obj.is_object()) throw InputError("", path, "expected an object, found " + typeName(obj));
  auto it = obj.find(key);
  if (it == obj.end())
    throw InputError("", path.empty() ? key : path + "." + key, "missing required field");
  return *it;
}

double number(const json& j, const std::string& path) {
  if (!j.is_number()) throw InputError("", path, "expected a number, found " + typeName(j));
  double x = j.get<double>();
  if (!std::isfinite(x)) throw InputError("", path, "number is not finite");
  return x;
}

double nonNegative(const json& j, const std::string& path) {
  double x = number(j, path);
  if (x < 0) throw InputError("", path, "must not be negative (" + j.dump() + ")");
  return x;
}

std::string string(const json& j, const std::string& path) {
  if (!j.is_string()) throw InputError("", path, "expected a string, found " + typeName(j));
  return j.get<std::string>();
}

int integerIndex(const json& j, const std::string& path) {
  if (!j.is_number()) throw InputError("", path, "expected an integer, found " + typeName(j));
  double x = j.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < -2147483648.0 || x > 2147483647.0)
    throw InputError("", path, "expected an integer, found " + j.dump());
  return static_cast<int>(x);
}

std::string dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

void checkFields(const json& object, const std::string& prefix,
                 std::initializer_list<FieldRule> rules) {
  for (const FieldRule& rule : rules) {
    const auto it = object.find(rule.key);
    if (it != object.end() && !rule.ok(*it))
      throw std::runtime_error(prefix + rule.key + " must be " + rule.what + ", not " + dump(*it));
  }
}

bool isText(const json& j) {
  return j.is_string();
}

bool isFlag(const json& j) {
  return j.is_boolean();
}

bool isWholeCount(const json& j) {
  return j.is_number_integer() && j.get<int64_t>() >= 0;
}

bool isFinite(const json& j) {
  return j.is_number() && std::isfinite(j.get<double>());
}

bool isFiniteNonNegative(const json& j) {
  return isFinite(j) && j.get<double>() >= 0;
}

bool isFinitePositive(const json& j) {
  return isFinite(j) && j.get<double>() > 0;
}

}  // namespace doppler::json_access

#pragma once
// Small helpers for reading JSON with errors that name the JSON path of the bad field.
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/common/input_error.h"

namespace doppler::json_access {

using nlohmann::json;

// Parses text as JSON; syntax errors become InputError("line L, column C", ...).
json parse(std::string_view text);

std::string typeName(const json& j);
const json& require(const json& obj, const char* key, const std::string& path);
double number(const json& j, const std::string& path);       // finite
double nonNegative(const json& j, const std::string& path);  // finite, >= 0
std::string string(const json& j, const std::string& path);
int integerIndex(const json& j, const std::string& path);  // integral, fits in int

// Checks the fields of a stored record that its readers later read with a type (json::value,
// json::get, which throw on a wrong one): each rule whose key is present must hold. Throws
// std::runtime_error "<prefix><key> must be <what>, not <value>" for the first that does not
// (the caller names the file and entry). Missing keys pass: their readers have defaults.
struct FieldRule {
  const char* key;
  bool (*ok)(const json&);
  const char* what;
};
void checkFields(const json& object, const std::string& prefix,
                 std::initializer_list<FieldRule> rules);
// Rules shared by the records checked so.
bool isText(const json& j);
bool isFlag(const json& j);
bool isWholeCount(const json& j);  // an integer >= 0
bool isFinite(const json& j);      // a finite number
bool isFiniteNonNegative(const json& j);
bool isFinitePositive(const json& j);

// Serialises j (indent as json::dump's). Strings that are not valid UTF-8 (a file name, a model's
// node names) are written with U+FFFD in place of the bad bytes: json::dump would throw, losing
// the result being printed or stored.
std::string dump(const json& j, int indent = -1);

}  // namespace doppler::json_access

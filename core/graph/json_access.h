#pragma once
// Small helpers for reading JSON with errors that name the JSON path of the bad field.
#include <nlohmann/json.hpp>
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

// Serialises j (indent as json::dump's). Strings that are not valid UTF-8 (a file name, a model's
// node names) are written with U+FFFD in place of the bad bytes: json::dump would throw, losing
// the result being printed or stored.
std::string dump(const json& j, int indent = -1);

}  // namespace doppler::json_access

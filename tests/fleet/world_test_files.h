#pragma once
// The shipped data the fleet world tests read (resources/data, through the library's own
// resourcesDir()), and small helpers to rewrite it.
#include <gtest/gtest.h>

#include <string>

#include "core/common/input_error.h"
#include "core/fleet/world/topology.h"
#include "tests/support/temp_dir.h"

namespace doppler::testing {

inline std::string shippedTopologyFile(const std::string& name) {
  return fleet::resourcesDir() + "/topologies/" + name;
}
inline std::string shippedTraceFile(const std::string& name) {
  return fleet::resourcesDir() + "/traces/AzureLLMInferenceTrace_" + name + ".csv";
}

// The text with every "\n" turned into "\r\n" (those already "\r\n" kept) and no final newline.
inline std::string asCrlfWithoutFinalNewline(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out += '\r';
    out += text[i];
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// The text with "\r\n" turned into "\n", ending in one newline.
inline std::string asLf(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != '\r') out += c;
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

// Expects parse() to throw InputError naming `file`, at `where`, with `what` in its problem.
template <class Parse>
void expectInputError(Parse&& parse, const std::string& file, const std::string& where,
                      const std::string& what) {
  try {
    parse();
    ADD_FAILURE() << "expected InputError at " << where << " (" << what << ")";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(e.problem().find(what), std::string::npos) << e.what();
  }
}

}  // namespace doppler::testing

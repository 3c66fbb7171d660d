#pragma once
// Every parser must either return a valid object or throw InputError: any other exception, a
// crash, a sanitizer report or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/graph/input_error.h"

template <class F>
int fuzzOne(const uint8_t* data, size_t size, F&& parse) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const doppler::InputError&) {
  }
  return 0;
}

#pragma once
// A name built from a prefix and a number ("p3", "#12"). It appends instead of writing
// "p" + std::to_string(n): GCC 12 warns (-Wrestrict) inside libstdc++'s operator+(const char*,
// string&&) at -O2 and above (GCC bug 105329), and the build treats warnings as errors.
#include <string>
#include <string_view>

namespace doppler {

inline std::string numbered(std::string_view prefix, long long n) {
  std::string name(prefix);
  name += std::to_string(n);
  return name;
}

}  // namespace doppler

#include "policy_cli.h"

#include <sstream>

#include "core/common/input_error.h"
#include "sessions/from_core.h"

namespace doppler::cli {

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

policy::Component parseComponent(const std::string& s, const char* option) {
  if (s == "learned") return policy::Component::Learned;
  if (s == "heuristic") return policy::Component::Heuristic;
  throw InputError("", option, "unknown value '" + s + "' (known: learned, heuristic)");
}

}  // namespace doppler::cli

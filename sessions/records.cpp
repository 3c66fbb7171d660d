#include "records.h"

#include <algorithm>

#include "core/common/input_error.h"

namespace doppler::sessions {

namespace {
constexpr const char* kStatusNames[] = {"running", "finished", "failed", "cancelled",
                                        "interrupted"};

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

const char* toString(RunStatus s) {
  return kStatusNames[static_cast<int>(s)];
}

RunStatus parseRunStatus(std::string_view s) {
  for (int i = 0; i < 5; ++i)
    if (s == kStatusNames[i]) return static_cast<RunStatus>(i);
  throw InputError("", "status",
                   "unknown run status '" + std::string(s) +
                       "' (known: running, finished, failed, cancelled, interrupted)");
}

const std::vector<std::string>& runKinds() {
  static const std::vector<std::string> kinds = {"place", "simulate", "train",
                                                 "eval",  "exec",     "fleet"};
  return kinds;
}

void checkRunKind(std::string_view kind) {
  const auto& k = runKinds();
  if (std::find(k.begin(), k.end(), kind) == k.end())
    throw InputError("", "kind",
                     "unknown run kind '" + std::string(kind) + "' (known: " + joined(k) + ")");
}

}  // namespace doppler::sessions

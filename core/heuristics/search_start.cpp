#include "core/heuristics/search_start.h"

#include <algorithm>
#include <mutex>

namespace doppler {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<SearchStart> starts;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void registerSearchStart(const std::string& name, const std::string& description,
                         SearchStartFn fn) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = std::find_if(r.starts.begin(), r.starts.end(),
                         [&](const SearchStart& s) { return s.name == name; });
  if (it != r.starts.end())
    *it = {name, description, std::move(fn)};
  else
    r.starts.push_back({name, description, std::move(fn)});
}

std::vector<SearchStart> searchStarts() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.starts;
}

}  // namespace doppler

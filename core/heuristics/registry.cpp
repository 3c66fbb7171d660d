#include "core/common/input_error.h"
#include "core/heuristics/builtin_methods.h"
#include "core/heuristics/method.h"

namespace doppler {

namespace {

std::vector<std::unique_ptr<Method>>& registry() {
  static std::vector<std::unique_ptr<Method>> all = [] {
    std::vector<std::unique_ptr<Method>> v;
    v.push_back(builtin::criticalPath());
    v.push_back(builtin::heft());
    v.push_back(builtin::cpop());
    v.push_back(builtin::etf());
    v.push_back(builtin::roundRobin());
    v.push_back(builtin::random());
    v.push_back(builtin::loadBalance());
    v.push_back(builtin::singleDevice());
    v.push_back(builtin::localSearch());
    return v;
  }();
  return all;
}

}  // namespace

const std::vector<std::unique_ptr<Method>>& methods() {
  return registry();
}

void registerMethod(std::unique_ptr<Method> method) {
  auto& all = registry();
  for (auto& m : all)
    if (m->name() == method->name()) {
      m = std::move(method);
      return;
    }
  all.push_back(std::move(method));
}

const Method& findMethod(const std::string& name) {
  std::string known;
  for (const auto& m : methods()) {
    if (m->name() == name) return *m;
    known += (known.empty() ? "" : ", ") + m->name();
  }
  throw InputError("", "--method", "unknown method '" + name + "' (known: " + known + ")");
}

}  // namespace doppler

// Opening the LibTorch module (plain C++; linked into the executables, never LibTorch itself).
#include "core/train/torch_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "core/common/executable_dir.h"
#include "core/common/input_error.h"

namespace doppler::train {

namespace fs = std::filesystem;

bool torchModuleBuiltIn() {
#ifdef DOPPLER_TORCH_MODULE_BUILT
  return true;
#else
  return false;
#endif
}

namespace {

std::vector<std::string> candidates() {
  if (const char* path = std::getenv("DOPPLER_TORCH_MODULE"); path && *path) return {path};
  const fs::path dir = executableDir();
  // Next to the executable, then the installed layout; last the build tree, where the studio
  // sits one folder below the module (app/studio/ beside app/libdoppler_torch.so).
  return {(dir / kTorchModuleFile).string(),
          (dir / ".." / "lib" / "doppler" / kTorchModuleFile).lexically_normal().string(),
          (dir / ".." / kTorchModuleFile).lexically_normal().string()};
}

const TorchModule* open() {
  if (!torchModuleBuiltIn())
    throw InputError(kTorchModuleFile, "",
                     "not built in: this doppler was built without LibTorch (DOPPLER_TORCH=OFF), "
                     "which training and reading checkpoints need (weights exported by `doppler "
                     "policy export` place without it)");
  const std::vector<std::string> paths = candidates();
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      throw InputError(path, "", std::string("cannot load the LibTorch module: ") + dlerror());
    auto entry = reinterpret_cast<DopplerTorchModuleEntry>(dlsym(handle, "doppler_torch_module"));
    if (entry == nullptr)
      throw InputError(path, "", "not a Doppler LibTorch module (no doppler_torch_module entry)");
    const TorchModule* module = entry(torchModuleAbi());
    if (module == nullptr)
      throw InputError(path, "",
                       "the LibTorch module was built from another version of Doppler Studio: "
                       "rebuild or reinstall it with this doppler");
    return module;  // never closed: its code and LibTorch stay mapped for the process
  }
  std::string also;
  for (size_t i = 1; i < paths.size(); ++i) also += (also.empty() ? "" : ", ") + paths[i];
  throw InputError(paths.front(), "",
                   "the LibTorch module (train and eval need it) is missing" +
                       (also.empty() ? std::string() : " (also looked for " + also + ")") +
                       ": build the doppler_torch target or reinstall");
}

}  // namespace

const TorchModule& loadTorchModule() {
  static std::mutex mutex;
  static const TorchModule* module = nullptr;
  std::lock_guard lock(mutex);
  if (module == nullptr) module = open();  // a failure is retried on the next call
  return *module;
}

}  // namespace doppler::train

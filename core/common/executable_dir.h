#pragma once
// The folder of the running executable, from which an installed program finds what it ships
// (its data in ../share/doppler-studio, its LibTorch module in ../lib/doppler), wherever the
// prefix was moved. Linux: /proc/self/exe; the current folder when that cannot be read.
#include <filesystem>
#include <system_error>

namespace doppler {

inline std::filesystem::path executableDir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path(ec) : exe.parent_path();
}

}  // namespace doppler

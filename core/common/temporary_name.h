#pragma once
// A name for a file that is written and then renamed onto `path`: beside it (same directory, so
// the rename stays on one file system) and used by no other writer. A fixed name ("path.tmp")
// let two processes writing the same target at once (two studios updating the recent sessions,
// two commands given the same --out) truncate and interleave each other's temporary file, and
// the loser's rename then failed on a file already moved away.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

namespace doppler {

// ".NAME.new-PID-RANDOM-N" beside `path`.
inline std::string temporarySibling(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  // The counter tells this process's writes apart; the random part, copies of this function in
  // different shared objects of one process.
  static const uint32_t salt = std::random_device{}();
  const std::filesystem::path p(path);
  // Appended piece by piece: operator+ chains trip GCC 12's -Wrestrict false positive.
  std::string name = ".";
  name.append(p.filename().string());
  name.append(".new-");
  name.append(std::to_string(::getpid()));
  name.append("-");
  name.append(std::to_string(salt));
  name.append("-");
  name.append(std::to_string(counter++));
  return (p.parent_path() / name).string();
}

}  // namespace doppler

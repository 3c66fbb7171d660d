#include "file_publish.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/common/input_error.h"

namespace doppler::sessions {
namespace fs = std::filesystem;

bool publishWithoutReplacing(const std::string& from, const std::string& to) {
  // renameat2's RENAME_NOREPLACE is one atomic step; file systems without it (EINVAL) get a hard
  // link, which fails just as atomically when `to` exists.
  int rc = ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && errno == EINVAL) {
    rc = ::link(from.c_str(), to.c_str());
    if (rc == 0) ::unlink(from.c_str());
  }
  if (rc == 0) return true;
  const int err = errno;
  removeDatabaseFiles(from);
  if (err == EEXIST) return false;
  throw InputError(to, "", std::string("cannot create: ") + std::strerror(err));
}

void removeDatabaseFiles(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
}

}  // namespace doppler::sessions

#include "file_check.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/common/input_error.h"

namespace doppler::sessions {
namespace {

uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

bool nonEmptyFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

}  // namespace

FileHeader inspectDatabaseFile(const std::string& path) {
  FileHeader h;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    // Missing, or a parent is not a directory: nothing there; creating it will say why it can't.
    if (errno == ENOENT || errno == ENOTDIR) return h;
    // ENOTDIR (a parent is a file), EACCES...: say so now rather than as a vague open failure.
    throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
  }
  h.exists = true;
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "is a directory, not a session file");
  if (!S_ISREG(st.st_mode)) throw InputError(path, "", "not a regular file");
  h.size = static_cast<uint64_t>(st.st_size);
  h.has_wal = nonEmptyFile(path + "-wal");
  h.has_journal = nonEmptyFile(path + "-journal");
  if (h.size == 0) return h;

  unsigned char buf[100] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno));
  in.read(reinterpret_cast<char*>(buf), sizeof buf);
  const auto got = static_cast<std::size_t>(in.gcount());
  static const char kMagic[] = "SQLite format 3";  // 16 bytes with the terminating NUL
  const std::size_t magicLen = got < 16 ? got : 16;
  if (std::memcmp(buf, kMagic, magicLen) != 0) throw InputError(path, "", "not an SQLite database");
  if (got < 100)
    throw InputError(path, "",
                     "damaged SQLite database: truncated to " + std::to_string(h.size) +
                         " bytes, shorter than its header");

  const uint32_t rawPage = (uint32_t(buf[16]) << 8) | buf[17];
  h.page_size = rawPage == 1 ? 65536 : rawPage;
  if (h.page_size < 512 || h.page_size > 65536 || (h.page_size & (h.page_size - 1)) != 0)
    throw InputError(path, "",
                     "damaged SQLite database: impossible page size " + std::to_string(rawPage) +
                         " in its header");
  h.page_count = be32(buf + 28);
  h.page_count_valid = h.page_count != 0 && be32(buf + 24) == be32(buf + 92);
  h.user_version = be32(buf + 60);
  h.application_id = be32(buf + 68);

  // A WAL may legitimately hold pages past the end of the main file, and a hot journal is about
  // to restore it, so the size test only holds for a file that stands alone.
  if (!h.has_wal && !h.has_journal) {
    const uint64_t expected = uint64_t(h.page_size) * (h.page_count_valid ? h.page_count : 1);
    if (h.size < expected)
      throw InputError(path, "",
                       "damaged SQLite database: truncated (" + std::to_string(h.size) +
                           " bytes, its header says " + std::to_string(expected) + ")");
    if (h.size % h.page_size != 0)
      throw InputError(path, "",
                       "damaged SQLite database: " + std::to_string(h.size) +
                           " bytes is not a whole number of " + std::to_string(h.page_size) +
                           "-byte pages");
  }
  return h;
}

}  // namespace doppler::sessions

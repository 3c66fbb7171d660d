#pragma once
// SHA-256 (OpenSSL's libcrypto) as lowercase hex: the content key of stored graphs and device
// sets, and the hash of checkpoints, comparable with `sha256sum`.
#include <cstdint>
#include <string>
#include <string_view>

namespace doppler::sessions {

std::string sha256Hex(std::string_view bytes);

struct FileDigest {
  std::string sha256;
  int64_t bytes = 0;
};
// Streams the file; throws InputError naming it if it cannot be read.
FileDigest sha256File(const std::string& path);

}  // namespace doppler::sessions

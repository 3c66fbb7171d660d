#include "content_hash.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/common/input_error.h"

namespace doppler::sessions {
namespace {

struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxFree>;

Ctx newSha256() {
  Ctx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx, md, &len) != 1) throw std::runtime_error("OpenSSL: SHA-256 failed");
  static const char* kHex = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned i = 0; i < len; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256Hex(std::string_view bytes) {
  Ctx ctx = newSha256();
  EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size());
  return finish(ctx.get());
}

FileDigest sha256File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno));
  Ctx ctx = newSha256();
  std::vector<char> buf(1 << 16);
  FileDigest d;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = in.gcount();
    if (n > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(n));
    d.bytes += n;
  }
  if (in.bad()) throw InputError(path, "", "read error");
  d.sha256 = finish(ctx.get());
  return d;
}

}  // namespace doppler::sessions

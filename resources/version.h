#pragma once
// The version and the commit of this build, for `doppler --version` and the studio's About box.
// The definitions are written at build time (resources/cmake/write_version.cmake).
#include <string>

namespace doppler::resources {

// The project's version, as in the top CMakeLists.txt ("0.1.0").
const char* projectVersion();
// The commit built: `git describe --always --dirty` (12 hex digits, "-dirty" with uncommitted
// changes), or "unknown" outside a git checkout.
const char* buildCommit();

// "0.1.0 (commit 4b6fabb1c2d3)".
inline std::string versionLine() {
  return std::string(projectVersion()) + " (commit " + buildCommit() + ")";
}

}  // namespace doppler::resources

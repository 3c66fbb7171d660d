#include "user_paths.h"

#include <cstdlib>
#include <filesystem>

#include "core/common/input_error.h"

namespace doppler::sessions {

std::string dataDirectory() {
  // The spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/doppler-studio";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.local/share/doppler-studio";
  throw InputError("", "--db",
                   "no data directory: neither XDG_DATA_HOME nor HOME is set to an absolute path; "
                   "give --db PATH");
}

std::string defaultSessionPath() {
  return dataDirectory() + "/runs.sqlite";
}

std::string ensureDataDirectory() {
  const std::string dir = dataDirectory();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, "", "cannot create the data directory: " + ec.message());
  return dir;
}

}  // namespace doppler::sessions

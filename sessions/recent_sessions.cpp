#include "recent_sessions.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/common/input_error.h"
#include "core/common/temporary_name.h"
#include "sessions/user_paths.h"

namespace doppler::sessions {
namespace fs = std::filesystem;

namespace {

std::string listFile(const std::string& dir) {
  return (dir.empty() ? dataDirectory() : dir) + "/recent-sessions.txt";
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

void writeList(const std::string& dir, const std::vector<std::string>& paths) {
  const std::string file = listFile(dir);
  std::error_code ec;
  fs::create_directories(fs::path(file).parent_path(), ec);
  const std::string tmp = temporarySibling(file);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    for (const std::string& p : paths) out << p << "\n";
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      throw InputError(file, "", "cannot write the recent sessions list");
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw InputError(file, "", "cannot write the recent sessions list: " + why);
  }
}

}  // namespace

std::vector<std::string> recentSessions(const std::string& dir) {
  std::ifstream in(listFile(dir));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line) && out.size() < kMaxRecent) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  }
  return out;
}

void rememberRecentSession(const std::string& path, const std::string& dir) {
  const std::string p = absolute(path);
  std::vector<std::string> list = recentSessions(dir);
  list.erase(std::remove(list.begin(), list.end(), p), list.end());
  list.insert(list.begin(), p);
  if (list.size() > kMaxRecent) list.resize(kMaxRecent);
  writeList(dir, list);
}

void forgetRecentSession(const std::string& path, const std::string& dir) {
  const std::string p = absolute(path);
  std::vector<std::string> list = recentSessions(dir);
  const auto before = list.size();
  list.erase(std::remove(list.begin(), list.end(), p), list.end());
  if (list.size() != before) writeList(dir, list);
}

}  // namespace doppler::sessions

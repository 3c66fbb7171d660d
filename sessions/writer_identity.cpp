#include "writer_identity.h"

#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace doppler::sessions {
namespace {

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::string bootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

}  // namespace

int64_t processStartTicks(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) {
    // No such process, unless /proc itself is missing (not Linux, or not mounted).
    std::ifstream self("/proc/self/stat");
    return self ? -1 : 0;
  }
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name (field 2) is in parentheses and may hold spaces or ')': skip past the last
  // ')'. Then fields 3, 4, ... follow; the start time is field 22.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return 0;
    // A zombie (killed, not yet reaped by its parent) writes nothing more: it is gone.
    if (i == 3 && (field == "Z" || field == "X")) return -1;
  }
  try {
    return std::stoll(field);
  } catch (...) {
    return 0;
  }
}

WriterIdentity currentWriter() {
  // Cached per process id, so a child forked after the first call still reports itself.
  static thread_local WriterIdentity cached;
  const int64_t pid = ::getpid();
  if (cached.pid != pid) {
    WriterIdentity w;
    w.host = hostName();
    w.boot_id = bootId();
    w.pid = pid;
    w.start_ticks = processStartTicks(pid);
    if (w.start_ticks < 0) w.start_ticks = 0;
    cached = w;
  }
  return cached;
}

Liveness writerLiveness(const WriterIdentity& w) {
  const WriterIdentity me = currentWriter();
  if (w.pid <= 0) return Liveness::Unknown;
  if (!w.host.empty() && !me.host.empty() && w.host != me.host) return Liveness::Gone;
  if (!w.boot_id.empty() && !me.boot_id.empty() && w.boot_id != me.boot_id) return Liveness::Gone;
  const int64_t start = processStartTicks(w.pid);
  if (start < 0) return Liveness::Gone;
  if (start == 0 || w.start_ticks == 0) return Liveness::Unknown;
  return start == w.start_ticks ? Liveness::Alive : Liveness::Gone;
}

}  // namespace doppler::sessions

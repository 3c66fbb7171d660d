#pragma once
// Which process is writing a run, and whether it still is.
//
// A run is recorded with its writer's host name, kernel boot id, pid and the pid's start time
// (field 22 of /proc/PID/stat, in clock ticks since boot). When a store is opened for writing,
// every run still marked `running` is judged by this rule:
//   - another host wrote it: gone. WAL mode needs shared memory, so two hosts can never write
//     one session at a time; a run from another host is a snapshot that will not progress
//     (a file handed over from a meeting, a copy from a colleague's machine);
//   - another boot of this host: gone (the machine restarted since);
//   - no process with that pid, a zombie, or one that started at a different time (the pid was
//   reused):
//     gone;
//   - otherwise the writer is alive and the run is left running.
// Where /proc cannot be read the answer is "unknown" and the run is left as it is.
// A gone writer's run is marked `interrupted`. Caveat: two containers on one host that share a
// session file but not a pid namespace would see each other's writers as gone; the writer's
// own finishRun still records the final status over `interrupted`.
#include <cstdint>
#include <string>

namespace doppler::sessions {

struct WriterIdentity {
  std::string host;
  std::string boot_id;
  int64_t pid = 0;
  int64_t start_ticks = 0;  // 0 when unknown
};

enum class Liveness { Alive, Gone, Unknown };

// This process (computed once per process; a forked child computes its own).
WriterIdentity currentWriter();
Liveness writerLiveness(const WriterIdentity& w);

// The start time of `pid` in clock ticks since boot, or -1 if there is no such process (or only
// its zombie), or 0 if it cannot be told (no /proc).
int64_t processStartTicks(int64_t pid);

}  // namespace doppler::sessions

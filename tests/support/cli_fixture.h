#pragma once
// A test fixture that runs the real `doppler` binary: a temporary folder per test, the child's
// data directory inside it, stdout/stderr captured, and a time limit so a hang fails the test.
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace doppler::testing {

struct CliResult {
  int status = -1;
  std::string out, err;
};

class CliFixture : public TempDirTest {
 protected:
  // The child's data directory is the test's own (XDG_DATA_HOME and HOME): runs recorded without
  // --db land there, never in the real user's data directory. `env` adds NAME=VALUE settings.
  CliResult run(const std::string& args, const std::string& env = {}) const;
  // Expects exit status 2 and exactly one line on stderr containing every fragment.
  CliResult expectBadInput(const std::string& args,
                           const std::vector<std::string>& fragments) const;
  // Runs `args` (with `--db db`) in the background and, once the session shows its run as
  // running (handlers in place, work started; no timing), sends `signal`; returns what the
  // command printed and its exit status (-1 if the signal killed it).
  CliResult runThenSignal(const std::string& args, const std::string& db, int signal) const;
  // Runs `args` in the background and sends `signal` once the command has installed its handler
  // for it (read from /proc: no timing), for commands that store no run.
  CliResult runThenSignalOnceHandled(const std::string& args, int signal,
                                     const std::string& env = {}) const;
  // Runs `args` in the background and sends `signal` once `ready(pid)` holds; `env` as run's.
  CliResult runThenSignalWhen(const std::string& args, int signal,
                              const std::function<bool(pid_t)>& ready,
                              const std::string& env = {}) const;
  // The status of the session's first run ("running", "cancelled", ...), "" before it exists.
  std::string firstRunStatus(const std::string& db) const;
};

}  // namespace doppler::testing

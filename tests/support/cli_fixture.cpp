#include "tests/support/cli_fixture.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

namespace doppler::testing {

CliResult CliFixture::run(const std::string& args, const std::string& env) const {
  const std::string out = path("stdout"), err = path("stderr");
  const std::string cmd = "env XDG_DATA_HOME=" + path("xdg-data") + " HOME=" + path("home") + " " +
                          env + " timeout 300 " + std::string(DOPPLER_CLI) + " " + args + " >" +
                          out + " 2>" + err + " </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CliResult CliFixture::expectBadInput(const std::string& args,
                                     const std::vector<std::string>& fragments) const {
  CliResult r = run(args);
  EXPECT_EQ(r.status, 2) << args << "\nstderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\nstderr: " << r.err;
  for (const auto& f : fragments)
    EXPECT_NE(r.err.find(f), std::string::npos) << "missing '" << f << "' in: " << r.err;
  return r;
}

std::string CliFixture::firstRunStatus(const std::string& db) const {
  const CliResult r = run("runs list --json --db " + db);
  if (r.status != 0) return {};
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded() || !j.contains("runs") || j["runs"].empty()) return {};
  return j["runs"][0].value("status", "");
}

namespace {

// Whether process `pid` has a handler installed for `signal` (the SigCgt mask of
// /proc/PID/status): the moment a command's InterruptGuard is in place.
bool catches(pid_t pid, int signal) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("SigCgt:", 0) == 0)
      return (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1)) & 1;
  return false;
}

}  // namespace

CliResult CliFixture::runThenSignalWhen(const std::string& args, int signal,
                                        const std::function<bool(pid_t)>& ready,
                                        const std::string& env) const {
  // Files of its own: a `ready` that runs commands writes stdout and stderr.
  const std::string out = path("signalled-stdout"), err = path("signalled-stderr");
  // exec: the shell becomes doppler, so the signal reaches it.
  const std::string cmd = "exec env XDG_DATA_HOME=" + path("xdg-data") + " HOME=" + path("home") +
                          " " + env + " " + std::string(DOPPLER_CLI) + " " + args + " >" + out +
                          " 2>" + err + " </dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  CliResult r;
  if (pid < 0) return r;
  // The deadline only ends a wait that would otherwise never end: the test then fails on what
  // the command printed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  int raw = 0;
  bool ended = false;  // before it was ready (a refusal, or the work was done): not signalled
  while (!(ended = ::waitpid(pid, &raw, WNOHANG) == pid) && !ready(pid) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!ended) {
    ::kill(pid, signal);
    ::waitpid(pid, &raw, 0);
  }
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CliResult CliFixture::runThenSignal(const std::string& args, const std::string& db,
                                    int signal) const {
  return runThenSignalWhen(args + " --db " + db, signal,
                           [&](pid_t) { return firstRunStatus(db) == "running"; });
}

CliResult CliFixture::runThenSignalOnceHandled(const std::string& args, int signal,
                                               const std::string& env) const {
  return runThenSignalWhen(
      args, signal, [&](pid_t pid) { return catches(pid, signal); }, env);
}

}  // namespace doppler::testing

// LocalWorkers: posix_spawn and a waitpid loop.
#include "core/train/dp_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/train/distributed.h"

extern char** environ;

namespace doppler::train {

std::string WorkerExit::describe() const {
  const std::string who = "rank " + std::to_string(rank);
  if (status < 128) return who + " exited with status " + std::to_string(status);
  const int signal = status - 128;
  const char* name = ::strsignal(signal);
  return who + (killedByUs ? " hung and was killed"
                           : " was killed by signal " + std::to_string(signal) + " (" +
                                 (name ? name : "?") + ")");
}

LocalWorkers::LocalWorkers(const std::string& program, const std::vector<std::string>& args, int n,
                           int port, const std::vector<std::string>& logs)
    : port_(port > 0 ? port : pickFreeLoopbackPort()) {
  if (n < 1) throw std::invalid_argument("LocalWorkers: at least one worker");
  for (int rank = 0; rank < n; ++rank) {
    std::vector<std::string> all{program};
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), {"--rank", std::to_string(rank), "--world-size", std::to_string(n),
                           "--master", "127.0.0.1:" + std::to_string(port_)});
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (static_cast<size_t>(rank) < logs.size() && !logs[rank].empty()) {
      posix_spawn_file_actions_addopen(&actions, 1, logs[rank].c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      for (int started : pids_) {
        ::kill(started, SIGKILL);
        ::waitpid(started, nullptr, 0);
      }
      pids_.clear();
      throw std::runtime_error("cannot start worker " + std::to_string(rank) + " (" + program +
                               "): " + ::strerror(rc));
    }
    pids_.push_back(pid);
  }
}

LocalWorkers::~LocalWorkers() {
  for (int& pid : pids_) {
    if (pid <= 0) continue;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
}

std::vector<WorkerExit> LocalWorkers::wait(double grace_s) {
  std::vector<WorkerExit> exits(pids_.size());
  for (size_t rank = 0; rank < exits.size(); ++rank) exits[rank].rank = static_cast<int>(rank);
  size_t running = 0;
  for (int pid : pids_) running += pid > 0;
  int ended = 0;
  bool failed = false;
  std::chrono::steady_clock::time_point deadline;
  while (running > 0) {
    bool progressed = false;
    for (size_t rank = 0; rank < pids_.size(); ++rank) {
      if (pids_[rank] <= 0) continue;
      int status = 0;
      const pid_t r = ::waitpid(pids_[rank], &status, WNOHANG);
      if (r == 0) continue;
      WorkerExit& exit = exits[rank];
      exit.status = r < 0 ? 255 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      exit.endedAs = ended++;
      pids_[rank] = -1;
      --running;
      progressed = true;
      if (exit.status != 0 && !failed) {
        failed = true;
        deadline = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<int64_t>(grace_s * 1000));
      }
    }
    if (failed && std::chrono::steady_clock::now() > deadline) {
      // The rest hang (a stopped process, a wait without a timeout): end them.
      for (size_t rank = 0; rank < pids_.size(); ++rank) {
        if (pids_[rank] <= 0) continue;
        ::kill(pids_[rank], SIGKILL);
        ::waitpid(pids_[rank], nullptr, 0);
        exits[rank].status = 128 + SIGKILL;
        exits[rank].killedByUs = true;
        exits[rank].endedAs = ended++;
        pids_[rank] = -1;
        --running;
      }
    }
    if (running > 0 && !progressed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return exits;
}

std::string LocalWorkers::firstFailure(const std::vector<WorkerExit>& exits) {
  // Workers seen ending in the same poll are in rank order, not in the order they ended; a
  // death by a signal is more likely the cause than an exit with an error, and a worker killed
  // here for hanging is the least likely.
  const auto rank = [](const WorkerExit& e) { return e.killedByUs ? 2 : e.status >= 128 ? 0 : 1; };
  const WorkerExit* first = nullptr;
  for (const WorkerExit& exit : exits) {
    if (exit.status == 0) continue;
    if (!first || rank(exit) < rank(*first) ||
        (rank(exit) == rank(*first) && exit.endedAs < first->endedAs))
      first = &exit;
  }
  return first ? first->describe() : "";
}

}  // namespace doppler::train

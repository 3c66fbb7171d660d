#pragma once
// `--workers N` on one machine: N copies of a program, each told its place in the group
// (`--rank R --world-size N --master 127.0.0.1:PORT`, what distributed.h's DataParallelGroup
// joins with), watched until all have ended. A worker that fails makes the others fail too
// (their collectives break or time out); one that hangs instead is killed after a grace period,
// so waiting always ends. Plain POSIX (posix_spawn, waitpid): no LibTorch here.
#include <string>
#include <vector>

namespace doppler::train {

// How one worker ended: its exit status, or 128 + the signal that killed it.
struct WorkerExit {
  int rank = 0;
  int status = 0;
  bool killedByUs = false;  // still running after the grace period, so killed
  int endedAs = 0;          // 0 for the first worker to end, 1 for the next, ...
  // "rank 1 exited with status 1", "rank 0 was killed by signal 9 (Killed)".
  std::string describe() const;
};

class LocalWorkers {
 public:
  // Starts `program args... --rank R --world-size n --master 127.0.0.1:port` for R = 0..n-1
  // (port 0: a free loopback port). Each worker's stdout and stderr go to logs[R] when given
  // (truncated), else to this process's. Throws std::runtime_error when a worker cannot start
  // (the ones already started are killed).
  LocalWorkers(const std::string& program, const std::vector<std::string>& args, int n,
               int port = 0, const std::vector<std::string>& logs = {});
  // Kills and reaps the workers still running.
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  int port() const { return port_; }
  const std::vector<int>& pids() const { return pids_; }

  // Waits for every worker. Once one has failed, the others get grace_s seconds to end by
  // themselves (set it above the group's timeout: they end with a DistributedError), then are
  // killed. Returns how each ended, in rank order.
  std::vector<WorkerExit> wait(double grace_s);

  // The failure most likely to be the cause (the others' usually follow from it): a death by a
  // signal before an exit with an error before a worker killed for hanging, each the earliest
  // seen. "" when every worker exited with status 0.
  static std::string firstFailure(const std::vector<WorkerExit>& exits);

 private:
  std::vector<int> pids_;
  int port_ = 0;
};

}  // namespace doppler::train

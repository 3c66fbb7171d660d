// Data-parallel workers (core/train/distributed.h) on loopback, with real processes: the
// dp_worker helper (tests/train/dp_worker_main.cpp), started with posix_spawn so that each worker
// is a fresh process (no LibTorch thread pool inherited through fork()).
#include "core/train/distributed.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/common/input_error.h"
#include "core/train/dp_worker.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace doppler::train {
namespace {

using doppler::testing::slurp;
using doppler::testing::TempDir;

// A worker process, its stdout and stderr in `log`.
struct Worker {
  pid_t pid = -1;
  std::string log;
};

Worker spawnWorker(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all{DOPPLER_DP_WORKER};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  Worker worker;
  worker.log = log;
  const int rc = posix_spawn(&worker.pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << argv[0];
  return worker;
}

// The worker's exit status, or 128 + the signal that ended it. A guard, not a timing assertion:
// a worker still running after `guardS` is killed and the test fails (the code under test must
// end every wait by its own timeout, far shorter than this).
int waitWorker(const Worker& worker, int guardS = 180) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(guardS);
  int status = 0;
  while (::waitpid(worker.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "worker " << worker.pid << " still running after " << guardS
                    << " s: a hang\n"
                    << slurp(worker.log);
      ::kill(worker.pid, SIGKILL);
      ::waitpid(worker.pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Result {
  std::vector<double> losses;
  std::vector<double> params;
};

Result readResult(const std::string& path) {
  Result result;
  std::istringstream in(slurp(path));
  std::string kind;
  double value;
  while (in >> kind >> value) (kind == "loss" ? result.losses : result.params).push_back(value);
  return result;
}

double maxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    diff = std::max(diff, std::abs(a[i] - b[i]));
  return diff;
}

std::string master(int port) {
  return "127.0.0.1:" + std::to_string(port);
}

TEST(MasterAddress, ParsesHostAndPort) {
  const MasterAddress a = parseMasterAddress("127.0.0.1:29500");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 29500);
  const MasterAddress b = parseMasterAddress("node-7.cluster:1");
  EXPECT_EQ(b.host, "node-7.cluster");
  EXPECT_EQ(b.port, 1);
  const MasterAddress c = parseMasterAddress("[::1]:65535");
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, 65535);
}

TEST(MasterAddress, BadValuesAreRefusedNamingTheOption) {
  for (const std::string bad :
       {"", "localhost", "localhost:", ":29500", "host:0", "host:65536", "host:123456", "host:12a",
        "host:-5", "host: 80", "::1:29500", "[::1", "[::1]29500", "[]:29500"}) {
    try {
      parseMasterAddress(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--master") << bad;
      EXPECT_NE(std::string(e.what()).find("HOST:PORT"), std::string::npos) << e.what();
    }
  }
}

TEST(FreeLoopbackPort, IsAValidPort) {
  const int port = pickFreeLoopbackPort();
  EXPECT_GE(port, 1);
  EXPECT_LE(port, 65535);
}

TEST(DataParallelGroup, BadConfigurationsAreInputErrors) {
  DistConfig config;
  config.rank = 2;
  config.world_size = 2;
  try {
    DataParallelGroup::connect(config);
    ADD_FAILURE() << "rank 2 of 2 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--rank");
  }
  config.rank = 0;
  config.timeout_s = 0;
  EXPECT_THROW(DataParallelGroup::connect(config), InputError);
  config.timeout_s = 5;
  config.master_port = 70000;
  EXPECT_THROW(DataParallelGroup::connect(config), InputError);
}

TEST(DataParallelGroup, AGroupOfOneKeepsItsValues) {
  DistConfig config;
  config.master_port = pickFreeLoopbackPort();
  config.timeout_s = 10;
  auto group = DataParallelGroup::connect(config);
  EXPECT_EQ(group->rank(), 0);
  EXPECT_EQ(group->worldSize(), 1);
  std::vector<float> values{1.5f, -2.0f, 3.25f};
  group->averageInPlace(values);
  EXPECT_EQ(values, (std::vector<float>{1.5f, -2.0f, 3.25f}));
  EXPECT_EQ(group->allreduceSum(2.5), 2.5);
  group->barrier();
}

TEST(DataParallelGroup, JoiningAloneFailsWithinTheTimeout) {
  DistConfig config;
  config.world_size = 2;
  config.master_port = pickFreeLoopbackPort();
  config.timeout_s = 2;
  try {
    DataParallelGroup::connect(config);
    ADD_FAILURE() << "a group of two formed with one worker";
  } catch (const DistributedError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("rank 0 of 2: could not form the group at 127.0.0.1:"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

class TwoWorkers : public ::testing::TestWithParam<std::string> {};

// Two workers, one share each, with the gradients averaged before every update, end with the
// parameters of one process that takes both shares with the mean gradient, bit for bit: with two
// workers the all-reduce adds a + b, which is b + a in floating point, the division by two is
// exact, and every process runs the same single-threaded kernels. (With more workers the order
// of the additions would vary with the algorithm, and only ~1e-7 relative agreement could be
// promised.) Exact equality also matters for Adam, which hardly sees the scale of the gradient:
// summing instead of averaging moves its weights by only ~2e-6.
TEST_P(TwoWorkers, EqualOneProcessTakingBothSharesWithTheMeanGradient) {
  const std::string optimizer = GetParam();
  TempDir dir("dp_" + optimizer);
  const std::string steps = "5";
  const int port = pickFreeLoopbackPort();
  Worker rank0 =
      spawnWorker({"--rank", "0", "--world-size", "2", "--master", master(port), "--timeout", "30",
                   "--steps", steps, "--optimizer", optimizer, "--out", dir.path("rank0.txt")},
                  dir.path("rank0.log"));
  Worker rank1 =
      spawnWorker({"--rank", "1", "--world-size", "2", "--master", master(port), "--timeout", "30",
                   "--steps", steps, "--optimizer", optimizer, "--out", dir.path("rank1.txt")},
                  dir.path("rank1.log"));
  Worker shares = spawnWorker({"--reference", "shares", "--shares", "2", "--steps", steps,
                               "--optimizer", optimizer, "--out", dir.path("shares.txt")},
                              dir.path("shares.log"));
  Worker full = spawnWorker({"--reference", "full", "--steps", steps, "--optimizer", optimizer,
                             "--out", dir.path("full.txt")},
                            dir.path("full.log"));
  ASSERT_EQ(waitWorker(rank0), 0) << slurp(rank0.log);
  ASSERT_EQ(waitWorker(rank1), 0) << slurp(rank1.log);
  ASSERT_EQ(waitWorker(shares), 0) << slurp(shares.log);
  ASSERT_EQ(waitWorker(full), 0) << slurp(full.log);

  const Result r0 = readResult(dir.path("rank0.txt"));
  const Result r1 = readResult(dir.path("rank1.txt"));
  const Result one = readResult(dir.path("shares.txt"));
  const Result whole = readResult(dir.path("full.txt"));
  ASSERT_EQ(one.losses.size(), 5u);
  ASSERT_EQ(one.params.size(), 8u * 16 + 16 + 16 + 1);
  for (const Result* r : {&r0, &r1, &whole}) {
    ASSERT_EQ(r->losses.size(), one.losses.size());
    ASSERT_EQ(r->params.size(), one.params.size());
  }
  EXPECT_EQ(r0.params, one.params) << "max difference " << maxAbsDiff(r0.params, one.params);
  EXPECT_EQ(r1.params, one.params) << "max difference " << maxAbsDiff(r1.params, one.params);
  EXPECT_EQ(r0.losses, one.losses) << "max difference " << maxAbsDiff(r0.losses, one.losses);
  // Training did something (else equal parameters would prove little).
  EXPECT_LT(one.losses.back(), one.losses.front());
  // The mean of the shares' gradients is the gradient over all the data, up to float rounding.
  EXPECT_LE(maxAbsDiff(r0.params, whole.params), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, TwoWorkers, ::testing::Values("sgd", "adam"),
                         [](const auto& info) { return info.param; });

// A worker that dies (SIGKILL before its step-2 all-reduce: its sockets close) or hangs
// (SIGSTOP: nothing closes, only the timeout can tell) ends the other worker with a
// DistributedError naming its rank and the collective, and a non-zero exit; never a hang.
struct Failure {
  int victim;       // the rank that dies or hangs
  const char* how;  // "--die-at-step" or "--hang-at-step"
};

void PrintTo(const Failure& failure, std::ostream* out) {
  *out << "rank " << failure.victim << " " << failure.how;
}

class AWorkerFails : public ::testing::TestWithParam<Failure> {};

TEST_P(AWorkerFails, TheOtherEndsWithAClearError) {
  const Failure failure = GetParam();
  const int survivor = 1 - failure.victim;
  TempDir dir("dp_fail");
  const int port = pickFreeLoopbackPort();
  std::vector<Worker> workers;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> args{"--rank",       std::to_string(rank),
                                  "--world-size", "2",
                                  "--master",     master(port),
                                  "--timeout",    "5",
                                  "--steps",      "5",
                                  "--out",        dir.path("rank" + std::to_string(rank) + ".txt")};
    if (rank == failure.victim) args.insert(args.end(), {failure.how, "2"});
    workers.push_back(spawnWorker(args, dir.path("rank" + std::to_string(rank) + ".log")));
  }
  const int status = waitWorker(workers[survivor]);
  // A stopped worker is ended here; a killed one is reaped.
  ::kill(workers[failure.victim].pid, SIGKILL);
  EXPECT_EQ(waitWorker(workers[failure.victim]), 128 + SIGKILL);

  const std::string log = slurp(workers[survivor].log);
  EXPECT_EQ(status, 1) << log;
  const std::string who = "rank " + std::to_string(survivor) + " of 2: ";
  EXPECT_NE(log.find("dp_worker: " + who + "all-reduce (gradients, 161 values) failed: "),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("collectives time out after 5 s"), std::string::npos) << log;
  if (std::string(failure.how) == "--hang-at-step") {
    EXPECT_NE(log.find("Timed out"), std::string::npos) << log;
  }
  // One line.
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
}

INSTANTIATE_TEST_SUITE_P(DeadOrHung, AWorkerFails,
                         ::testing::Values(Failure{1, "--die-at-step"}, Failure{0, "--die-at-step"},
                                           Failure{1, "--hang-at-step"}),
                         [](const auto& info) {
                           return std::string(info.param.how == std::string("--die-at-step")
                                                  ? "Dies"
                                                  : "Hangs") +
                                  "Rank" + std::to_string(info.param.victim);
                         });

// LocalWorkers (`--workers N` on one machine) gives each worker its rank and the group.
TEST(LocalWorkers, StartAGroupThatRunsToTheEnd) {
  TempDir dir("dp_local");
  LocalWorkers workers(DOPPLER_DP_WORKER,
                       {"--timeout", "30", "--steps", "3", "--out", dir.path("rank%r.txt")}, 2, 0,
                       {dir.path("rank0.log"), dir.path("rank1.log")});
  EXPECT_EQ(workers.pids().size(), 2u);
  const std::vector<WorkerExit> exits = workers.wait(10);
  ASSERT_EQ(exits.size(), 2u);
  for (const WorkerExit& exit : exits)
    EXPECT_EQ(exit.status, 0) << exit.describe() << "\n"
                              << slurp(dir.path("rank0.log")) << slurp(dir.path("rank1.log"));
  EXPECT_EQ(LocalWorkers::firstFailure(exits), "");
  const Result r0 = readResult(dir.path("rank0.txt"));
  EXPECT_EQ(r0.losses.size(), 3u);
  EXPECT_EQ(r0.params, readResult(dir.path("rank1.txt")).params);
}

TEST(LocalWorkers, NameTheWorkerThatDied) {
  TempDir dir("dp_local_dies");
  LocalWorkers workers(DOPPLER_DP_WORKER,
                       {"--timeout", "5", "--steps", "5", "--victim", "1", "--die-at-step", "2",
                        "--out", dir.path("rank%r.txt")},
                       2, 0, {dir.path("rank0.log"), dir.path("rank1.log")});
  const std::vector<WorkerExit> exits = workers.wait(30);
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_EQ(exits[0].status, 1) << slurp(dir.path("rank0.log"));
  EXPECT_EQ(exits[1].status, 128 + SIGKILL);
  EXPECT_FALSE(exits[1].killedByUs);
  EXPECT_EQ(LocalWorkers::firstFailure(exits), "rank 1 was killed by signal 9 (Killed)");
}

// A hung worker outlives the group's timeout; the launcher kills it after the grace period. The
// timeout is long enough for the steps before the hang on a loaded machine (or under TSan): with
// 5 s, a slow start let rank 1 time out first and rank 0 be the one killed.
TEST(LocalWorkers, KillAWorkerThatHangs) {
  TempDir dir("dp_local_hangs");
  LocalWorkers workers(DOPPLER_DP_WORKER,
                       {"--timeout", "20", "--steps", "5", "--victim", "1", "--hang-at-step", "2",
                        "--out", dir.path("rank%r.txt")},
                       2, 0, {dir.path("rank0.log"), dir.path("rank1.log")});
  const std::vector<WorkerExit> exits = workers.wait(1);
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_EQ(exits[0].status, 1) << slurp(dir.path("rank0.log"));
  EXPECT_TRUE(exits[1].killedByUs);
  EXPECT_EQ(exits[1].describe(), "rank 1 hung and was killed");
  EXPECT_EQ(LocalWorkers::firstFailure(exits), "rank 0 exited with status 1");
  EXPECT_NE(slurp(dir.path("rank0.log")).find("Timed out"), std::string::npos);
}

}  // namespace
}  // namespace doppler::train

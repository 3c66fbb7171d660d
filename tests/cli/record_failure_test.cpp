// A run that cannot be recorded must not cost its result: with the session file unable to grow
// (a full disk), `place` and `simulate` still print their result in full, then say on stderr that
// the run was not recorded and why, and exit with status 3.
//
// The full disk is real to SQLite: the child runs with RLIMIT_FSIZE, so every write that would
// take a file past the limit fails with EFBIG, as ENOSPC would (doppler ignores SIGXFSZ, which
// would otherwise kill it). stdout and stderr are pipes, which the limit does not touch.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out, err;
};

// A limit the store's shared-memory file (32 KiB) fits under, but no run of a 205-node graph.
constexpr rlim_t kFullDisk = 64 * 1024;

class RecordFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("doppler_record_failure_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs doppler with `args`; with `fileLimit`, no file it writes may grow past that many bytes.
  Result run(const std::vector<std::string>& args, rlim_t fileLimit = RLIM_INFINITY) const {
    int out[2], err[2];
    if (::pipe(out) != 0 || ::pipe(err) != 0) return {};
    const std::string xdg = "XDG_DATA_HOME=" + path("xdg"), home = "HOME=" + path("home");
    std::vector<char*> argv = {const_cast<char*>(DOPPLER_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      const rlimit limit{fileLimit, fileLimit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      ::close(out[0]);
      ::close(err[0]);
      ::close(out[1]);
      ::close(err[1]);
      ::putenv(const_cast<char*>(xdg.c_str()));
      ::putenv(const_cast<char*>(home.c_str()));
      ::execv(DOPPLER_CLI, argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    Result r;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    int open = 2;
    while (open > 0 && std::chrono::steady_clock::now() < deadline) {
      if (::poll(fds, 2, 1000) < 0) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
        char buf[65536];
        const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          sinks[i]->append(buf, static_cast<size_t>(n));
        } else {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open;
        }
      }
    }
    if (open > 0) ::kill(pid, SIGKILL);  // a hang fails the test below
    for (const pollfd& f : fds)
      if (f.fd >= 0) ::close(f.fd);
    int raw = 0;
    ::waitpid(pid, &raw, 0);
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return r;
  }

  // Runs `args` unlimited and expects success; returns stdout.
  std::string ok(const std::vector<std::string>& args) const {
    const Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }

  // Expects the "computed but not recorded" outcome: status 3, one line on stderr naming the
  // session file, and stdout exactly as the same command prints with --no-record.
  void expectResultButNoRecord(const Result& limited, const std::string& unrecorded,
                               const std::string& db) const {
    EXPECT_EQ(limited.status, 3) << limited.err;
    // In full, and without a run id (compared whole: a printed diff would be pages long).
    EXPECT_TRUE(limited.out == unrecorded)
        << "stdout: " << limited.out.size() << " bytes, expected " << unrecorded.size();
    EXPECT_EQ(std::count(limited.err.begin(), limited.err.end(), '\n'), 1) << limited.err;
    EXPECT_NE(limited.err.find("not recorded"), std::string::npos) << limited.err;
    EXPECT_NE(limited.err.find(db), std::string::npos) << limited.err;
  }

  fs::path dir_;
};

TEST_F(RecordFailure, PlaceOnAFullDiskPrintsItsResultThenSaysTheRunWasNotRecorded) {
  const std::string graph = path("layer.json"), db = path("runs.sqlite");
  ok({"graph", "generate", "llama-layer", "--out", graph});
  // The session exists and already holds the graph and device set: the run begins, then its
  // placement and timelines no longer fit.
  ok({"place", "--graph", graph, "--devices", "4", "--method", "heft", "--db", db});
  const std::vector<std::string> place = {
      "place",        "--graph",  graph, "--devices", "4", "--method",
      "local-search", "--budget", "300", "--seed",    "3"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = place;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::string json = ok(with({"--json", "--no-record"}));
  ASSERT_EQ(nlohmann::json::parse(json)["assignment"].size(), 205u);
  // The limit alone harms nothing when the run is not recorded.
  EXPECT_EQ(run(with({"--json", "--no-record"}), kFullDisk).status, 0);

  expectResultButNoRecord(run(with({"--json", "--db", db}), kFullDisk), json, db);
  expectResultButNoRecord(run(with({"--db", db}), kFullDisk), ok(with({"--no-record"})), db);
  // --out gets the result too.
  const Result toFile = run(with({"--json", "--db", db, "--out", path("placed.json")}), kFullDisk);
  expectResultButNoRecord(toFile, "", db);
  std::ifstream placed(path("placed.json"));
  std::stringstream written;
  written << placed.rdbuf();
  EXPECT_TRUE(written.str() == json) << written.str().size() << " bytes, expected " << json.size();

  // The session is left readable; only the first run finished.
  const auto runs = nlohmann::json::parse(ok({"runs", "list", "--db", db, "--json"}))["runs"];
  ASSERT_GE(runs.size(), 1u);
  for (const auto& r : runs) {
    if (r["id"] != 1) {
      EXPECT_NE(r["status"], "finished") << r.dump();
    }
  }
}

TEST_F(RecordFailure, ARunThatCannotEvenBeginIsStillComputed) {
  const std::string small = path("chain.json"), layer = path("layer.json"),
                    db = path("runs.sqlite");
  ok({"graph", "generate", "chainmm", "--out", small});
  ok({"graph", "generate", "llama-layer", "--out", layer});
  ok({"place", "--graph", small, "--devices", "4", "--db", db});
  // A graph the session does not hold yet: storing it fails before the method runs.
  const std::vector<std::string> place = {"place", "--graph", layer, "--devices", "4", "--json"};
  std::vector<std::string> unrecorded = place, recorded = place;
  unrecorded.push_back("--no-record");
  recorded.insert(recorded.end(), {"--db", db});
  const Result r = run(recorded, kFullDisk);
  expectResultButNoRecord(r, ok(unrecorded), db);
}

TEST_F(RecordFailure, SimulateOnAFullDiskPrintsItsResultThenSaysTheRunWasNotRecorded) {
  const std::string graph = path("layer.json"), db = path("runs.sqlite");
  ok({"graph", "generate", "llama-layer", "--out", graph});
  std::ofstream(path("placed.json"))
      << ok({"place", "--graph", graph, "--devices", "4", "--method", "etf", "--json", "--db", db});
  const std::vector<std::string> simulate = {
      "simulate",     "--graph",           graph,          "--devices", "4",
      "--assignment", path("placed.json"), "--cost-model", "links",     "--json"};
  std::vector<std::string> unrecorded = simulate, recorded = simulate;
  unrecorded.push_back("--no-record");
  recorded.insert(recorded.end(), {"--db", db});
  expectResultButNoRecord(run(recorded, kFullDisk), ok(unrecorded), db);
}

}  // namespace

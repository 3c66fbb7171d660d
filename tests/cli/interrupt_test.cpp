// Ctrl-C and SIGTERM during a long `place` search lose nothing: the best placement so far is
// printed, marked partial ("partial": true, "stopped": "interrupted"), stored as a cancelled run,
// and the command exits 130. A budget that cannot be spent usefully is not spent: a 3-node graph
// given 10^12 evaluations searches its 64 placements and stops.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class Interrupt : public doppler::testing::CliFixture {
 protected:
  std::string slurp(const std::string& file) const {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Starts doppler with `args`, stdout and stderr into files; returns its pid.
  pid_t start(const std::vector<std::string>& args, const std::string& out,
              const std::string& err) const {
    std::vector<char*> argv = {const_cast<char*>(DOPPLER_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::string xdg = "XDG_DATA_HOME=" + path("xdg"), home = "HOME=" + path("home");
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::putenv(const_cast<char*>(xdg.c_str()));
      ::putenv(const_cast<char*>(home.c_str()));
      ::execv(DOPPLER_CLI, argv.data());
      ::_exit(127);
    }
    return pid;
  }

  // The status of the session's only run, "" before it exists.
  std::string runStatus(const std::string& db) const {
    const doppler::testing::CliResult r = run("runs list --json --db " + db);
    if (r.status != 0) return {};
    const json j = json::parse(r.out, nullptr, false);
    if (j.is_discarded() || j["runs"].empty()) return {};
    return j["runs"][0]["status"];
  }

  void interruptWith(int sig, const char* name) {
    const std::string graph = path("layer.json"), db = path("runs.sqlite");
    ASSERT_EQ(run("graph generate llama-layer --out " + graph).status, 0);
    const pid_t pid = start({"place", "--graph", graph, "--devices", "4", "--method",
                             "local-search", "--budget", "100000000000", "--json", "--db", db},
                            path("out.json"), path("err.txt"));
    ASSERT_GT(pid, 0);
    // The run is begun (stored, status running) after the handlers are in place and before the
    // search: from then on the signal is a request to stop. No timing: the test waits for it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (runStatus(db) != "running" && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(runStatus(db), "running");
    ::kill(pid, sig);
    int raw = 0;
    ::waitpid(pid, &raw, 0);
    ASSERT_TRUE(WIFEXITED(raw)) << "killed by the signal instead of handling it";
    EXPECT_EQ(WEXITSTATUS(raw), 130);
    const json out = json::parse(slurp(path("out.json")));
    EXPECT_TRUE(out["partial"].get<bool>());
    EXPECT_EQ(out["stopped"], "interrupted");
    EXPECT_EQ(out["interrupted_by"], name);
    EXPECT_GT(out["makespan_us"].get<double>(), 0);
    EXPECT_EQ(out["assignment"].size(), 205u);
    const std::string err = slurp(path("err.txt"));
    EXPECT_NE(err.find(std::string("interrupted by ") + name), std::string::npos) << err;
    EXPECT_NE(err.find("partial"), std::string::npos) << err;
    EXPECT_EQ(runStatus(db), "cancelled");
  }
};

TEST_F(Interrupt, CtrlCDuringASearchPrintsItsBestAndExits130) {
  interruptWith(SIGINT, "SIGINT");
}

TEST_F(Interrupt, SigtermDuringASearchPrintsItsBestAndExits130) {
  interruptWith(SIGTERM, "SIGTERM");
}

TEST_F(Interrupt, AnExhaustibleBudgetIsNotSpent) {
  const std::string graph = write("tiny.json", R"({"format":"dataflow-graph/1","nodes":[
    {"id":"a","compute_us":10},{"id":"b","compute_us":10},{"id":"c","compute_us":10}],
    "edges":[{"src":"a","dst":"b","transfer_us":100},{"src":"a","dst":"c","transfer_us":100}]})");
  const doppler::testing::CliResult r =
      run("place --graph " + graph +
          " --devices 4 --method local-search --budget 1000000000000 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["stopped"], "exhaustive");
  EXPECT_EQ(out["evaluations"], 65);
  EXPECT_FALSE(out["partial"].get<bool>());
  EXPECT_DOUBLE_EQ(out["makespan_us"].get<double>(), 30.0);
}

}  // namespace

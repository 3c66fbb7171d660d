// Ctrl-C and SIGTERM during a long command lose nothing: during a `place` search the best
// placement so far is printed, marked partial ("partial": true, "stopped": "interrupted"), stored
// as a cancelled run, and the command exits 130; `exec` reports the executions that finished and
// `fleet compare` the seeds every method finished, the same way. A budget that cannot be spent
// usefully is not spent: a 3-node graph given 10^12 evaluations searches its 64 placements and
// stops.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/cli_fixture.h"

namespace {

using nlohmann::json;

class Interrupt : public doppler::testing::CliFixture {
 protected:
  void interruptWith(int sig, const char* name) {
    const std::string graph = path("layer.json"), db = path("runs.sqlite");
    ASSERT_EQ(run("graph generate llama-layer --out " + graph).status, 0);
    const doppler::testing::CliResult r =
        runThenSignal("place --graph " + graph +
                          " --devices 4 --method local-search --budget 100000000000 --json",
                      db, sig);
    ASSERT_EQ(r.status, 130) << "killed by the signal instead of handling it\n" << r.err;
    const json out = json::parse(r.out);
    EXPECT_TRUE(out["partial"].get<bool>());
    EXPECT_EQ(out["stopped"], "interrupted");
    EXPECT_EQ(out["interrupted_by"], name);
    EXPECT_GT(out["makespan_us"].get<double>(), 0);
    EXPECT_EQ(out["assignment"].size(), 205u);
    EXPECT_NE(r.err.find(std::string("interrupted by ") + name), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("partial"), std::string::npos) << r.err;
    EXPECT_EQ(firstRunStatus(db), "cancelled");
  }
};

TEST_F(Interrupt, CtrlCDuringASearchPrintsItsBestAndExits130) {
  interruptWith(SIGINT, "SIGINT");
}

TEST_F(Interrupt, SigtermDuringASearchPrintsItsBestAndExits130) {
  interruptWith(SIGTERM, "SIGTERM");
}

// The signal may come before the first execution ends (nothing measured, said on stderr) or
// after (the finished ones, partial): both exit 130 and store the run cancelled.
TEST_F(Interrupt, ExecReportsTheExecutionsThatFinished) {
  const std::string graph = path("layer.json"), db = path("runs.sqlite"), a = path("a.json");
  ASSERT_EQ(run("graph generate llama-layer --out " + graph).status, 0);
  ASSERT_EQ(
      run("place --graph " + graph + " --devices 2 -m critical-path --json --no-record -o " + a)
          .status,
      0);
  const doppler::testing::CliResult r =
      runThenSignal("exec --graph " + graph + " --devices 2 --assignment " + a +
                        " --kernels synthetic --target-ms 1 --repeat 100000000 --timeout 100000 "
                        "--json",
                    db, SIGTERM);
  ASSERT_EQ(r.status, 130) << "killed by the signal instead of handling it\n" << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGTERM"), std::string::npos) << r.err;
  if (r.out.empty()) {
    EXPECT_NE(r.err.find("nothing was measured"), std::string::npos) << r.err;
  } else {
    const json out = json::parse(r.out);
    EXPECT_TRUE(out["partial"].get<bool>());
    EXPECT_EQ(out["interrupted_by"], "SIGTERM");
    EXPECT_GE(out["repeats_us"].size(), 1u);
    EXPECT_LT(out["repeats_us"].size(), 100000000u);
    EXPECT_GT(out["measured_makespan_us"].get<double>(), 0);
    EXPECT_FALSE(out.contains("outputs_match"));  // not verified: the run was stopped
  }
  EXPECT_EQ(firstRunStatus(db), "cancelled");
}

TEST_F(Interrupt, FleetCompareReportsTheSeedsEveryMethodFinished) {
  const std::string db = path("runs.sqlite");
  const doppler::testing::CliResult r = runThenSignal(
      "fleet compare -t abilene --slots 24 --methods ot,local --seeds 1000 --json", db, SIGINT);
  ASSERT_EQ(r.status, 130) << "killed by the signal instead of handling it\n" << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT"), std::string::npos) << r.err;
  if (r.out.empty()) {
    EXPECT_NE(r.err.find("nothing to compare"), std::string::npos) << r.err;
  } else {
    const json out = json::parse(r.out);
    EXPECT_TRUE(out["partial"].get<bool>());
    EXPECT_EQ(out["seeds_asked"], 1000);
    EXPECT_GE(out["seeds"].get<int>(), 1);
    EXPECT_LT(out["seeds"].get<int>(), 1000);
    EXPECT_TRUE(out["methods"].contains("ot"));
    EXPECT_TRUE(out["methods"].contains("local"));
  }
  EXPECT_EQ(firstRunStatus(db), "cancelled");
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

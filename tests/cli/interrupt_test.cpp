// Ctrl-C and SIGTERM during a long `place` search lose nothing: the best placement so far is
// printed, marked partial ("partial": true, "stopped": "interrupted"), stored as a cancelled run,
// and the command exits 130. A budget that cannot be spent usefully is not spent: a 3-node graph
// given 10^12 evaluations searches its 64 placements and stops.
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

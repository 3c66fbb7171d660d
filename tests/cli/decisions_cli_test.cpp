// `doppler place --decisions` and `--override`: the contract's JSON, a replay that reproduces or
// changes the placement, and the one-line errors of bad overrides.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"
#include "tests/support/data.h"

namespace {

using nlohmann::json;
using Result = doppler::testing::CliResult;
const std::string& kChain = doppler::testing::kChainGraph;

class DecisionsCli : public doppler::testing::CliFixture {};

TEST_F(DecisionsCli, PlaceDecisionsFollowTheContract) {
  const Result r =
      run("place --graph " + kChain + " --devices 4 --method heft --decisions --json --no-record");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["decisions"].size(), doppler::testing::kChainGraphNodes);
  EXPECT_EQ(j["decision_scores"]["node"], "upward rank (us)");
  EXPECT_EQ(j["decision_scores"]["device"], "earliest finish (us)");
  for (size_t k = 0; k < j["decisions"].size(); ++k) {
    const json& d = j["decisions"][k];
    EXPECT_EQ(d["step"], k);
    EXPECT_EQ(d["node"], j["order"][k]);
    EXPECT_EQ(j["assignment"][d["node"].get<std::string>()], d["device"]);
    bool chosenReady = false;
    for (const json& c : d["ready"]) {
      ASSERT_TRUE(c["node"].is_string() && c["score"].is_number());
      chosenReady |= c["node"] == d["node"];
    }
    EXPECT_TRUE(chosenReady) << "step " << k << ": the chosen node was not in the ready set";
    ASSERT_EQ(d["devices"].size(), 4u);
    for (const json& x : d["devices"]) {
      EXPECT_LE(x["est_start_us"].get<double>(), x["est_finish_us"].get<double>());
      EXPECT_GE(x["join_us"].get<double>(), x["est_finish_us"].get<double>());
    }
  }
  // Without --decisions there are none (the output stays small).
  const Result plain =
      run("place --graph " + kChain + " --devices 4 --method heft --json --no-record");
  EXPECT_FALSE(json::parse(plain.out).contains("decisions"));
}

TEST_F(DecisionsCli, OverridesReplayAndSimulateAsPrinted) {
  const std::string base =
      "place --graph " + kChain + " --devices 4 --method etf --json --no-record";
  const json j = json::parse(run(base + " --decisions").out);
  const json& s = j["decisions"][6];
  // The choice already made: the same placement. Device by name works as by index.
  const Result same = run(base + " --override 6:node=" + s["node"].get<std::string>() +
                          " --override 6:device=" + std::to_string(s["device"].get<int>()));
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_EQ(json::parse(same.out)["assignment"], j["assignment"]);
  const int other = (s["device"].get<int>() + 1) % 4;
  const Result moved = run(base + " --override 6:device=" + std::to_string(other));
  ASSERT_EQ(moved.status, 0) << moved.err;
  const json m = json::parse(moved.out);
  EXPECT_EQ(m["assignment"][s["node"].get<std::string>()], other);
  // Its makespan is what `doppler simulate` says of its assignment.
  const Result sim = run("simulate --graph " + kChain + " --devices 4 --json --no-record " +
                         "--assignment " + write("moved.json", moved.out));
  ASSERT_EQ(sim.status, 0) << sim.err;
  EXPECT_DOUBLE_EQ(json::parse(sim.out)["makespan_us"].get<double>(),
                   m["makespan_us"].get<double>());
}

TEST_F(DecisionsCli, BadOverridesAreOneLineWithStatusTwo) {
  const std::string base = "place --graph " + kChain + " --devices 4 --method heft --no-record";
  expectBadInput(base + " --override 40:device=1",
                 {"--override 40:device", "out of range", "0 to 39"});
  expectBadInput(base + " --override 0:device=7", {"--override 0:device=7", "no device 7"});
  expectBadInput(base + " --override 0:device=tpu", {"no device 'tpu'"});
  expectBadInput(base + " --override 0:node=nope", {"no node 'nope'"});
  expectBadInput(base + " --override x:node=1", {"--override x:node=1", "whole number"});
  expectBadInput(base + " --override 3", {"expected STEP:node=ID or STEP:device=D"});
  expectBadInput(base + " --override 0:node=39",
                 {"--override 0:node", "'39' is not ready at step 0"});
  expectBadInput("place --graph " + kChain + " --devices 4 --method random --decisions",
                 {"--decisions", "random does not place node by node", "heft"});
}

}  // namespace

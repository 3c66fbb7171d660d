// `doppler fleet simulate` and `doppler fleet compare` end to end: the JSON shapes, the text
// table, recording in the run store, and bad input exiting 2 with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace {

using nlohmann::json;

class FleetSimCli : public doppler::testing::CliFixture {};

TEST_F(FleetSimCli, SimulateJsonHasTheMetricsAndTheLoad) {
  const auto r =
      run("fleet simulate --topology abilene --trace conv --slots 8 --method skylb --seed 2 --json "
          "--no-record");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["method"], "skylb");
  EXPECT_EQ(j["fidelity"], "slot");
  EXPECT_EQ(j["seed"], 2);
  const json& m = j["metrics"];
  for (const char* key :
       {"mean_response_s", "p95_response_s", "ttft_p95_s",         "tpot_p95_s",
        "slo_attainment",  "mean_queue_s",   "power_cost",         "switches",
        "load_balance",    "utilization",    "cross_region_share", "goodput_rps",
        "throughput_rps",  "tokens_per_s",   "gpu_cost_usd",       "energy_per_token_j",
        "migrations",      "jain_index",     "utilization_cv",     "e2e_p99_s"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_EQ(m["region_utilization"].size(), 12u);
  // Fluid counts: equal up to rounding.
  EXPECT_NEAR(m["arrivals"].get<double>(),
              m["served"].get<double>() + m["queued"].get<double>() + m["rejected"].get<double>(),
              1e-9 * m["arrivals"].get<double>());
  EXPECT_NEAR(j["load"]["load_factor"].get<double>(), 0.7, 0.15);
}

// One copy of the trace over the horizon (stretch, once) keeps its request count, so --load
// cannot set its mean load: it is not applied, and the output says so instead of quoting a
// target it missed; once keeps the trace's own times instead of crowding it into the first
// seconds. calendar and tile apply it.
TEST_F(FleetSimCli, TheLoadTargetAppliesToTheCalendarAndTiledHorizonsOnlyAndSaysSo) {
  auto load = [&](const std::string& horizon) {
    const auto r = run("fleet simulate -t abilene --slots 24 --method ot --horizon " + horizon +
                       " --json --no-record");
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out)["load"] : json();
  };
  for (const std::string horizon : {"calendar", "tile"}) {
    const json j = load(horizon);
    EXPECT_EQ(j["load_applied"], true) << horizon;
    EXPECT_EQ(j["target_load"], 0.7) << horizon;
    EXPECT_NEAR(j["load_factor"].get<double>(), 0.7, 0.05) << horizon;
  }
  for (const std::string horizon : {"stretch", "once"}) {
    const json j = load(horizon);
    EXPECT_EQ(j["load_applied"], false) << horizon;
    EXPECT_TRUE(j["target_load"].is_null()) << horizon;
    EXPECT_EQ(j["time_scale"], 1.0) << horizon;  // the trace's own times
    EXPECT_LT(j["load_factor"].get<double>(), 0.7) << horizon;
  }
  const auto text =
      run("fleet simulate -t abilene --slots 24 --method ot --horizon once --no-record");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("--load applies to --horizon calendar and tile only"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("target 0.7"), std::string::npos) << text.out;
}

TEST_F(FleetSimCli, RequestFidelityRunsToo) {
  const auto r =
      run("fleet simulate -t polska --slots 4 --fidelity request --method ot --json --no-record");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["fidelity"], "request");
  EXPECT_GT(j["metrics"]["served"].get<double>(), 0);
}

TEST_F(FleetSimCli, CompareJsonHasEveryMethodWithConfidenceIntervals) {
  const auto r =
      run("fleet compare --topology polska --trace synthetic --slots 6 --seeds 2 "
          "--methods local,round-robin,ot --json --no-record");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["methods"].size(), 3u);
  for (const char* method : {"local", "round-robin", "ot"}) {
    const json& row = j["methods"][method];
    for (const char* key : {"mean_response_s", "p95_response_s", "ttft_p95_s", "tpot_p95_s",
                            "slo_attainment", "mean_queue_s", "power_cost", "switches",
                            "load_balance", "utilization", "cross_region_share"}) {
      EXPECT_TRUE(row.contains(key)) << method << " " << key;
      EXPECT_TRUE(row.contains(std::string(key) + "_ci95")) << method << " " << key;
      EXPECT_GE(row[std::string(key) + "_ci95"].get<double>(), 0);
    }
  }
  EXPECT_EQ(j["methods"]["local"]["cross_region_share"], 0);
  EXPECT_GT(j["methods"]["round-robin"]["cross_region_share"].get<double>(), 0.8);
}

TEST_F(FleetSimCli, CompareTextIsATableAndTheRunIsRecorded) {
  const std::string db = path("runs.sqlite");
  const auto r =
      run("fleet compare -t abilene --slots 4 --seeds 2 --methods local,sdib --db " + db);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("method"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sdib"), std::string::npos);
  EXPECT_NE(r.out.find("±"), std::string::npos);
  EXPECT_NE(r.out.find("recorded in"), std::string::npos);
  const auto list = run("runs list --db " + db + " --json");
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("fleet"), std::string::npos) << list.out;
}

TEST_F(FleetSimCli, RunsAreListedByTopologyAndFleetSizeAndBadInputRecordsNothing) {
  const std::string db = path("runs.sqlite");
  const std::string topology = write("tri.txt",
                                     "NODES (\n a ( 0 50 )\n b ( 1 50 )\n c ( 2 50 )\n)\n"
                                     "LINKS (\n ab ( a b )\n bc ( b c )\n)\n");
  ASSERT_EQ(run("fleet simulate -t " + topology + " --slots 2 --db " + db).status, 0);
  expectBadInput("fleet simulate -t atlantis --db " + db, {"atlantis"});
  expectBadInput("fleet compare -t abilene --load 0 --time-scale 1e-9 --db " + db,
                 {"above the limit"});
  const auto list = run("runs list --db " + db + " --json");
  ASSERT_EQ(list.status, 0) << list.err;
  const nlohmann::json runs = nlohmann::json::parse(list.out)["runs"];
  ASSERT_EQ(runs.size(), 1u) << list.out;  // the two refused commands began no run
  EXPECT_EQ(runs[0]["graph"]["name"], "fleet:tri") << list.out;  // the stem, not the path
  EXPECT_EQ(runs[0]["devices"]["name"].get<std::string>().rfind("3 regions, ", 0), 0u) << list.out;
}

TEST_F(FleetSimCli, BadInputExitsTwoWithOneLine) {
  expectBadInput("fleet simulate -t abilene --method psychic --no-record",
                 {"--method psychic", "unknown method"});
  expectBadInput("fleet simulate -t abilene --fidelity atoms --no-record",
                 {"--fidelity atoms", "unknown fidelity"});
  expectBadInput("fleet compare -t abilene --methods ot,,local --no-record", {"--methods"});
  expectBadInput("fleet simulate -t atlantis --no-record", {"atlantis", "not a shipped topology"});
  expectBadInput("fleet simulate -t abilene --model gpt-9 --no-record", {"--model"});
  const std::string trace =
      write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,x,4\n");
  expectBadInput("fleet simulate -t abilene --trace " + trace + " --no-record", {trace, "line 2"});
}

TEST_F(FleetSimCli, OptionsThatCannotWorkExitTwoSayingWhy) {
  // CLI11's own check named its range up to DBL_MAX.
  const auto zero = expectBadInput("fleet simulate -t abilene --slots 0 --no-record",
                                   {"--slots", "expected a positive number, found 0"});
  EXPECT_EQ(zero.err.find("179769"), std::string::npos) << zero.err;
  expectBadInput("fleet compare -t abilene --ttft-slo -1 --no-record", {"--ttft-slo", "positive"});
  expectBadInput("fleet simulate -t abilene --load -0.5 --no-record", {"--load"});
  expectBadInput("fleet simulate -t abilene --seed -1 --no-record", {"--seed", "non-negative"});
  // No GPU holds the model, so no demand can reach the target load (it ran, rejecting all).
  expectBadInput("fleet simulate -t abilene --model llama-2-70b --slots 4 --no-record",
                 {"no capacity for llama-2-70b"});
  // Billions of requests: refused before building them (it ran out of memory).
  expectBadInput("fleet simulate -t abilene --load 0 --time-scale 1e-9 --slots 20 --no-record",
                 {"requests over the horizon", "above the limit"});
}

// What the fleet's core refuses (its InputErrors, no longer re-thrown by each command) reaches
// the user as one line and exit 2 from every command, never as "internal error" (exit 1).
TEST_F(FleetSimCli, EveryFleetCommandRefusesWhatTheCoreRefusesWithExitTwo) {
  const std::string empty = write("empty.txt", "NODES (\n)\nLINKS (\n)\n");
  const std::vector<std::string> commands = {
      "fleet world", "fleet simulate --no-record", "fleet compare --seeds 1 --no-record",
      "fleet train --episodes 1 --no-record --out " + path("never.pt")};
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    for (const auto& [args, fragment] : std::vector<std::pair<std::string, std::string>>{
             {" -t abilene --slots 2000000", "--slots"},
             {" -t abilene --time-scale 1e-9 --slots 20", "above the limit"},
             {" -t abilene --model gpt-9", "--model"},
             {" -t " + empty, empty}}) {
      const auto r = expectBadInput(command + args, {fragment});
      EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
  }
}

// `compare` trains torta beside the session, or in the temporary folder, under the topology's
// name: a topology given as a path made it a folder that did not exist.
TEST_F(FleetSimCli, ComparingOnATopologyFileTrainsTortaUnderItsStem) {
  const std::string topology = write("nets_one.txt",
                                     "NODES (\n a ( 0 50 )\n b ( 1 50 )\n)\n"
                                     "LINKS (\n ab ( a b )\n)\n");
  const auto r = run("fleet compare -t " + topology +
                     " --slots 4 --seeds 1 --methods ot,torta --train-episodes 1 --no-record");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("torta"), std::string::npos) << r.out;
}

}  // namespace

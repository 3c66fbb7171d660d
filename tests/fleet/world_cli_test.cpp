// `doppler fleet world` end to end: the JSON shape, the text summary, and bad input exiting 2
// with the file and line on one stderr line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace {

using nlohmann::json;

class FleetWorldCli : public doppler::testing::CliFixture {};

TEST_F(FleetWorldCli, JsonHasRegionsLatencyAndDemand) {
  const auto r = run("fleet world --topology abilene --trace conv --slots 100 --seed 3 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["topology"], "abilene");
  EXPECT_EQ(j["coordinates"], "lonlat");
  EXPECT_EQ(j["seed"], 3);
  ASSERT_EQ(j["regions"].size(), 12u);
  long long sum = 0;
  for (const json& region : j["regions"]) {
    for (const char* key : {"name", "x", "y", "degree", "gpus", "gpu_total", "usd_per_kwh",
                            "price_basis", "requests"})
      EXPECT_TRUE(region.contains(key)) << key;
    EXPECT_EQ(region["gpus"].size(), 5u);
    sum += region["requests"].get<long long>();
  }
  const json& demand = j["demand"];
  EXPECT_EQ(demand["slots"], 100);
  EXPECT_EQ(demand["slot_seconds"], 45);
  EXPECT_EQ(sum, demand["requests"].get<long long>());
  // 100 x 45 s = 4,500 s near the trace's own rate (the calendar's conv level at Thursday
  // 14:00 UTC): more requests than the 3,502 s trace holds.
  EXPECT_GT(demand["requests"].get<long long>(), 19366);
  EXPECT_EQ(demand["horizon"], "calendar");
  EXPECT_EQ(demand["start"], "Thu 14:00");
  EXPECT_EQ(demand["profile"], "conv");
  EXPECT_EQ(demand["trace_part"], "held-out");
  EXPECT_LE(demand["peak_slot_requests"].get<int>(), demand["requests"].get<int>());
  const json& latency = j["latency_s"];
  EXPECT_GT(latency["min"].get<double>(), 0);
  EXPECT_LE(latency["min"].get<double>(), latency["mean"].get<double>());
  EXPECT_LE(latency["mean"].get<double>(), latency["max"].get<double>());
  EXPECT_GT(j["capacity"]["fleet_requests_per_s"].get<double>(), 0);
  EXPECT_EQ(j["catalog"].size(), 5u);
}

// The calendar's options are checked, refused with another horizon, and a spike adds demand to
// its region only while it lasts.
TEST_F(FleetWorldCli, CalendarOptionsAndSpikes) {
  expectBadInput("fleet world -t abilene --horizon tile --start 'thu 10:00'",
                 {"--start", "applies to --horizon calendar only"});
  expectBadInput("fleet world -t abilene --horizon once --profile code", {"--profile", "calendar"});
  expectBadInput("fleet world -t abilene --start 'someday 10:00'", {"--start", "'thu 14:00'"});
  expectBadInput("fleet world -t abilene --profile weekly", {"--profile weekly", "conv, code"});
  expectBadInput("fleet world -t abilene --trace-part middle", {"--trace-part", "held-out"});
  expectBadInput("fleet world -t abilene --spike 12:1:30:3", {"--spike", "no region '12'"});
  expectBadInput("fleet world -t abilene --spike 3:1:30", {"--spike", "REGION:START_H"});
  expectBadInput("fleet world -t abilene --spike 3:1:0:3", {"--spike", "duration"});
  auto requests = [&](const std::string& extra) {
    const auto r = run("fleet world -t abilene --slots 160 --json " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<long long> perRegion;
    if (r.status != 0) return perRegion;
    const json j = json::parse(r.out);  // kept: a range-for over a temporary's member dangles
    for (const json& region : j["regions"])
      perRegion.push_back(region["requests"].get<long long>());
    return perRegion;
  };
  const std::vector<long long> base = requests(""), spiked = requests("--spike 3:0.5:30:3");
  ASSERT_EQ(base.size(), 12u);
  ASSERT_EQ(spiked.size(), 12u);
  // 30 of the 120 minutes at 3x: about 1.5x the region's requests, the others' nearly unchanged.
  EXPECT_GT(spiked[3], base[3] * 13 / 10);
  EXPECT_LT(spiked[3], base[3] * 17 / 10);
  long long others = 0, othersBase = 0;
  for (int r = 0; r < 12; ++r)
    if (r != 3) others += spiked[r], othersBase += base[r];
  EXPECT_NEAR(static_cast<double>(others) / static_cast<double>(othersBase), 1.0, 0.1);
}

TEST_F(FleetWorldCli, TextSummaryNamesRegionsAndTotals) {
  const auto r = run("fleet world --topology gabriel --trace synthetic --slots 20");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("gabriel (25 regions, 40 links, planar km)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("R24"), std::string::npos);
  EXPECT_NE(r.out.find("latency     one-way"), std::string::npos);
  EXPECT_NE(r.out.find("load factor"), std::string::npos);
}

TEST_F(FleetWorldCli, AcceptsATopologyFile) {
  const std::string file = write("tri.txt",
                                 "NODES (\r\n a ( 0 0 )\r\n b ( 1 0 )\r\n c ( 0 1 )\r\n)\r\n"
                                 "LINKS (\r\n ab ( a b )\r\n bc ( b c )\r\n)");
  const auto r = run("fleet world --topology " + file + " --trace code --slots 10 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["regions"].size(), 3u);
}

TEST_F(FleetWorldCli, MalformedTopologyExitsTwoNamingFileAndLine) {
  const std::string file =
      write("bad.txt", "NODES (\n a ( 0 0 )\n b ( 1 zero )\n)\nLINKS (\n ab ( a b )\n)\n");
  const auto r = expectBadInput("fleet world --topology " + file, {file, "line 3", "bad number"});
  EXPECT_TRUE(r.out.empty());
}

TEST_F(FleetWorldCli, MalformedTraceAndBadOptionsExitTwo) {
  const std::string trace = write("bad.csv",
                                  "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                                  "2023-11-16 18:15:46.6805900,374,44\r\n"
                                  "2023-11-16 18:15:47.0,x,44");
  expectBadInput("fleet world --topology abilene --trace " + trace,
                 {trace, "line 3", "bad ContextTokens"});
  // Requests all at one instant have no rate: refused naming the file (it said "about inf
  // requests" of the options). One request alone is a rate of one per slot.
  const std::string instant = write("instant.csv",
                                    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                    "2023-11-16 18:15:46.68,374,44\n"
                                    "2023-11-16 18:15:46.68,396,109\n");
  expectBadInput("fleet world --topology abilene --trace " + instant,
                 {instant, "TIMESTAMP", "same instant"});
  const std::string single = write("single.csv",
                                   "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                   "2023-11-16 18:15:46.68,374,44\n");
  EXPECT_EQ(run("fleet world --topology abilene --trace " + single).status, 0);
  expectBadInput("fleet world --topology atlantis", {"atlantis", "not a shipped topology"});
  expectBadInput("fleet world --topology abilene --model gpt-9", {"--model", "unknown model"});
  expectBadInput("fleet world --topology abilene --horizon forever", {"--horizon"});
  expectBadInput("fleet world --topology abilene --slots 0",
                 {"--slots", "expected a positive number, found 0"});
  expectBadInput("fleet world --topology abilene --seed -3", {"--seed", "non-negative"});
  // 10 slots of 10^9 s tiled with the trace: about 3 x 10^14 requests, refused before building
  // them (it ran out of memory and reported an internal error).
  expectBadInput("fleet world --topology abilene --slot-seconds 1e9 --slots 10",
                 {"options", "above the limit"});
}

}  // namespace

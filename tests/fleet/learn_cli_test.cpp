// `doppler fleet train`, and torta in `fleet simulate|compare`, end to end with the LibTorch
// module: the JSON, the run store, training on the spot, and bad checkpoints exiting 2.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class FleetLearnCli : public doppler::testing::CliFixture {
 protected:
  // A small policy for abilene (24 slots, 2 episodes).
  std::string trainSmall(const std::string& db) const {
    const std::string ckpt = path("abilene.pt");
    const auto r =
        run("fleet train -t abilene --slots 24 --episodes 2 --train-seeds 1 "
            "--predictor-epochs 5 --hidden 32 --out " +
            ckpt + " --json --db " + db);
    EXPECT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["checkpoint"], ckpt);
    EXPECT_EQ(j["figures"]["episodes_done"], 2);
    EXPECT_EQ(j["curve"].size(), 2u);
    EXPECT_GT(j["figures"]["predictor_accuracy"].get<double>(), 0);
    return ckpt;
  }
};

TEST_F(FleetLearnCli, TrainIsRecordedAndTortaRunsInSimulateAndCompare) {
  const std::string db = path("runs.sqlite");
  const std::string ckpt = trainSmall(db);
  const auto sim = run("fleet simulate -t abilene --slots 24 --method torta --policy " + ckpt +
                       " --json --db " + db);
  ASSERT_EQ(sim.status, 0) << sim.err;
  const json s = json::parse(sim.out);
  EXPECT_EQ(s["method"], "torta");
  EXPECT_GE(s["fallbacks"].get<int>(), 0);
  EXPECT_EQ(s["metrics"]["fallbacks"], s["fallbacks"]);
  EXPECT_EQ(s["fallback_slots"].size(), s["fallbacks"].get<size_t>());
  for (const json& f : s["fallback_slots"]) EXPECT_FALSE(f["reason"].get<std::string>().empty());
  const auto cmp =
      run("fleet compare -t abilene --slots 24 --seeds 2 --methods ot,ot-allocator,"
          "least-loaded+allocator,torta-no-predictor,torta --policy " +
          ckpt + " --json --db " + db);
  ASSERT_EQ(cmp.status, 0) << cmp.err;
  const json c = json::parse(cmp.out);
  for (const char* m :
       {"ot", "ot-allocator", "least-loaded+allocator", "torta-no-predictor", "torta"}) {
    EXPECT_TRUE(c["methods"][m].contains("mean_response_s")) << m;
    EXPECT_EQ(c["methods"][m]["per_seed"]["mean_response_s"].size(), 2u) << m;
    EXPECT_TRUE(c["methods"][m].contains("e2e_p99_s")) << m;  // every figure, not the table's
  }
  // The same allocator on OT's routing is ot-allocator, whatever its name.
  const auto same =
      run("fleet compare -t abilene --slots 24 --seeds 2 --methods ot-allocator,"
          "ot+allocator --no-record --json --policy " +
          ckpt);
  ASSERT_EQ(same.status, 0) << same.err;
  const json sm = json::parse(same.out)["methods"];
  for (const char* figure : {"mean_response_s", "e2e_p99_s", "power_cost", "switches"})
    EXPECT_EQ(sm["ot-allocator"]["per_seed"][figure], sm["ot+allocator"]["per_seed"][figure])
        << figure;
  const auto unknown =
      run("fleet compare -t abilene --slots 4 --methods nonsense+allocator "
          "--no-record --policy " +
          ckpt);
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("nonsense+allocator"), std::string::npos) << unknown.err;
  EXPECT_EQ(c["methods"]["ot"]["fallbacks"], 0);
  const auto list = run("runs list --db " + db + " --json");
  ASSERT_EQ(list.status, 0) << list.err;
  const json runs = json::parse(list.out)["runs"];
  EXPECT_EQ(runs.size(), 3u) << list.out;
  bool sawTrain = false;
  for (const json& r : runs) sawTrain = sawTrain || r.dump().find("\"train\"") != std::string::npos;
  EXPECT_TRUE(sawTrain) << list.out;
}

// The OT layer's power term is the checkpoint's: a policy trained with --ot-power-weight routes
// its reference plan to where a request's electricity costs less (capacity columns), so
// ot-allocator with that checkpoint pays less for electricity on every seed than with a
// latency-only one; the weights are recorded, and a negative one is refused.
TEST_F(FleetLearnCli, TheOtPowerTermComesWithTheCheckpoint) {
  const std::string plain = trainSmall(path("runs.sqlite"));
  const std::string power = path("power.pt");
  const auto t =
      run("fleet train -t abilene --slots 24 --episodes 1 --train-seeds 1 --predictor-epochs 5 "
          "--hidden 32 --ot-power-weight 2 --power-weight 0.5 --no-record --json --out " +
          power);
  ASSERT_EQ(t.status, 0) << t.err;
  std::vector<double> cost[2];
  int k = 0;
  for (const std::string& ckpt : {plain, power}) {
    const auto c =
        run("fleet compare -t abilene --slots 24 --seeds 2 --methods ot-allocator --no-record "
            "--json --policy " +
            ckpt);
    ASSERT_EQ(c.status, 0) << c.err;
    cost[k++] = json::parse(c.out)["methods"]["ot-allocator"]["per_seed"]["power_cost"]
                    .get<std::vector<double>>();
  }
  ASSERT_EQ(cost[0].size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_LT(cost[1][i], cost[0][i]) << "seed " << i + 1;
  expectBadInput("fleet train -t abilene --episodes 1 --ot-power-weight -1 --out " + power,
                 {"--ot-power-weight"});
}

// A learned method says what its checkpoint trained on. On the calendar horizon (the default)
// training draws its days (Mon-Wed, Sat) and the first half of the trace, so the default
// evaluation (Thursday, the second half) is held out by construction and says so; an evaluation
// on a training day from the training half is not, and says that. On the tiled horizon the
// scenario seeds differ only in pools, prices and bursts: not held out. Another topology, trace
// or load is named as a difference.
TEST_F(FleetLearnCli, TortaSaysWhetherItIsEvaluatedOnItsOwnTrainingDemand) {
  const std::string ckpt = trainSmall(path("runs.sqlite"));
  const std::string simulate =
      "fleet simulate -t abilene --slots 24 --method torta --policy " + ckpt + " --no-record ";
  const auto held = run(simulate + "--json");
  ASSERT_EQ(held.status, 0) << held.err;
  const json h = json::parse(held.out);
  EXPECT_EQ(h["policy_held_out"], true) << h["policy_provenance"];
  EXPECT_EQ(h["policy_trained_on"]["horizon"], "calendar");
  EXPECT_EQ(h["policy_trained_on"]["calendar"]["days"], "Mon-Wed, Sat");
  EXPECT_EQ(h["policy_differences"].size(), 2u) << h["policy_differences"];
  const std::string line = h["policy_provenance"];
  EXPECT_NE(line.find("trace part train (here held-out)"), std::string::npos) << line;
  EXPECT_NE(line.find("days Mon-Wed, Sat (here Thu 14:00 to Thu 14:18)"), std::string::npos)
      << line;
  EXPECT_EQ(h["demand"]["start"], "Thu 14:00");
  EXPECT_EQ(h["demand"]["trace_part"], "held-out");

  const auto same = run(simulate + "--start 'tue 09:30' --trace-part train --json");
  ASSERT_EQ(same.status, 0) << same.err;
  const json s = json::parse(same.out);
  EXPECT_EQ(s["policy_held_out"], false) << s["policy_provenance"];
  EXPECT_NE(s["policy_provenance"].get<std::string>().find("not held out"), std::string::npos);
  const auto text = run(simulate + "--start 'tue 09:30' --trace-part train");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("policy      trained on this demand"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("demand      calendar from Tue 09:30 UTC, conv profile, train half"),
            std::string::npos)
      << text.out;

  const auto other =
      run("fleet compare -t polska --trace code --load 0.5 --slots 24 --seeds 1 "
          "--methods ot,torta --policy " +
          ckpt + " --json --no-record");
  ASSERT_EQ(other.status, 0) << other.err;  // polska has abilene's 12 regions
  const json o = json::parse(other.out);
  EXPECT_EQ(o["policy_held_out"], true);
  const std::string otherLine = o["policy_provenance"];
  for (const char* d : {"topology abilene (here polska)", "trace conv (here code)",
                        "load 0.7 (here 0.5)", "profile conv (here code)"})
    EXPECT_NE(otherLine.find(d), std::string::npos) << d << " in " << otherLine;

  const auto spiked =
      run(simulate + "--start 'tue 09:30' --trace-part train --spike 3:0.1:5:3 --json");
  ASSERT_EQ(spiked.status, 0) << spiked.err;
  const json sp = json::parse(spiked.out);
  EXPECT_EQ(sp["policy_held_out"], true);
  EXPECT_EQ(sp["policy_differences"], json::array({"spikes none (here 3:0.1:5:3)"}));

  // Tiled, the training seeds see the demand evaluation sees.
  const std::string tiled = path("tiled.pt");
  const auto t =
      run("fleet train -t abilene --horizon tile --slots 24 --episodes 1 --train-seeds 1 "
          "--predictor-epochs 2 --hidden 16 --no-record --out " +
          tiled);
  ASSERT_EQ(t.status, 0) << t.err;
  const auto tile =
      run("fleet simulate -t abilene --slots 24 --horizon tile --method torta "
          "--no-record --json --policy " +
          tiled);
  ASSERT_EQ(tile.status, 0) << tile.err;
  const json j = json::parse(tile.out);
  EXPECT_EQ(j["policy_held_out"], false) << j["policy_provenance"];
  EXPECT_EQ(j["policy_trained_on"]["horizon"], "tile");
}

// Recorded, the policy trained on the spot is kept beside the session (checkpoints/) and listed
// with the run; not recorded, it is a temporary file that the command removes.
TEST_F(FleetLearnCli, CompareTrainsTortaOnTheSpotWithoutAPolicy) {
  const std::string compare =
      "fleet compare -t abilene --slots 12 --seeds 1 --methods ot,torta --train-episodes 1 --json ";
  const std::string db = path("s/runs.sqlite");
  fs::create_directories(path("s"));
  const auto r = run(compare + "--db " + db);
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["methods"]["torta"].contains("mean_response_s"));
  const fs::path policy = j["policy"].get<std::string>();
  EXPECT_EQ(policy.parent_path(), fs::path(path("s/checkpoints")));
  EXPECT_TRUE(fs::exists(policy)) << policy;
  const auto show =
      run("runs show " + std::to_string(j["run_id"].get<int64_t>()) + " --json --db " + db);
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_EQ(json::parse(show.out)["checkpoints"][0]["path"], policy.string()) << show.out;

  fs::create_directories(path("tmp"));
  const auto n = run(compare + "--no-record", "TMPDIR=" + path("tmp"));
  ASSERT_EQ(n.status, 0) << n.err;
  EXPECT_EQ(json::parse(n.out)["policy"], "");
  EXPECT_EQ(json::parse(n.out)["trained_episodes"], 1);
  EXPECT_TRUE(fs::is_empty(path("tmp")));
}

// Ctrl-C during training: the checkpoint is written, the result so far printed (partial), the
// run stored cancelled, exit 130.
TEST_F(FleetLearnCli, CtrlCKeepsTheCheckpointAndExits130) {
  const std::string db = path("runs.sqlite"), ckpt = path("int.pt");
  const auto r = runThenSignal(
      "fleet train -t abilene --slots 24 --episodes 1000000 "
      "--train-seeds 1 --predictor-epochs 5 --hidden 32 --out " +
          ckpt + " --json",
      db, SIGINT);
  ASSERT_EQ(r.status, 130) << "killed by the signal instead of handling it\n" << r.err;
  const json out = json::parse(r.out);
  EXPECT_TRUE(out["partial"].get<bool>());
  EXPECT_EQ(out["interrupted_by"], "SIGINT");
  EXPECT_NE(r.err.find("resume with --from " + ckpt), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(ckpt));
  EXPECT_EQ(firstRunStatus(db), "cancelled");
}

TEST_F(FleetLearnCli, BadPoliciesExitTwoNamingTheProblem) {
  expectBadInput("fleet simulate -t abilene --method torta --no-record", {"--policy"});
  const std::string notes = write("notes.pt", "hello\n");
  expectBadInput("fleet simulate -t abilene --method torta --policy " + notes + " --no-record",
                 {notes, "not a fleet policy checkpoint"});
  const std::string ckpt = trainSmall(path("runs.sqlite"));
  expectBadInput("fleet simulate -t gabriel --method torta --policy " + ckpt + " --no-record",
                 {ckpt, "12 regions", "25"});
  expectBadInput("fleet train -t abilene --episodes 1 --no-record", {"--out"});
  expectBadInput("fleet train -t abilene --episodes 1 --out " + path("x.pt") + " --from " + notes +
                     " --no-record",
                 {notes});
  expectBadInput("fleet simulate -t abilene --method oracle --no-record",
                 {"unknown method", "torta"});
  expectBadInput("fleet compare -t abilene --forecast-accuracy 1.5 --no-record",
                 {"--forecast-accuracy"});
}

}  // namespace

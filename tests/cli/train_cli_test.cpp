// `doppler train` and `doppler eval` as scripts use them: real processes, real checkpoints.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/train/train_config.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/data.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The repository's own Doppler-format graphs (tests/data).
const std::string& kChain = doppler::testing::kChainGraph;
const std::string& kFfnn = doppler::testing::kFfnnGraph;
constexpr size_t kChainNodes = doppler::testing::kChainGraphNodes;
// A small architecture keeps these tests quick.
const std::string kSmall =
    " --hidden 16 --mp-steps 2 --edge-hidden 8 --head-hidden 16 --device-hidden 8";

using Result = doppler::testing::CliResult;

class TrainCli : public doppler::testing::CliFixture {
 protected:
  // Stage I then stage II on CHAINMM, a few episodes each.
  std::string trained() const {
    const std::string il = path("il.pt"), sim = path("sim.pt");
    Result a =
        run("train --graph " + kChain + " --devices 4 --stage imitation --episodes 20 --out " + il +
            kSmall + " --no-record --json");
    EXPECT_EQ(a.status, 0) << a.err;
    Result b = run("train --graph " + kChain + " --devices 4 --stage sim --episodes 16 --from " +
                   il + " --out " + sim + " --no-record --json");
    EXPECT_EQ(b.status, 0) << b.err;
    const json j = json::parse(b.out);
    EXPECT_EQ(j["episodes_done"], 16);
    EXPECT_EQ(j["stage"], "sim");
    EXPECT_FALSE(j["resumed"].get<bool>())
        << "a stage I checkpoint only lends its weights to stage II";
    EXPECT_GT(j["greedy_makespan_us"].get<double>(), 0);
    EXPECT_EQ(j["architecture"]["hidden"], 16);
    EXPECT_TRUE(j["curve"].is_array());
    return sim;
  }
};

TEST_F(TrainCli, TrainThenEvalPrintsPlaceJson) {
  const std::string ckpt = trained();
  const Result e = run("eval --policy " + ckpt + " --graph " + kChain +
                       " --devices 4 --json --decisions --no-record");
  ASSERT_EQ(e.status, 0) << e.err;
  const json j = json::parse(e.out);
  EXPECT_EQ(j["method"], "doppler");
  EXPECT_GT(j["makespan_us"].get<double>(), 0);
  EXPECT_LE(j["lower_bound_us"].get<double>(), j["makespan_us"].get<double>());
  EXPECT_EQ(j["assignment"].size(), kChainNodes);
  EXPECT_EQ(j["schedule"].size(), kChainNodes);
  EXPECT_EQ(j["evaluations"], 1);
  ASSERT_EQ(j["decisions"].size(), kChainNodes);
  EXPECT_EQ(j["decision_scores"]["node"], "SEL probability");
  for (const auto& d : j["decisions"]) {
    double sel = 0, plc = 0;
    for (const auto& c : d["ready"]) sel += c["score"].get<double>();
    for (const auto& p : d["devices"]) {
      plc += p["score"].get<double>();
      EXPECT_LE(p["est_start_us"].get<double>(), p["est_finish_us"].get<double>());
    }
    EXPECT_NEAR(sel, 1.0, 1e-4);
    EXPECT_NEAR(plc, 1.0, 1e-4);
    EXPECT_EQ(j["assignment"][d["node"].get<std::string>()], d["device"]);
  }
  // Overriding with the choice already made reproduces the placement; another device changes it
  // at that step, and the changed assignment is what gets printed.
  const json& step3 = j["decisions"][3];
  const Result same = run("eval --policy " + ckpt + " --graph " + kChain +
                          " --devices 4 --json --no-record --override 3:device=" +
                          std::to_string(step3["device"].get<int>()));
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_EQ(json::parse(same.out)["assignment"], j["assignment"]);
  const int other = (step3["device"].get<int>() + 1) % 4;
  const Result moved = run(
      "eval --policy " + ckpt + " --graph " + kChain +
      " --devices 4 --json --decisions --no-record --override 3:device=" + std::to_string(other));
  ASSERT_EQ(moved.status, 0) << moved.err;
  const json m = json::parse(moved.out);
  EXPECT_EQ(m["decisions"][3]["device"], other);
  EXPECT_EQ(m["decisions"][3]["overridden"], "device");
  EXPECT_EQ(m["assignment"][step3["node"].get<std::string>()], other);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(m["decisions"][k], j["decisions"][k]) << "step " << k;
  const Result bad = run("eval --policy " + ckpt + " --graph " + kChain +
                         " --devices 4 --json --no-record --override 999:device=0");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("out of range"), std::string::npos) << bad.err;
  // The simulated makespan is the simulator's verdict on the printed assignment.
  std::ofstream(path("a.json")) << e.out;
  const Result s = run("simulate --graph " + kChain + " --devices 4 --assignment " +
                       path("a.json") + " --json --no-record");
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_DOUBLE_EQ(json::parse(s.out)["makespan_us"].get<double>(), j["makespan_us"].get<double>());
  // Best of K is never worse than the greedy placement.
  const Result k = run("eval --policy " + ckpt + " --graph " + kChain +
                       " --devices 4 --samples 8 --json --no-record");
  ASSERT_EQ(k.status, 0) << k.err;
  EXPECT_LE(json::parse(k.out)["makespan_us"].get<double>(), j["makespan_us"].get<double>());
  EXPECT_EQ(json::parse(k.out)["evaluations"], 8);
}

// `doppler policy export` writes the weights that place without LibTorch; they place exactly as
// the checkpoint does (both through the same forward pass), and `policy show` reads either file.
TEST_F(TrainCli, ExportedWeightsPlaceAsTheirCheckpoint) {
  const std::string ckpt = trained(), weights = path("sim.weights");
  const Result x = run("policy export " + ckpt + " --out " + weights);
  ASSERT_EQ(x.status, 0) << x.err;
  const std::string eval = " --graph " + kFfnn + " --devices 3 --json --decisions --no-record";
  const Result a = run("eval --policy " + ckpt + eval), b = run("eval --policy " + weights + eval);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const json ja = json::parse(a.out), jb = json::parse(b.out);
  EXPECT_EQ(ja["assignment"], jb["assignment"]);
  EXPECT_EQ(ja["makespan_us"], jb["makespan_us"]);
  EXPECT_EQ(ja["decisions"], jb["decisions"]);
  EXPECT_EQ(ja["policy"], jb["policy"]);  // the trainer's metadata travels with the weights

  for (const std::string& file : {ckpt, weights}) {
    const Result s = run("policy show " + file + " --json");
    ASSERT_EQ(s.status, 0) << s.err;
    const json j = json::parse(s.out);
    EXPECT_EQ(j["architecture"]["hidden"], 16);
    EXPECT_EQ(j["stage"], "sim");
    EXPECT_EQ(j["episodes_done"], 16);
    EXPECT_EQ(j["format"].get<std::string>().rfind("doppler-policy", 0), 0u) << j;
  }
  EXPECT_EQ(json::parse(run("policy show " + weights + " --json").out)["exported_from"], "sim.pt");
  EXPECT_NE(run("policy show " + weights).out.find("hidden=16"), std::string::npos);

  // Bad input: one line naming the file, exit 2; nothing half-written where the output goes.
  std::ofstream(path("junk.weights")) << "doppler-policy-weights/1\n{\"architecture\": 3}\n";
  expectBadInput("policy export " + path("missing.pt") + " --out " + path("m.weights"),
                 {"missing.pt"});
  expectBadInput("policy export " + weights + " --out " + path("again.weights"),
                 {"sim.weights", "already a weights file"});
  expectBadInput("policy show " + path("junk.weights"), {"junk.weights", "architecture"});
  expectBadInput("policy export " + ckpt + " --out " + path("no/such/dir/x.weights"),
                 {"x.weights"});
  expectBadInput("train --graph " + kChain + " --devices 4 --stage sim --episodes 2 --from " +
                     weights + " --out " + path("t.pt") + " --no-record",
                 {"sim.weights", "exported"});
  EXPECT_FALSE(fs::exists(path("m.weights")));
  EXPECT_FALSE(fs::exists(path("again.weights")));
}

TEST_F(TrainCli, APolicyEvaluatesOnAnyGraphAndDeviceCount) {
  const std::string ckpt = trained();
  for (const std::string& target : {kFfnn + " --devices 8", kChain + " --devices 2"}) {
    const Result e = run("eval --policy " + ckpt + " --graph " + target + " --json --no-record");
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(json::parse(e.out)["method"], "doppler");
  }
}

TEST_F(TrainCli, RunsAreRecordedInTheStore) {
  const std::string db = path("runs.sqlite");
  const std::string ckpt = path("p.pt");
  const Result t = run("train --graph " + kChain + " --devices 4 --episodes 5 --out " + ckpt +
                       kSmall + " --db " + db + " --json");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(json::parse(t.out).contains("run_id"));
  const Result e =
      run("eval --policy " + ckpt + " --graph " + kChain + " --devices 4 --db " + db + " --json");
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_TRUE(json::parse(e.out).contains("run_id"));
  const Result l = run("runs list --db " + db + " --json");
  ASSERT_EQ(l.status, 0) << l.err;
  const std::string out = l.out;
  EXPECT_NE(out.find("\"train\""), std::string::npos) << out;
  // Ended by the training's own record, not marked failed when the command exits.
  EXPECT_EQ(out.find("\"failed\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"eval\""), std::string::npos) << out;
}

// Ctrl-C during training: the checkpoint is written, the result so far printed (partial), the
// run stored cancelled, exit 130; the run resumes with --from.
TEST_F(TrainCli, CtrlCKeepsTheCheckpointPrintsThePartialResultAndExits130) {
  const std::string db = path("runs.sqlite"), ckpt = path("int.pt");
  const doppler::testing::CliResult r =
      runThenSignal("train --graph " + kChain + " --devices 4 --stage sim --episodes 1000000 " +
                        "--hidden 16 --mp-steps 2 --out " + ckpt + " --json",
                    db, SIGINT);
  ASSERT_EQ(r.status, 130) << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_TRUE(out["partial"].get<bool>());
  EXPECT_TRUE(out["cancelled"].get<bool>());
  EXPECT_NE(r.err.find("resume with --from " + ckpt), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(ckpt));
  EXPECT_EQ(firstRunStatus(db), "cancelled");
}

// `doppler train`'s options are the tables the studio's training form is made from: every
// training and architecture parameter is an option with its description (tests/views checks the
// form's editors and their defaults), and a value goes through the same checks.
TEST_F(TrainCli, TrainOptionsAreTheTables) {
  const Result help = run("train --help");
  ASSERT_EQ(help.status, 0) << help.err;
  std::vector<doppler::ParamSpec> specs =
      doppler::train::trainParamSpecs(doppler::train::Stage::Simulation);
  for (doppler::ParamSpec& a : doppler::train::architectureParamSpecs()) specs.push_back(a);
  EXPECT_GT(specs.size(), 40u);
  for (const doppler::ParamSpec& spec : specs) {
    EXPECT_NE(help.out.find("--" + spec.name + " "), std::string::npos) << spec.name;
    // Its description's first words (CLI11 wraps long ones).
    EXPECT_NE(help.out.find(spec.description.substr(0, 20)), std::string::npos) << spec.name;
  }
  // Every discipline trains, from the table (the studio lists the same choices).
  expectBadInput("train --graph " + kChain + " --devices 4 --discipline lifo --out " +
                     path("d.pt") + " --no-record",
                 {"--discipline", "'lifo' is not one of: fifo, priority, sequence"});
  const Result seq =
      run("train --graph " + kChain + " --devices 4 --episodes 2 --discipline sequence --out " +
          path("d.pt") + kSmall + " --no-record --json");
  ASSERT_EQ(seq.status, 0) << seq.err;
  EXPECT_EQ(json::parse(seq.out)["train_config"]["discipline"], "sequence");
  expectBadInput("train --graph " + kChain + " --devices 4 --device-features 17 --out " +
                     path("f.pt") + " --no-record",
                 {"--device-features", "'17' is not one of: 16, 18"});
}

TEST_F(TrainCli, BadInputIsOneClearLine) {
  std::ofstream(path("junk.pt")) << "junk";
  // A width past int's range is quoted with the range (CLI11 said "Could not convert").
  expectBadInput("train --graph " + kChain +
                     " --devices 4 --hidden 1099511627776 --no-record --out " + path("h.pt"),
                 {"--hidden", "1099511627776", "outside the allowed range [1, 4096]"});
  // Weights of a newer format version name their version (it said "not a LibTorch archive").
  std::ofstream(path("newer.weights")) << "doppler-policy-weights/2\n{}\n";
  expectBadInput(
      "eval --policy " + path("newer.weights") + " --graph " + kChain + " --devices 4 --no-record",
      {"newer.weights", "line 1", "doppler-policy-weights/2", "a newer doppler wrote them"});
  expectBadInput(
      "eval --policy " + path("junk.pt") + " --graph " + kChain + " --devices 4 --no-record",
      {"junk.pt", "not a Doppler policy checkpoint"});
  expectBadInput(
      "eval --policy " + path("missing.pt") + " --graph " + kChain + " --devices 4 --no-record",
      {"missing.pt", "no such checkpoint"});
  std::filesystem::create_directories(path("adir"));
  expectBadInput(
      "eval --policy " + path("adir") + " --graph " + kChain + " --devices 4 --no-record",
      {"adir", "is a directory"});
  expectBadInput(
      "train --graph " + kChain + " --devices 4 --stage rl --out " + path("x.pt") + " --no-record",
      {"--stage"});
  expectBadInput("train --graph " + kChain + " --devices 4 --episodes 0 --out " + path("x.pt") +
                     " --no-record",
                 {"--episodes"});
  expectBadInput("train --graph " + kChain + " --devices 4 --stage sim --guided 1.5 --out " +
                     path("x.pt") + " --no-record",
                 {"--guided", "1.5", "outside the allowed range [0, 1]"});
  expectBadInput("train --graph " + kChain + " --devices 4 --stage sim --distill -1 --out " +
                     path("x.pt") + " --no-record",
                 {"--distill"});
  // A checkpoint of another architecture is refused with both architectures named.
  const Result t = run("train --graph " + kChain + " --devices 4 --episodes 2 --out " +
                       path("small.pt") + kSmall + " --no-record");
  ASSERT_EQ(t.status, 0) << t.err;
  expectBadInput("train --graph " + kChain + " --devices 4 --episodes 2 --from " +
                     path("small.pt") + " --hidden 32 --out " + path("y.pt") + " --no-record",
                 {"small.pt", "another architecture", "hidden=16", "hidden=32"});
}

TEST_F(TrainCli, StageRealTrainsOnExecutionsAndSaysWhatItExpected) {
  const std::string sim = trained();
  const std::string db = path("real.sqlite"), real = path("real.pt");
  // Two CPU devices, synthetic kernels (the graph carries costs only), 1 ms of work each.
  const Result r = run("train --graph " + kChain + " --devices 2 --stage real --from " + sim +
                       " --episodes 8 --eval-every 4 --distill 0 --repeat 1 --target-ms 1 " +
                       "--out " + real + " --db " + db + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("expected before any real run"), std::string::npos) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["stage"], "real");
  EXPECT_EQ(j["episodes_done"], 8);
  EXPECT_TRUE(j["measured"].get<bool>());
  EXPECT_EQ(j["served"]["assignment"].size(), kChainNodes) << "the best measured placement";
  EXPECT_EQ(j["served"]["order"].size(), kChainNodes);
  EXPECT_DOUBLE_EQ(j["served"]["measured_makespan_us"].get<double>(),
                   j["best_makespan_us"].get<double>());
  // It is an assignment file `doppler exec` runs, in its order.
  std::ofstream(path("served.json")) << j["served"].dump();
  const Result x =
      run("exec --graph " + kChain + " --devices 2 --assignment " + path("served.json") +
          " --discipline sequence --repeat 1 --target-ms 1 " + "--no-record --json");
  ASSERT_EQ(x.status, 0) << x.err;
  EXPECT_TRUE(json::parse(x.out)["outputs_match"].get<bool>());
  EXPECT_GT(j["expected_improvement"]["heuristic_makespan_us"].get<double>(), 0);
  EXPECT_EQ(j["expected_improvement"]["against"], "critical-path");
  ASSERT_FALSE(j["log"].empty());
  EXPECT_NE(j["log"][0].get<std::string>().find("cpu-synthetic"), std::string::npos);
  EXPECT_TRUE(fs::exists(real));
  // Recorded like the other stages, with its measured figures and its log as notes.
  const Result show =
      run("runs show " + std::to_string(j["run_id"].get<long>()) + " --db " + db + " --json");
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("best_measured_makespan_us"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("judged by real executions"), std::string::npos) << show.out;
  // Stage III refines a trained policy and says so without one.
  expectBadInput("train --graph " + kChain + " --devices 2 --stage real --out " + path("z.pt") +
                     " --no-record",
                 {"--from", "stage real"});
  expectBadInput("train --graph " + kChain + " --devices 2 --stage real --from " + sim +
                     " --kernels torch --out " + path("z.pt") + " --no-record",
                 {"--kernels", "op kinds"});
  expectBadInput("train --graph " + kChain + " --devices 2 --stage real --from " + sim +
                     " --repeat 0 --out " + path("z.pt") + " --no-record",
                 {"--repeat"});
}

TEST_F(TrainCli, EvalShowsTheImprovementSimulationExpects) {
  const std::string ckpt = trained();
  const Result e =
      run("eval --policy " + ckpt + " --graph " + kChain + " --devices 4 --json --no-record");
  ASSERT_EQ(e.status, 0) << e.err;
  const json j = json::parse(e.out);
  const json& x = j["expected_improvement"];
  EXPECT_EQ(x["against"], "critical-path");
  EXPECT_DOUBLE_EQ(x["policy_makespan_us"].get<double>(), j["makespan_us"].get<double>());
  const double h = x["heuristic_makespan_us"].get<double>();
  EXPECT_NEAR(x["percent"].get<double>(), (h - j["makespan_us"].get<double>()) / h * 100, 1e-9);
  // Against another heuristic: its own simulated makespan, as `doppler place` gives it.
  const Result heft = run("eval --policy " + ckpt + " --graph " + kChain +
                          " --devices 4 --json --no-record --against heft");
  ASSERT_EQ(heft.status, 0) << heft.err;
  const Result place =
      run("place --graph " + kChain + " --devices 4 --method heft --json --no-record");
  ASSERT_EQ(place.status, 0) << place.err;
  EXPECT_DOUBLE_EQ(
      json::parse(heft.out)["expected_improvement"]["heuristic_makespan_us"].get<double>(),
      json::parse(place.out)["makespan_us"].get<double>());
  const Result text =
      run("eval --policy " + ckpt + " --graph " + kChain + " --devices 4 --no-record");
  EXPECT_NE(text.out.find("in simulation"), std::string::npos) << text.out;
  expectBadInput("eval --policy " + ckpt + " --graph " + kChain +
                     " --devices 4 --no-record --against nonsense",
                 {"nonsense"});
}

}  // namespace

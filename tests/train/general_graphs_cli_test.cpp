// `doppler train --general --graphs SPEC|DIR` with graph files and directories, as real processes
// on a real run store: a directory of graphs trains and names them, a file that does not read (or
// an empty directory, or a --db the store refuses) exits 2 before any training, the run is
// recorded with its curve (once, by rank 0, with --workers), --no-record records nothing, and
// mutated graph files never crash the command. Training needs the LibTorch module: those tests
// are skipped in builds without it; refusals of bad input run everywhere.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/graph/graph_io.h"
#include "core/train/training_distribution.h"
#include "sessions/queries.h"
#include "sessions/run_store.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/data.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

#ifdef DOPPLER_TEST_TORCH
constexpr bool kTorch = true;
#else
constexpr bool kTorch = false;
#endif

class GeneralGraphs : public doppler::testing::CliFixture {
 protected:
  void SetUp() override {
    // Two small graphs in the two text formats, and files that are clearly not graphs beside
    // them: a README and a subdirectory (not read: directories are not recursive).
    fs::create_directories(path("graphs/old"));
    aJson_ = slurp(
        write("graphs/a.json", doppler::writeGraphJson(doppler::train::randomLayeredDag(3, 4, 3))));
    bText_ = slurp(doppler::testing::testData("diamonds_12nodes.txt"));
    write("graphs/b.txt", bText_);
    write("graphs/README.md", "# two graphs\n");
    write("graphs/old/broken.json", "{ not a graph");
  }
  std::string graphs() const { return path("graphs"); }
  std::string db() const { return path("runs.sqlite"); }

  json trainJson(const std::string& extra) const {
    const auto r = run("train --general --batch 2 --episodes 4 --max-devices 3 --json --out " +
                       path("g.pt") + " " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json::object();
  }
  std::vector<doppler::sessions::RunInfo> runs() const {
    doppler::sessions::RunStore store(db());
    return doppler::sessions::listRuns(store);
  }

  std::string aJson_, bText_;
};

TEST_F(GeneralGraphs, ADirectoryOfGraphsTrainsAndIsRecordedWithItsCurve) {
  if (!kTorch) GTEST_SKIP() << "built without LibTorch";
  const json out = trainJson("--graphs " + graphs() + " --db " + db());
  ASSERT_FALSE(out.empty());
  // The sources: the two graph files, by name, and no generated kind.
  EXPECT_EQ(out["sources"]["kinds"], json::array());
  ASSERT_EQ(out["sources"]["graphs"].size(), 2u) << out["sources"];
  EXPECT_EQ(out["sources"]["graphs"][0]["name"], path("graphs/a.json"));
  EXPECT_EQ(out["sources"]["graphs"][1]["name"], path("graphs/b.txt"));
  EXPECT_EQ(out["sources"]["graphs"][1]["nodes"], 12);
  EXPECT_EQ(out["updates"], 2);
  ASSERT_EQ(out["curve"].size(), 2u);
  ASSERT_TRUE(out.contains("run_id"));

  const auto all = runs();
  ASSERT_EQ(all.size(), 1u);
  const doppler::sessions::RunInfo& r = all[0];
  EXPECT_EQ(r.id, out["run_id"].get<int64_t>());
  EXPECT_EQ(r.kind, "train");
  EXPECT_EQ(r.method, "doppler-general");
  EXPECT_EQ(r.status, doppler::sessions::RunStatus::Finished);
  EXPECT_FALSE(r.graph_id) << "a general run is on no one graph";
  EXPECT_EQ(r.params["graph_files"],
            json::array({fs::absolute(path("graphs/a.json")).lexically_normal().string(),
                         fs::absolute(path("graphs/b.txt")).lexically_normal().string()}));
  EXPECT_EQ(r.params["kinds"], json::array());
  EXPECT_EQ(r.params["batch"], 2);
  EXPECT_EQ(r.params["max_devices"], 3);
  EXPECT_EQ(r.params["workers"], 1);
  EXPECT_EQ(r.figures.at("updates"), 2);
  EXPECT_DOUBLE_EQ(r.figures.at("mean_ratio"), out["curve"][1]["mean_ratio"].get<double>());

  doppler::sessions::RunStore store(db());
  for (const std::string name : {"mean_ratio", "loss"}) {
    const doppler::sessions::Series s = doppler::sessions::loadSeries(store, r.id, name);
    ASSERT_EQ(s.values.size(), 2u) << name;
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(s.steps[k], out["curve"][k]["episodes"].get<int64_t>()) << name;
      EXPECT_DOUBLE_EQ(s.values[k], out["curve"][k][name].get<double>()) << name;
    }
  }
  const auto checkpoints = doppler::sessions::listCheckpoints(store, r.id);
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(fs::path(checkpoints[0].path).filename(), "g.pt");

  // `runs list` and `runs show` tell it apart from a per-graph training.
  const auto listed = run("runs list --db " + db() + " --json");
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)["runs"][0]["method"], "doppler-general");
  const auto shown = run("runs show " + std::to_string(r.id) + " --db " + db());
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("series       mean_ratio: 2 points"), std::string::npos) << shown.out;
}

TEST_F(GeneralGraphs, KindsAndFilesMixAndNoRecordLeavesNoRun) {
  if (!kTorch) GTEST_SKIP() << "built without LibTorch";
  const json first = trainJson("--graphs layered," + path("graphs/b.txt") + " --db " + db());
  EXPECT_EQ(first["sources"]["kinds"], json::array({"layered"}));
  EXPECT_EQ(first["sources"]["graphs"].size(), 1u);
  ASSERT_EQ(runs().size(), 1u);
  const json second = trainJson("--graphs " + graphs() + " --no-record --db " + db());
  EXPECT_FALSE(second.contains("run_id"));
  EXPECT_EQ(runs().size(), 1u) << "--no-record adds no run";
  // Nor creates a store.
  trainJson("--graphs " + graphs() + " --no-record --db " + path("none.sqlite"));
  EXPECT_FALSE(fs::exists(path("none.sqlite")));
}

// Ctrl-C during training: the checkpoint is written, the result so far printed (partial), the
// run stored cancelled, exit 130.
TEST_F(GeneralGraphs, CtrlCKeepsTheCheckpointAndExits130) {
  if (!kTorch) GTEST_SKIP() << "built without LibTorch";
  const auto r = runThenSignal(
      "train --general --batch 2 --episodes 100000000 --max-devices 3 "
      "--json --graphs " +
          graphs() + " --out " + path("g.pt"),
      db(), SIGTERM);
  ASSERT_EQ(r.status, 130) << "killed by the signal instead of handling it\n" << r.err;
  const json out = json::parse(r.out);
  EXPECT_TRUE(out["partial"].get<bool>());
  EXPECT_NE(r.err.find("interrupted by SIGTERM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resume with --from " + path("g.pt")), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(path("g.pt")));
  const auto all = runs();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].status, doppler::sessions::RunStatus::Cancelled);
}

TEST_F(GeneralGraphs, WithWorkersRankZeroRecordsTheRunOnce) {
  if (!kTorch) GTEST_SKIP() << "built without LibTorch";
  const json out = trainJson("--graphs " + graphs() + " --workers 2 --db " + db());
  EXPECT_EQ(out["workers"], 2);
  const auto all = runs();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].params["workers"], 2);
  EXPECT_EQ(all[0].status, doppler::sessions::RunStatus::Finished);
  doppler::sessions::RunStore store(db());
  EXPECT_EQ(doppler::sessions::loadSeries(store, all[0].id, "mean_ratio").values.size(), 2u);
}

TEST_F(GeneralGraphs, BadGraphsExitTwoBeforeAnyTraining) {
  const std::string out = " --episodes 4 --batch 2 --out " + path("x.pt") + " --db " + db();
  // A malformed file in the directory: named, with its line.
  write("graphs/c.json", aJson_.substr(0, aJson_.size() / 2));
  expectBadInput("train --general --graphs " + graphs() + out, {"graphs/c.json", "line "});
  // Per-device compute times belong to one device set: refused, naming the node's field.
  write("graphs/c.json",
        R"({"format": "dataflow-graph/1", "nodes": [{"id": "x", "compute_us": [1, 2]}], )"
        R"("edges": []})");
  expectBadInput("train --general --graphs " + graphs() + out, {"graphs/c.json", "compute_us"});
  fs::remove(path("graphs/c.json"));
  // An explicit file is read whatever its name; a missing one is neither kind nor file.
  write("notes.md", "not a graph\n");
  expectBadInput("train --general --graphs ffnn," + path("notes.md") + out, {"notes.md"});
  expectBadInput("train --general --graphs ffnn," + path("nowhere.json") + out,
                 {"--graphs", "nowhere.json"});
  // A directory with no graph files in it (only a README, a subdirectory), or nothing at all.
  fs::create_directories(path("empty"));
  expectBadInput("train --general --graphs " + path("empty") + out, {"empty", "no graph files"});
  fs::create_directories(path("docs/sub"));
  write("docs/README.md", "# nothing\n");
  expectBadInput("train --general --graphs " + path("docs") + out, {"docs", "no graph files"});
  // A --db the store refuses, also when the workers (rank 0) would be the ones to record.
  write("not.sqlite", "plain text\n");
  const std::string badDb = " --episodes 4 --out " + path("x.pt") + " --db " + path("not.sqlite");
  expectBadInput("train --general --graphs " + graphs() + " --workers 2" + badDb, {"not.sqlite"});
  if (kTorch) expectBadInput("train --general --graphs " + graphs() + badDb, {"not.sqlite"});
  EXPECT_FALSE(fs::exists(path("x.pt"))) << "nothing was trained";
  EXPECT_FALSE(fs::exists(db())) << "nothing was recorded";
}

// Truncated and byte-flipped graph files in the directory: the command reads them, refuses them
// with exit 2 and one line naming the file, or trains on them; it never crashes or fails
// otherwise.
TEST_F(GeneralGraphs, MutatedGraphFilesNeverCrash) {
  std::mt19937_64 rng(16);
  int refused = 0, trained = 0;
  for (int m = 0; m < 24; ++m) {
    const bool json = m % 2 == 0;
    std::string text = json ? aJson_ : bText_;
    if (m < 8) {
      text.resize(text.size() * static_cast<size_t>(m / 2 + 1) / 5);  // truncated
    } else {
      // One to three bytes replaced: by any byte, or (the second half) by a digit, which often
      // leaves a file that reads, with other numbers in it.
      for (int k = 0; k < 1 + m % 3; ++k) {
        const size_t at = std::uniform_int_distribution<size_t>(0, text.size() - 1)(rng);
        text[at] = m < 16 ? static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng))
                          : static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(rng));
      }
    }
    std::string mutant = "m";
    mutant += std::to_string(m);
    const std::string dir = path(mutant);
    fs::create_directories(dir);
    const std::string name = json ? "/mutant.json" : "/mutant.txt";
    spit(dir + name, text);
    const auto r = run("train --general --graphs " + dir + " --episodes 1 --batch 1 " +
                       "--max-devices 2 --no-record --out " + path("m.pt"));
    SCOPED_TRACE(mutant + ": " + r.err);
    ASSERT_TRUE(r.status == 0 || r.status == 2) << "status " << r.status;
    if (r.status == 2) {
      ++refused;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
      // A file that does not read is named; without LibTorch a file that reads is refused for
      // that instead.
      if (r.err.find("LibTorch") == std::string::npos &&
          r.err.find("libdoppler_torch") == std::string::npos) {
        EXPECT_NE(r.err.find(name.substr(1)), std::string::npos);
      }
    } else {
      ++trained;
    }
  }
  EXPECT_GE(refused, 4) << "the truncated files at least";
  if (kTorch) {
    EXPECT_GE(trained, 1) << "some flipped bytes leave a graph that trains";
  }
}

}  // namespace

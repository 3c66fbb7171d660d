// The general policy's trainer (core/train/general_trainer.h) through `doppler train --general`:
// it learns (imitation loss falls), resumes, and N data-parallel worker processes compute the
// same updates as one process; a worker that cannot reach its group fails with one line.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/policy/policy.h"
#include "core/policy/policy_impl.h"
#include "core/train/distributed.h"
#include "tests/support/cli_fixture.h"

namespace {

using nlohmann::json;

class GeneralTraining : public doppler::testing::CliFixture {
 protected:
  json train(const std::string& out, const std::string& extra) const {
    const auto r = run("train --general --batch 8 --out " + out + " --json " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json::object();
  }
  static std::vector<torch::Tensor> parameters(const std::string& checkpoint) {
    doppler::policy::Policy p = doppler::policy::Policy::load(checkpoint);
    std::vector<torch::Tensor> out;
    for (const auto& t : p.impl().net->parameters()) out.push_back(t.detach().clone());
    return out;
  }
};

TEST_F(GeneralTraining, ImitationLearnsAcrossGraphsAndResumes) {
  const json a = train(path("g.pt"), "--graphs layered --max-devices 3 --episodes 480");
  ASSERT_EQ(a["curve"].size(), 60u);
  double first = 0, last = 0;
  for (int k = 0; k < 10; ++k) {
    first += a["curve"][k]["loss"].get<double>() / 10;
    last += a["curve"][50 + k]["loss"].get<double>() / 10;
  }
  EXPECT_LT(last, 0.8 * first);  // cross-entropy against critical-path's ties falls
  const json b =
      train(path("g.pt"), "--graphs layered --max-devices 3 --episodes 16 --from " + path("g.pt"));
  EXPECT_EQ(b["updates"], 62);  // 60 + 2: the run continued
}

TEST_F(GeneralTraining, TwoWorkerProcessesEqualOneProcess) {
  for (const std::string stage : {"imitation", "sim"}) {
    SCOPED_TRACE(stage);
    const std::string common =
        "--graphs layered,ffnn --max-devices 4 --stage " + stage + " --episodes 32";
    const json one = train(path("one.pt"), common);
    const json two = train(path("two.pt"), common + " --workers 2");
    EXPECT_EQ(two["workers"], 2);
    ASSERT_EQ(one["curve"].size(), two["curve"].size());
    for (size_t k = 0; k < one["curve"].size(); ++k)
      EXPECT_NEAR(one["curve"][k]["loss"].get<double>(), two["curve"][k]["loss"].get<double>(),
                  1e-9)
          << stage << " update " << k;
    const auto p1 = parameters(path("one.pt")), p2 = parameters(path("two.pt"));
    ASSERT_EQ(p1.size(), p2.size());
    double maxDiff = 0;
    for (size_t i = 0; i < p1.size(); ++i) {
      // One process sums the batch's 8 episodes in one backward pass; two sum 4 each and
      // average: the same update up to float rounding (stage II's baseline also sums the
      // workers' ratios in another order).
      const double diff = (p1[i] - p2[i]).abs().max().item<double>();
      EXPECT_LT(diff, 1e-5) << stage << " parameter " << i;
      maxDiff = std::max(maxDiff, diff);
    }
    // And the updates moved the parameters far more than that: half the updates differ.
    train(path("half.pt"),
          "--graphs layered,ffnn --max-devices 4 --stage " + stage + " --episodes 16");
    const auto ph = parameters(path("half.pt"));
    double moved = 0;
    for (size_t i = 0; i < p1.size(); ++i)
      moved = std::max(moved, (p1[i] - ph[i]).abs().max().item<double>());
    EXPECT_GT(moved, 100 * maxDiff) << "moved " << moved << ", workers differ by " << maxDiff;
  }
}

TEST_F(GeneralTraining, AWorkerWithoutItsGroupFailsWithOneLine) {
  const int port = doppler::train::pickFreeLoopbackPort();
  const auto r =
      run("train --general --episodes 8 --out " + path("x.pt") +
          " --rank 1 --world-size 2 --master 127.0.0.1:" + std::to_string(port) + " --timeout 3");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("rank 1 of 2"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// The shipped general policy places any graph at once: `place --method doppler -p
// decode=greedy` and `eval` without --policy take the same greedy episode.
TEST_F(GeneralTraining, TheShippedPolicyPlacesWithoutTraining) {
  ASSERT_EQ(run("graph generate ffnn --out " + path("ffnn.json")).status, 0);
  const auto placed =
      run("place -g " + path("ffnn.json") + " -d 4 -m doppler -p decode=greedy --json --no-record");
  ASSERT_EQ(placed.status, 0) << placed.err;
  const json p = json::parse(placed.out);
  EXPECT_EQ(p["method"], "doppler");
  EXPECT_GT(p["makespan_us"].get<double>(), 0);
  EXPECT_GE(p["makespan_us"].get<double>(), p["lower_bound_us"].get<double>());
  EXPECT_EQ(p["params"]["decode"], "greedy");
  const auto evaluated = run("eval -g " + path("ffnn.json") + " -d 4 --json --no-record");
  ASSERT_EQ(evaluated.status, 0) << evaluated.err;
  EXPECT_EQ(json::parse(evaluated.out)["makespan_us"],
            p["makespan_us"]);  // the same greedy episode
  EXPECT_EQ(json::parse(evaluated.out)["assignment"], p["assignment"]);
  expectBadInput("place -g " + path("ffnn.json") + " -d 4 -m doppler -p depth=2 --no-record",
                 {"--param depth", "decode"});
}

// `doppler` is a method like any other: listed with its parameters, placed through the same
// path (the same JSON fields as local search), its default search never worse than the starts
// it takes (the greedy episode, SEL's order with the join rule, critical-path with it), the
// same for the same seed without a time limit, and the decodes that are one sequence of
// decisions record and replay them.
TEST_F(GeneralTraining, TheGeneralPolicyIsAMethodLikeAnyOther) {
  const auto listed = run("methods");
  ASSERT_EQ(listed.status, 0) << listed.err;
  for (const char* word : {"doppler", "decode", "time_ms", "moves"})
    EXPECT_NE(listed.out.find(word), std::string::npos) << word;
  ASSERT_EQ(run("graph generate llama-block --out " + path("block.json")).status, 0);
  const std::string place = "place -g " + path("block.json") + " -d 8 --json --no-record ";
  auto makespan = [&](const std::string& args) {
    const auto r = run(place + args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
    return r.status == 0 ? json::parse(r.out) : json();
  };
  const json searched = makespan("-m doppler -p time_ms=0 --budget 400");
  const json again = makespan("-m doppler -p time_ms=0 --budget 400");
  const json ls = makespan("-m local-search --budget 400");
  for (const auto& [key, value] : ls.items())
    EXPECT_TRUE(searched.contains(key)) << "place -m doppler --json has no " << key;
  EXPECT_EQ(searched["evaluations"], 400);
  EXPECT_EQ(searched["stopped"], "budget");
  EXPECT_EQ(searched["params"]["decode"], "search");
  EXPECT_EQ(searched["assignment"], again["assignment"]);
  const double ms = searched["makespan_us"].get<double>();
  for (const std::string start : {"-m doppler -p decode=greedy", "-m doppler -p decode=hybrid",
                                  "-m critical-path -p device_rule=earliest-join"})
    EXPECT_LE(ms, makespan(start)["makespan_us"].get<double>()) << start;
  const json hybrid = makespan("-m doppler -p decode=hybrid --decisions");
  EXPECT_EQ(hybrid["decision_scores"]["node"], "SEL logit") << hybrid["decision_scores"];
  const json greedy = makespan("-m doppler -p decode=greedy --decisions");
  EXPECT_EQ(greedy["decision_scores"]["device"], "PLC probability");
  EXPECT_EQ(greedy["decisions"].size(), greedy["assignment"].size());
  expectBadInput(place + "-m doppler --decisions", {"decode=search", "decode=greedy"});
  expectBadInput(place + "-m doppler -p decode=beam", {"--param decode", "search, greedy"});
  expectBadInput(place + "-m doppler -p time_ms=-1", {"--param time_ms", "outside"});
  expectBadInput(place + "-m doppler -p moves=learned", {"--param moves", "policy, uniform"});
}

// Local search can start from the shipped policy's placement (`--param start=doppler`): with one
// evaluation (the start's) it gives that placement back, with some it never ends above it, and the
// run says where it started.
TEST_F(GeneralTraining, LocalSearchStartsFromTheShippedPolicy) {
  ASSERT_EQ(run("graph generate llama-block --out " + path("block.json")).status, 0);
  const std::string graph = "place -g " + path("block.json") + " -d 8 --json --no-record ";
  const auto policy = run(graph + "-m doppler -p decode=greedy");
  ASSERT_EQ(policy.status, 0) << policy.err;
  const json p = json::parse(policy.out);
  const auto start = run(graph + "-m local-search -p start=doppler --budget 1");
  ASSERT_EQ(start.status, 0) << start.err;
  const json s = json::parse(start.out);
  EXPECT_EQ(s["assignment"], p["assignment"]);
  EXPECT_EQ(s["makespan_us"], p["makespan_us"]);
  EXPECT_EQ(s["params"]["start"], "doppler");
  const auto searched = run(graph + "-m local-search -p start=doppler --budget 300");
  ASSERT_EQ(searched.status, 0) << searched.err;
  const json l = json::parse(searched.out);
  EXPECT_EQ(l["evaluations"], 300);
  EXPECT_LE(l["makespan_us"].get<double>(), p["makespan_us"].get<double>());
  EXPECT_DOUBLE_EQ(l["start_makespan_us"].get<double>(), p["makespan_us"].get<double>());
  // A misspelt start is refused by name, listing the starts there are.
  expectBadInput(graph + "-m local-search -p start=dopler",
                 {"--param start", "'dopler'", "doppler"});
  // `doppler methods` lists it among the starts.
  const auto methods = run("methods");
  EXPECT_NE(methods.out.find("critical-path critical-path-join heft random doppler"),
            std::string::npos)
      << methods.out;
}

// Stage II imitates, per sampled graph, the best of its own episodes and a teacher (HEFT or a
// short local search): on one graph file the loss, which that term dominates, falls; without the
// term what is left (advantages centred on each graph's mean) is small.
TEST_F(GeneralTraining, StageTwoImitatesItsTeacher) {
  const auto g = run("graph generate ffnn -p layers=3 -p shards=3 --out " + path("ff.json"));
  ASSERT_EQ(g.status, 0) << g.err;
  const std::string dist =
      "--graphs " + path("ff.json") + " --min-devices 3 --max-devices 3 --no-record ";
  train(path("il.pt"), dist + "--episodes 160");
  auto mean = [](const json& curve, int from) {
    double m = 0;
    for (int k = from; k < from + 10; ++k) m += curve[k]["loss"].get<double>() / 10;
    return m;
  };
  const json with =
      train(path("s1.pt"), dist + "--stage sim --episodes 320 --from " + path("il.pt"));
  ASSERT_EQ(with["curve"].size(), 40u);
  EXPECT_GT(mean(with["curve"], 0), 1.0);  // the teacher's negative log-likelihood per step
  EXPECT_LT(mean(with["curve"], 30), 0.95 * mean(with["curve"], 0));
  // The checkpoint says what it was trained on: the stage, group and the given graph file.
  const json meta = doppler::policy::readCheckpoint(path("s1.pt"), nullptr, nullptr, nullptr);
  EXPECT_EQ(meta["stage"], "sim");
  EXPECT_EQ(meta["group"], 4);
  ASSERT_EQ(meta["graphs"].size(), 1u) << meta.dump();
  EXPECT_NE(meta["graphs"][0].get<std::string>().find("ff.json"), std::string::npos);
  EXPECT_EQ(meta["teacher_join"], false);
  // --teacher-join is recorded with the checkpoint.
  train(path("sj.pt"), dist + "--stage sim --episodes 16 --teacher-join --from " + path("il.pt"));
  EXPECT_EQ(
      doppler::policy::readCheckpoint(path("sj.pt"), nullptr, nullptr, nullptr)["teacher_join"],
      true);
  const json without = train(
      path("s0.pt"), dist + "--stage sim --episodes 320 --imitate-best 0 --from " + path("il.pt"));
  ASSERT_EQ(without["curve"].size(), 40u);
  EXPECT_LT(std::abs(mean(without["curve"], 0)), 0.2);
}

// --average: the checkpoint places with the moving average of the weights after each update and
// keeps the raw weights, which train exactly as without it.
TEST_F(GeneralTraining, AveragedWeightsFollowTheirRecurrence) {
  const std::string common = "--graphs layered --max-devices 3 --no-record ";
  train(path("p0.pt"), common + "--episodes 8");
  train(path("p1.pt"), common + "--episodes 8 --from " + path("p0.pt"));
  train(path("p2.pt"), common + "--episodes 16 --from " + path("p0.pt"));
  train(path("avg.pt"), common + "--episodes 16 --average 0.75 --from " + path("p0.pt"));
  const auto p0 = parameters(path("p0.pt")), p1 = parameters(path("p1.pt")),
             p2 = parameters(path("p2.pt")), avg = parameters(path("avg.pt"));
  std::vector<torch::Tensor> raw;
  const json meta =
      doppler::policy::readCheckpoint(path("avg.pt"), nullptr, nullptr, nullptr, nullptr, &raw);
  EXPECT_EQ(meta["average"], 0.75);
  ASSERT_EQ(raw.size(), p2.size());
  double moved = 0, rawDiff = 0, avgDiff = 0;
  for (size_t i = 0; i < p2.size(); ++i) {
    moved = std::max(moved, (p2[i] - p0[i]).abs().max().item<double>());
    rawDiff = std::max(rawDiff, (raw[i] - p2[i]).abs().max().item<double>());
    const torch::Tensor expected = 0.5625 * p0[i] + 0.1875 * p1[i] + 0.25 * p2[i];
    avgDiff = std::max(avgDiff, (avg[i] - expected).abs().max().item<double>());
  }
  EXPECT_GT(moved, 1e-3);
  EXPECT_LT(rawDiff, 1e-6);
  EXPECT_LT(avgDiff, 1e-6);
  // Continuing the averaged run trains on from its raw weights: the same as two more updates.
  train(path("avg.pt"), common + "--episodes 16 --average 0.75 --from " + path("avg.pt"));
  train(path("p4.pt"), common + "--episodes 16 --from " + path("p2.pt"));
  const auto p4 = parameters(path("p4.pt"));
  std::vector<torch::Tensor> raw4;
  doppler::policy::readCheckpoint(path("avg.pt"), nullptr, nullptr, nullptr, nullptr, &raw4);
  double resumed = 0;
  for (size_t i = 0; i < p4.size(); ++i)
    resumed = std::max(resumed, (raw4[i] - p4[i]).abs().max().item<double>());
  EXPECT_LT(resumed, 1e-6);
}

// --device-features 18 widens an architecture 2 start to the join look-ahead (architecture 3): the
// widened policy starts from the start's weights (the added ones zero) and then learns to use the
// new features; continuing it keeps 18.
TEST_F(GeneralTraining, WideningToTheJoinLookaheadStartsFromTheNarrowWeights) {
  const std::string common = "--graphs layered --max-devices 3 --no-record ";
  train(path("n.pt"), common + "--episodes 8");
  train(path("w.pt"), common + "--episodes 32 --device-features 18 --from " + path("n.pt"));
  const doppler::policy::Policy narrow = doppler::policy::Policy::load(path("n.pt"));
  const doppler::policy::Policy wide = doppler::policy::Policy::load(path("w.pt"));
  EXPECT_EQ(narrow.config().device_features, 16);
  EXPECT_EQ(wide.config().device_features, 18);
  const json meta = doppler::policy::readCheckpoint(path("w.pt"), nullptr, nullptr, nullptr);
  EXPECT_EQ(meta["updates_done"], 4);  // a new run: the narrow one's updates are not counted
  const auto& y = wide.impl().net->plc_y->weight;
  EXPECT_GT(y.narrow(1, 16, 2).abs().max().item<double>(), 0);  // the new weights moved
  train(path("w.pt"), common + "--episodes 8 --from " + path("w.pt"));
  EXPECT_EQ(doppler::policy::Policy::load(path("w.pt")).config().device_features, 18);
  // A policy cannot be narrowed, and 17 features is no architecture.
  expectBadInput("train --general " + common + "--device-features 16 --from " + path("w.pt") +
                     " --out " + path("x.pt"),
                 {"narrowed"});
  expectBadInput("train --general " + common + "--device-features 17 --out " + path("x.pt"),
                 {"--device-features", "'17' is not one of: 16, 18"});
}

TEST_F(GeneralTraining, BadOptionsExitTwo) {
  expectBadInput("train --general --graph g.json --out " + path("x.pt"), {"--graph", "--general"});
  expectBadInput("train --general --stage real --out " + path("x.pt"), {"--stage"});
  expectBadInput("train --general --world-size 2 --out " + path("x.pt"), {"--master"});
  expectBadInput("train --general --world-size 2 --master nowhere --out " + path("x.pt"),
                 {"--master"});
  expectBadInput("train --general --graphs pancakes --out " + path("x.pt"), {"pancakes"});
  expectBadInput("train --general --min-devices 9 --out " + path("x.pt"), {"devices"});
  expectBadInput("train --general --batch 0 --out " + path("x.pt"), {"--batch"});
  // Stage II takes --group episodes of each graph: the batch must hold whole groups.
  expectBadInput("train --general --stage sim --batch 6 --group 4 --out " + path("x.pt"),
                 {"--batch", "multiple"});
  expectBadInput("train --general --stage sim --imitate-best -1 --out " + path("x.pt"),
                 {"--imitate-best"});
  expectBadInput("train --general --stage sim --teacher-budget 0 --out " + path("x.pt"),
                 {"--teacher-budget"});
  expectBadInput("train --general --stage sim --teacher-start random --out " + path("x.pt"),
                 {"--teacher-start"});
  expectBadInput("train --general --average 1 --out " + path("x.pt"), {"--average"});
  expectBadInput("train --general --fixed-costs 1.5 --out " + path("x.pt"), {"--fixed-costs"});
  expectBadInput("train --devices 2 --out " + path("x.pt"), {"--graph"});
}

}  // namespace

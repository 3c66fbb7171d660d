// Training stages I and II: imitation reaches the teacher, gradients reach every parameter, the
// schedules reach the optimiser, seeded runs reproduce, checkpoints resume exactly, and a job runs
// and cancels on its worker thread.
#include "core/train/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "core/common/input_error.h"
#include "core/graph/device_presets.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/heuristics/list_scheduler.h"
#include "core/policy/episode_state.h"
#include "core/policy/features.h"
#include "core/policy/policy.h"
#include "core/sim/simulator.h"
#include "core/train/evaluation.h"
#include "core/train/train_job.h"
#include "tests/support/data.h"
#include "tests/support/temp_dir.h"

namespace doppler::train {
namespace {

namespace fs = std::filesystem;
using policy::Component;
using policy::Policy;
using policy::PolicyConfig;

const PolicyConfig kSmall{32, 3, 16, 32, 16};

std::string tempPath(const std::string& name) {
  static const doppler::testing::TempDir dir("doppler_train");
  return dir.path(name);
}

// The repository's two-branch chain of tiled matmuls (tests/data, 40 nodes).
struct Chain {
  DataflowGraph graph = doppler::testing::readTestGraph("chain_mm_40nodes.txt");
  DeviceSet devices = DeviceSet::uniform(4);
  CostTable costs{graph, devices};
};

// Share of the greedy episode's steps where both choices are among the critical-path teacher's
// (ties equally right), judged in the states the policy itself reaches.
double greedyAgreement(const Policy& p, const CostTable& c) {
  const policy::GraphFeatures f = policy::graphFeatures(c);
  const policy::EpisodeResult r = p.run(c, f);
  policy::EpisodeState st(c, f);
  std::vector<int> ties, devTies;
  std::vector<double> est(c.devices());
  int ok = 0;
  for (const policy::EpisodeStep& s : r.steps) {
    const auto& ready = st.ready();
    const int pos = static_cast<int>(std::find(ready.begin(), ready.end(), s.node) - ready.begin());
    st.teacherNodes(ties);
    st.earliestStarts(s.node, est.data());
    st.teacherDevices(est.data(), nullptr, devTies);
    ok += std::count(ties.begin(), ties.end(), pos) > 0 &&
          std::count(devTies.begin(), devTies.end(), s.device) > 0;
    st.place(pos, s.device, est[s.device]);
  }
  return static_cast<double>(ok) / c.nodes();
}

TrainConfig quick(Stage stage, long episodes) {
  TrainConfig c = TrainConfig::defaults(stage);
  c.episodes = episodes;
  c.eval_every = 0;
  return c;
}

TEST(Trainer, ImitationReachesTheTeacher) {
  Chain ch;
  Policy p(kSmall, 1);
  const double before = greedyAgreement(p, ch.costs);
  Trainer t(ch.costs, p, quick(Stage::Imitation, 300));  // the stage's defaults
  const TrainResult r = t.run();
  EXPECT_EQ(r.episodes_done, 300);
  const double after = greedyAgreement(p, ch.costs);
  EXPECT_GE(after, 0.95) << "agreement with critical-path before training: " << before;
  // Reaching the teacher's decisions reaches its makespan (within a few percent: near-ties).
  Simulator sim(ch.costs);
  const double cp = sim.makespan(listSchedule(ch.costs, ListConfig{}).assignment);
  EXPECT_LE(r.greedy_makespan_us, cp * 1.10);
}

TEST(Trainer, GradientsReachEveryParameter) {
  Chain ch;
  for (Stage stage : {Stage::Imitation, Stage::Simulation}) {
    Policy p(kSmall, 2);
    TrainConfig cfg = quick(stage, 100);
    Trainer t(ch.costs, p, cfg);
    t.step();
    t.step();  // stage II: the first update has no baseline yet
    const auto norms = t.lastGradientNorms();
    EXPECT_EQ(norms.size(), p.parameters().size());
    for (const auto& [name, norm] : norms)
      EXPECT_GT(norm, 0.0) << toString(stage) << ": no gradient reaches " << name;
  }
  // The ablation trains only its learned half.
  Policy p(kSmall, 2);
  TrainConfig cfg = quick(Stage::Imitation, 100);
  cfg.sel = Component::Heuristic;
  Trainer t(ch.costs, p, cfg);
  t.step();
  for (const auto& [name, norm] : t.lastGradientNorms()) {
    if (name.rfind("sel", 0) == 0) {
      EXPECT_EQ(norm, 0.0) << name;
    } else if (name.rfind("plc", 0) == 0) {
      EXPECT_GT(norm, 0.0) << name;
    }
  }
}

TEST(Trainer, SchedulesReachTheOptimiser) {
  Chain ch;
  Policy p(kSmall, 3);
  TrainConfig cfg = quick(Stage::Simulation, 40);
  cfg.lr = 1e-3;
  cfg.lr_final = 1e-5;
  cfg.epsilon = 0.4;
  cfg.epsilon_final = 0.0;
  cfg.rollouts = 1;
  cfg.distill_updates = 0;  // distillation reports come after the episodes (tested below)
  std::vector<TrainProgress> seen;
  Trainer(ch.costs, p, cfg).run([&](const TrainProgress& pr) { seen.push_back(pr); });
  ASSERT_EQ(seen.size(), 40u);
  // The rate read back from Adam's parameter groups follows the linear schedule.
  EXPECT_DOUBLE_EQ(seen.front().lr, 1e-3);
  EXPECT_NEAR(seen[20].lr, 1e-3 + (1e-5 - 1e-3) * 20 / 40.0, 1e-12);
  EXPECT_LT(seen.back().lr, 1.1e-4);
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_LT(seen[i].lr, seen[i - 1].lr);
    EXPECT_LE(seen[i].epsilon, seen[i - 1].epsilon);
    EXPECT_EQ(seen[i].episode, static_cast<long>(i + 1));
    EXPECT_LE(seen[i].best_makespan_us, seen[i - 1].best_makespan_us);
  }
  EXPECT_TRUE(seen.back().evaluated);
  EXPECT_TRUE(std::isfinite(seen.back().greedy_makespan_us));
  EXPECT_TRUE(std::isfinite(seen.back().baseline_us));
  EXPECT_GT(seen.back().episodes_per_s, 0);
}

TEST(Trainer, SeededRunsReproduce) {
  Chain ch;
  auto trainRun = [&](uint64_t seed) {
    Policy p(kSmall, seed);
    std::vector<double> trace;
    for (Stage stage : {Stage::Imitation, Stage::Simulation}) {
      TrainConfig cfg = quick(stage, 12);
      cfg.seed = seed;
      cfg.rollouts = 2;
      Trainer(ch.costs, p, cfg).run([&](const TrainProgress& pr) {
        trace.push_back(pr.makespan_us);
        trace.push_back(pr.loss);
      });
    }
    return std::make_pair(trace, p.parameters());
  };
  const auto a = trainRun(5), b = trainRun(5), c = trainRun(6);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  EXPECT_NE(a.first, c.first);
}

TEST(Trainer, CheckpointResumesExactly) {
  Chain ch;
  const std::string path = tempPath("resume.pt");
  TrainConfig cfg = quick(Stage::Simulation, 16);
  cfg.eval_every = 4;
  cfg.rollouts = 2;
  cfg.imitate_best = 0.5;  // the best episode travels in the checkpoint too
  cfg.graph_name = ch.graph.name;
  cfg.checkpoint_path = path;

  Policy straight(kSmall, 8);
  const TrainResult full = Trainer(ch.costs, straight, cfg).run();

  // Cancelled after 6 episodes (between updates), then resumed from its checkpoint.
  Policy first(kSmall, 8);
  CancelToken cancel;
  const auto cancelAtSix = [&](const TrainProgress& p) {
    if (p.episode >= 6) cancel.cancel();
  };
  const TrainResult part = Trainer(ch.costs, first, cfg).run(cancelAtSix, cancel);
  EXPECT_TRUE(part.cancelled);
  EXPECT_EQ(part.episodes_done, 6);
  const nlohmann::json meta = Policy::readMeta(path);
  EXPECT_EQ(meta.value("episodes_done", 0L), 6);
  EXPECT_EQ(meta.value("stage", ""), "sim");
  EXPECT_EQ(meta.value("fingerprint", ""), policy::fingerprint(ch.costs, ch.graph.name));
  EXPECT_TRUE(meta.contains("train_config"));

  Policy second = Policy::load(path);
  Trainer resumed(ch.costs, second, cfg);
  EXPECT_TRUE(resumed.resumeFrom(path));
  const TrainResult rest = resumed.run();
  EXPECT_TRUE(rest.resumed);
  EXPECT_EQ(rest.episodes_done, 16);
  EXPECT_EQ(rest.episodes_run, 10);
  EXPECT_EQ(second.parameters(), straight.parameters());
  EXPECT_EQ(rest.greedy_makespan_us, full.greedy_makespan_us);
  EXPECT_EQ(rest.best_makespan_us, full.best_makespan_us);

  // A finished run, or another stage, only lends its weights.
  Policy third = Policy::load(path);
  Trainer next(ch.costs, third, quick(Stage::Imitation, 5));
  EXPECT_FALSE(next.resumeFrom(path));
  // A checkpoint of another architecture is refused.
  Policy wide(PolicyConfig{64, 3, 16, 32, 16}, 1);
  Trainer wrong(ch.costs, wide, cfg);
  EXPECT_THROW(wrong.resumeFrom(path), InputError);
  fs::remove(path);
}

TEST(Trainer, JobRunsOnAWorkerThreadAndCancels) {
  Chain ch;
  TrainConfig cfg = quick(Stage::Simulation, 100000);
  const TrainRequest request{ch.graph, ch.devices, cfg, kSmall, {}};
  CancelToken cancel;
  std::atomic<long> seen{0};
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> otherThread{false};
  TrainResult r;
  std::thread job([&] {
    r = runTraining(request, cancel, [&](const TrainProgress& p) {
      seen = p.episode;
      otherThread = std::this_thread::get_id() != caller;
    });
  });
  while (seen < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  cancel.cancel();
  job.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_TRUE(otherThread);
  EXPECT_LT(r.episodes_done, 100000);
  EXPECT_EQ(r.greedy.assignment.size(), static_cast<size_t>(ch.costs.nodes()));
}

TEST(Trainer, StageTwoFindsBetterPlacementsThanItStartsWith) {
  Chain ch;
  Policy p(kSmall, 4);
  Trainer(ch.costs, p, quick(Stage::Imitation, 60)).run();
  Simulator sim(ch.costs);
  const double start = sim.makespan(p.run(ch.costs).assignment);
  TrainConfig cfg = quick(Stage::Simulation, 200);
  cfg.rollouts = 4;
  const TrainResult r = Trainer(ch.costs, p, cfg).run();
  EXPECT_LT(r.best_makespan_us, start);
  EXPECT_LE(r.greedy_makespan_us, start) << "keep_best never ends worse than its best evaluation";
}

TEST(Trainer, DistillationMakesTheGreedyPolicyReproduceTheBestEpisode) {
  Chain ch;
  auto train = [&](long distill) {
    Policy p(kSmall, 4);
    Trainer(ch.costs, p, quick(Stage::Imitation, 60)).run();
    TrainConfig cfg = quick(Stage::Simulation, 200);
    cfg.distill_updates = distill;
    std::vector<TrainProgress> reports;
    TrainResult r =
        Trainer(ch.costs, p, cfg).run([&](const TrainProgress& pr) { reports.push_back(pr); });
    Simulator sim(ch.costs);
    EXPECT_DOUBLE_EQ(sim.makespan(p.run(ch.costs).assignment), r.greedy_makespan_us);
    return std::make_pair(r, reports);
  };
  const auto [without, reportsWithout] = train(0);
  // Training alone leaves the greedy policy above its best episode ...
  EXPECT_GT(without.greedy_makespan_us, without.best_makespan_us * (1 + 1e-9));
  EXPECT_EQ(without.distill_updates, 0);
  // ... distillation brings it there, and stops once it does.
  const auto [with, reports] = train(1500);
  EXPECT_LE(with.greedy_makespan_us, with.best_makespan_us * (1 + 1e-9));
  EXPECT_GT(with.distill_updates, 0);
  EXPECT_LT(with.distill_updates, 1500);
  ASSERT_GT(reports.size(), reportsWithout.size());
  for (size_t i = 1; i < reports.size(); ++i) EXPECT_GT(reports[i].episode, reports[i - 1].episode);
  EXPECT_EQ(reports.back().distill_update, with.distill_updates);
}

TEST(Trainer, InterchangeableDevicesAreRelabelledInOrderOfFirstUse) {
  Chain ch;
  EXPECT_TRUE(devicesInterchangeable(ch.costs));
  // Doppler text graphs give transfer times directly; a generated graph's transfers depend on
  // the DGX-1's mixed NVLink/PCIe links.
  EXPECT_TRUE(devicesInterchangeable(CostTable(ch.graph, devicePreset("8xV100-NVLink"))));
  EXPECT_FALSE(devicesInterchangeable(
      CostTable(generateGraph("chainmm", {}), devicePreset("8xV100-NVLink"))));
  Assignment a = {3, 3, 1, 0};
  canonicalDevices({2, 0, 1, 3}, 4, a);
  EXPECT_EQ(a, (Assignment{1, 1, 0, 2}));
  Assignment b = {2, 2};
  canonicalDevices({1, 0}, 4, b);
  EXPECT_EQ(b, (Assignment{0, 0}));
  // The best episode a run reports is labelled that way, and relabelling kept its makespan.
  Policy p(kSmall, 4);
  const TrainResult r = Trainer(ch.costs, p, quick(Stage::Simulation, 40)).run();
  EXPECT_DOUBLE_EQ(Simulator(ch.costs).makespan(r.best_assignment), r.best_makespan_us);
  ASSERT_EQ(r.best_order.size(), r.best_assignment.size());
  Assignment relabelled = r.best_assignment;
  canonicalDevices(r.best_order, ch.costs.devices(), relabelled);
  EXPECT_EQ(relabelled, r.best_assignment) << "already in order of first use";
  EXPECT_EQ(r.best_assignment[r.best_order.front()], 0);
}

TEST(Trainer, EvaluationTakesTheBestOfItsSamples) {
  Chain ch;
  Policy p(kSmall, 4);
  const EvalResult one = evaluatePolicy(p, ch.costs, 1);
  const EvalResult many = evaluatePolicy(p, ch.costs, 16, 3);
  EXPECT_EQ(one.best_sample, 0);
  EXPECT_LE(many.makespan_us, one.makespan_us);
  Simulator sim(ch.costs);
  EXPECT_DOUBLE_EQ(sim.makespan(many.episode.assignment), many.makespan_us);
}

TEST(Trainer, ConfigurationIsValidated) {
  Chain ch;
  Policy p(kSmall, 1);
  TrainConfig cfg = quick(Stage::Simulation, 0);
  EXPECT_THROW(Trainer(ch.costs, p, cfg), InputError);
  cfg = quick(Stage::Simulation, 10);
  cfg.sel = cfg.plc = Component::Heuristic;
  EXPECT_THROW(Trainer(ch.costs, p, cfg), InputError);
  EXPECT_THROW(parseStage("rl"), InputError);
}

}  // namespace
}  // namespace doppler::train

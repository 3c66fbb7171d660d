// Training stage III: episodes judged by real executions, the best measured placement kept, a
// rollback when the greedy measurements regress, an early stop without improvement, and
// cancellation between executions. Scripted judges stand in for the executor only where the test
// needs measurements it controls; the rest executes for real (synthetic kernels on CPU threads).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/common/input_error.h"
#include "core/policy/policy.h"
#include "core/sim/simulator.h"
#include "core/train/real_judge.h"
#include "core/train/train_job.h"
#include "core/train/trainer.h"
#include "tests/support/data.h"

namespace doppler::train {
namespace {

using policy::Policy;
using policy::PolicyConfig;

const PolicyConfig kSmall{32, 3, 16, 32, 16};

struct Chain {
  DataflowGraph graph = doppler::testing::readTestGraph("chain_mm_40nodes.txt");
  DeviceSet devices = DeviceSet::uniform(2);
  CostTable costs{graph, devices};
};

TrainConfig quickReal(long episodes) {
  TrainConfig c = TrainConfig::defaults(Stage::Real);
  c.episodes = episodes;
  c.distill_updates = 0;
  return c;
}

// The simulator's makespan times `factor`, which the test changes as it goes (a machine that
// becomes slower); counts its calls.
class ScriptedJudge final : public EpisodeJudge {
 public:
  explicit ScriptedJudge(const CostTable& c) : sim_(c) {}
  double makespan(const Assignment& a, const std::vector<int>&) override {
    ++calls;
    if (!script.empty()) {
      const double ms = script.front();
      script.erase(script.begin());
      return ms;
    }
    if (slowAfter >= 0 && calls > slowAfter) factor = 2;
    return constant > 0 ? constant : sim_.makespan(a) * factor;
  }
  double scale() const override { return 1; }
  std::string describe() const override { return "scripted"; }
  long calls = 0, slowAfter = -1;
  std::vector<double> script;  // the first measurements, in order
  double factor = 1, constant = 0;

 private:
  Simulator sim_;
};

TEST(StageReal, NeedsAJudge) {
  Chain ch;
  Policy p(kSmall, 1);
  EXPECT_THROW(Trainer(ch.costs, p, quickReal(8)), InputError);
  EXPECT_EQ(parseStage("real"), Stage::Real);
  EXPECT_STREQ(toString(Stage::Real), "real");
}

TEST(StageReal, RewardsAndKeepsWhatTheJudgeMeasures) {
  Chain ch;
  Policy p(kSmall, 2);
  ScriptedJudge judge(ch.costs);
  judge.factor = 3;
  TrainConfig cfg = quickReal(16);
  cfg.eval_every = 8;
  const TrainResult r = Trainer(ch.costs, p, cfg, &judge).run();
  // 16 episodes, the starting greedy measurement, two more, keep_best's and the final one, and
  // a second measurement of each that would have beaten the best.
  EXPECT_GE(judge.calls, 16 + 1 + 2 + 2);
  Simulator sim(ch.costs);
  EXPECT_DOUBLE_EQ(r.best_makespan_us, sim.makespan(r.best_assignment) * 3)
      << "the best placement is the best measured one";
  EXPECT_DOUBLE_EQ(r.greedy_makespan_us, sim.makespan(r.greedy.assignment) * 3);
  ASSERT_FALSE(r.log.empty());
  EXPECT_NE(r.log.front().find("scripted"), std::string::npos);
  EXPECT_EQ(r.rollbacks, 0);
}

TEST(StageReal, AMeasurementThatBeatsTheBestIsConfirmed) {
  Chain ch;
  Policy p(kSmall, 2);
  ScriptedJudge judge(ch.costs);
  // The starting greedy placement measures 100; the first episode 50, but measured again 70.
  judge.script = {100, 50, 70, 80, 90, 90};
  judge.constant = 95;
  TrainConfig cfg = quickReal(4);
  cfg.rollouts = 4;
  const TrainResult r = Trainer(ch.costs, p, cfg, &judge).run();
  EXPECT_DOUBLE_EQ(r.best_makespan_us, 60) << "the mean of the two measurements";
}

TEST(StageReal, RollsBackToTheParametersThatMeasuredBest) {
  Chain ch;
  Policy p(kSmall, 3);
  ScriptedJudge judge(ch.costs);
  judge.slowAfter = 20;  // then every measurement doubles: a regression of 100%
  TrainConfig cfg = quickReal(48);
  cfg.eval_every = 4;
  cfg.rollback_window = 2;
  cfg.rollback_threshold = 0.1;
  Assignment bestGreedy;
  int rollbacksSeen = 0;
  const TrainResult r = Trainer(ch.costs, p, cfg, &judge).run([&](const TrainProgress& pr) {
    if (pr.event.find("rolled back") != std::string::npos) {
      ++rollbacksSeen;
      EXPECT_EQ(p.run(ch.costs).assignment, bestGreedy)
          << "the greedy policy after a rollback is the one that measured best";
      EXPECT_EQ(pr.rollbacks, rollbacksSeen);
    } else if (pr.evaluated && pr.greedy_makespan_us == pr.best_greedy_makespan_us) {
      bestGreedy = p.run(ch.costs).assignment;  // the parameters a rollback restores
    }
  });
  EXPECT_GE(r.rollbacks, 1);
  EXPECT_EQ(r.rollbacks, rollbacksSeen);
  int logged = 0;
  for (const std::string& line : r.log) logged += line.find("rolled back") != std::string::npos;
  EXPECT_EQ(logged, r.rollbacks);
}

TEST(StageReal, NoRollbackWhileMeasurementsHold) {
  Chain ch;
  Policy p(kSmall, 3);
  ScriptedJudge judge(ch.costs);
  judge.constant = 1000;  // every placement measures the same
  TrainConfig cfg = quickReal(24);
  cfg.eval_every = 4;
  cfg.rollback_window = 2;
  EXPECT_EQ(Trainer(ch.costs, p, cfg, &judge).run().rollbacks, 0);
}

TEST(StageReal, StopsEarlyWhenTheBestStopsImproving) {
  Chain ch;
  Policy p(kSmall, 3);
  ScriptedJudge judge(ch.costs);
  judge.constant = 1000;
  TrainConfig cfg = quickReal(400);
  cfg.rollouts = 4;
  cfg.patience = 12;
  const TrainResult r = Trainer(ch.costs, p, cfg, &judge).run();
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.episodes_done, 12);
  EXPECT_NE(r.log.back().find("stopped early"), std::string::npos) << r.log.back();
}

TEST(StageReal, ExecutionJudgeRunsThePlacementForReal) {
  Chain ch;
  TrainConfig cfg = quickReal(8);
  cfg.exec_target_ms = 2;
  cfg.exec_repeat = 1;
  ExecutionJudge judge(ch.graph, ch.devices, cfg, CancelToken{});
  EXPECT_EQ(judge.backendName(), "cpu-synthetic") << "a graph of costs only, and no torch kernels";
  const Assignment a(ch.graph.nodeCount(), 0);
  const double ms = judge.makespan(a, {});
  EXPECT_GT(ms, 0);
  EXPECT_EQ(judge.executions(), 1);
  ASSERT_EQ(judge.last().schedule.nodes.size(), static_cast<size_t>(ch.graph.nodeCount()));
  for (const NodeSpan& n : judge.last().schedule.nodes) EXPECT_EQ(n.device, 0);
  EXPECT_DOUBLE_EQ(judge.last().measured_makespan_us, ms);
  // Torch kernels need the module's factory and a graph with op kinds.
  cfg.exec_kernels = "torch";
  EXPECT_THROW(ExecutionJudge(ch.graph, ch.devices, cfg, CancelToken{}), InputError);
}

TEST(StageReal, TrainsOnRealExecutionsAndCancelsBetweenThem) {
  Chain ch;
  TrainConfig cfg = quickReal(100000);
  cfg.exec_target_ms = 1;
  cfg.exec_repeat = 1;
  const TrainRequest request{ch.graph, ch.devices, cfg, kSmall, {}};
  CancelToken cancel;
  std::atomic<long> seen{0};
  TrainResult r;
  std::thread job(
      [&] { r = runTraining(request, cancel, [&](const TrainProgress& p) { seen = p.episode; }); });
  while (seen < 8) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  cancel.cancel();
  job.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_GE(r.episodes_done, 8);
  EXPECT_LT(r.episodes_done, 100000);
  EXPECT_GT(r.best_makespan_us, 0);
  EXPECT_EQ(r.best_assignment.size(), static_cast<size_t>(ch.graph.nodeCount()));
  ASSERT_FALSE(r.log.empty());
  EXPECT_NE(r.log.front().find("cpu-synthetic"), std::string::npos) << r.log.front();
}

}  // namespace
}  // namespace doppler::train

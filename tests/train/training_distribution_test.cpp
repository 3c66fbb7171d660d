// The general policy's training distribution: deterministic per index (so workers can split the
// indices), within its device range, varied, and never one of the evaluation graphs.
#include "core/train/training_distribution.h"

#include <gtest/gtest.h>

#include <set>

#include "core/common/input_error.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/sim/cost_table.h"

namespace doppler::train {
namespace {

TEST(TrainingDistribution, ASampleDependsOnlyOnTheSeedAndItsIndex) {
  TrainingDistribution d;
  const TrainingSample a = sampleTraining(d, 7);
  sampleTraining(d, 3);  // other samples in between change nothing
  const TrainingSample b = sampleTraining(d, 7);
  EXPECT_EQ(writeGraphJson(a.graph), writeGraphJson(b.graph));
  EXPECT_EQ(a.description, b.description);
  d.seed = 2;
  EXPECT_NE(writeGraphJson(sampleTraining(d, 7).graph), writeGraphJson(a.graph));
}

TEST(TrainingDistribution, SamplesAreValidVariedAndWithinTheDeviceRange) {
  TrainingDistribution d;
  d.min_devices = 2;
  d.max_devices = 8;
  std::set<std::string> kinds;
  std::set<int> counts;
  int mixed = 0;
  for (uint64_t i = 0; i < 60; ++i) {
    const TrainingSample s = sampleTraining(d, i);
    EXPECT_GT(s.graph.nodeCount(), 1) << s.description;
    EXPECT_TRUE(s.graph.isAcyclic()) << s.description;
    EXPECT_NO_THROW(s.devices.validate()) << s.description;
    EXPECT_GE(s.devices.size(), 2);
    EXPECT_LE(s.devices.size(), 8);
    counts.insert(s.devices.size());
    kinds.insert(s.description.substr(0, s.description.find(' ')));
    mixed += s.description.find("mixed") != std::string::npos;
  }
  EXPECT_EQ(kinds.size(), 5u) << "every kind appears in 60 samples";
  EXPECT_GE(counts.size(), 5u);
  EXPECT_GT(mixed, 10);
  EXPECT_LT(mixed, 50);
}

TEST(TrainingDistribution, NeverTheEvaluationGraphs) {
  std::set<std::string> evaluation;
  for (const GeneratorInfo& info : generatorKinds()) {
    DataflowGraph g = generateGraph(info.kind);
    g.name.clear();
    evaluation.insert(writeGraphJson(g));
  }
  TrainingDistribution d;
  d.kinds = {"chainmm", "ffnn", "llama-block", "llama-layer"};
  for (uint64_t i = 0; i < 80; ++i) {
    DataflowGraph g = sampleTraining(d, i).graph;
    g.name.clear();
    EXPECT_EQ(evaluation.count(writeGraphJson(g)), 0u) << i;
  }
}

TEST(TrainingDistribution, LayeredDagsReadTheLayerBefore) {
  const DataflowGraph g = randomLayeredDag(5, 6, 4);
  EXPECT_TRUE(g.isAcyclic());
  for (int v = 0; v < g.nodeCount(); ++v) {
    const bool input = g.node(v).id.rfind("L0_", 0) == 0;
    EXPECT_EQ(g.inEdges(v).empty(), input) << g.node(v).id;
  }
}

TEST(TrainingDistribution, FixedCostsAreThePaperFilesConvention) {
  TrainingDistribution plain, fixed;
  fixed.fixed_costs = 0.5;
  int converted = 0;
  for (uint64_t i = 0; i < 40; ++i) {
    const TrainingSample a = sampleTraining(plain, i), b = sampleTraining(fixed, i);
    ASSERT_EQ(a.graph.nodeCount(), b.graph.nodeCount()) << "the same graph, other costs";
    if (b.description.find("fixed costs") == std::string::npos) {
      // Not drawn: the sample is exactly the one without the option.
      EXPECT_EQ(writeGraphJson(a.graph), writeGraphJson(b.graph)) << b.description;
      EXPECT_EQ(a.description, b.description);
      continue;
    }
    ++converted;
    EXPECT_NE(b.description.find("identical devices"), std::string::npos) << b.description;
    const CostTable before(a.graph, a.devices), after(b.graph, b.devices);
    const int last = b.devices.size() - 1;
    double ratio = -1;
    for (int v = 0; v < b.graph.nodeCount(); ++v) {
      // Each node's time on the first device, now on every device.
      EXPECT_DOUBLE_EQ(after.compute(v, 0), before.compute(v, 0));
      EXPECT_DOUBLE_EQ(after.compute(v, last), before.compute(v, 0));
    }
    for (int e = 0; e < after.edges(); ++e) {
      const double producer = after.compute(after.edgeSrc(e), 0);
      if (producer == 0) {
        EXPECT_EQ(after.transfer(e, 0, last), 0);
        continue;
      }
      // One ratio per sample, whatever the pair of devices.
      const double r = after.transfer(e, 0, last) / producer;
      EXPECT_DOUBLE_EQ(after.transfer(e, last, 0), after.transfer(e, 0, last));
      if (ratio < 0) ratio = r;
      EXPECT_NEAR(r, ratio, 1e-9 * ratio);
    }
    EXPECT_GE(ratio, 1 - 1e-9);
    EXPECT_LE(ratio, 16 + 1e-9);
  }
  EXPECT_GT(converted, 8);
  EXPECT_LT(converted, 32);
}

TEST(TrainingDistribution, BadSettingsAreRefusedByName) {
  TrainingDistribution d;
  d.kinds = {"resnet"};
  EXPECT_THROW(sampleTraining(d, 0), InputError);
  d = {};
  d.min_devices = 9;
  EXPECT_THROW(d.validate(), InputError);
  d = {};
  d.mixed = 2;
  EXPECT_THROW(d.validate(), InputError);
  d = {};
  d.fixed_costs = -0.1;
  EXPECT_THROW(d.validate(), InputError);
}

}  // namespace
}  // namespace doppler::train

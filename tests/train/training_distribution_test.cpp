// The general policy's training distribution: deterministic per index (so workers can split the
// indices), within its device range, varied, and never one of the evaluation graphs.
#include "core/train/training_distribution.h"

#include <gtest/gtest.h>

#include <set>

#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"

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
}

}  // namespace
}  // namespace doppler::train

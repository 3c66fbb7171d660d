// Given graphs in the general policy's training distribution (training_distribution.h): samples
// pick uniformly among the kinds and the graphs, name the graph they took, draw its device set as
// for generated graphs, stay deterministic in (seed, index), and graphs that cannot be trained on
// are refused by name.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "core/train/training_distribution.h"
#include "tests/support/data.h"

namespace doppler::train {
namespace {

TrainingDistribution givenGraphs() {
  TrainingDistribution d;
  d.kinds.clear();
  d.graphs.push_back({"dir/a.json", randomLayeredDag(3, 4, 3)});
  d.graphs.push_back({"dir/b.txt", doppler::testing::readTestGraph("diamonds_12nodes.txt")});
  d.min_devices = 2;
  d.max_devices = 5;
  return d;
}

TEST(TrainingGraphs, SamplesNameTheGraphTheyTookOnSampledDevices) {
  const TrainingDistribution d = givenGraphs();
  EXPECT_NO_THROW(d.validate());
  std::map<std::string, int> taken;
  std::map<int, int> deviceCounts;
  for (uint64_t i = 0; i < 40; ++i) {
    const TrainingSample s = sampleTraining(d, i);
    const size_t source = sampleSource(d, i);
    ASSERT_LT(source, 2u);
    const TrainingGraph& given = d.graphs[source];
    // "graph dir/a.json on 3 mixed devices": the file the sample took, as sampleSource says.
    EXPECT_EQ(s.description.rfind("graph " + given.name + " on ", 0), 0u) << s.description;
    EXPECT_EQ(s.graph.name, s.description);
    EXPECT_EQ(s.graph.nodeCount(), given.graph.nodeCount());
    EXPECT_EQ(s.graph.edgeCount(), given.graph.edgeCount());
    EXPECT_NO_THROW(s.devices.validate());
    EXPECT_GE(s.devices.size(), 2);
    EXPECT_LE(s.devices.size(), 5);
    ++taken[given.name];
    ++deviceCounts[s.devices.size()];
  }
  EXPECT_EQ(taken.size(), 2u);
  EXPECT_GE(deviceCounts.size(), 3u) << "the device sets are drawn, not fixed per graph";
}

TEST(TrainingGraphs, ASampleDependsOnlyOnTheSeedAndItsIndex) {
  TrainingDistribution d = givenGraphs();
  d.kinds = {"layered"};
  const TrainingSample a = sampleTraining(d, 11);
  sampleTraining(d, 4);
  const TrainingSample b = sampleTraining(d, 11);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(writeGraphJson(a.graph), writeGraphJson(b.graph));
  EXPECT_EQ(writeDeviceSetJson(a.devices), writeDeviceSetJson(b.devices));
  // A copy of the distribution (another worker's) draws the same sample.
  const TrainingDistribution copy = d;
  EXPECT_EQ(sampleTraining(copy, 11).description, a.description);
}

TEST(TrainingGraphs, KindsAndGraphsWeighAlike) {
  TrainingDistribution d = givenGraphs();
  d.kinds = {"layered", "ffnn"};  // four sources: two kinds, two graphs
  std::map<size_t, int> count;
  for (uint64_t i = 0; i < 400; ++i) {
    const size_t source = sampleSource(d, i);
    ++count[source];
    if (i % 40 == 0) {  // sampleSource is the draw sampleTraining makes
      const std::string description = sampleTraining(d, i).description;
      const std::string expected =
          source < 2 ? d.kinds[source] + " " : "graph " + d.graphs[source - 2].name + " ";
      EXPECT_EQ(description.rfind(expected, 0), 0u) << description;
    }
  }
  ASSERT_EQ(count.size(), 4u);
  for (const auto& [source, n] : count) {
    EXPECT_GT(n, 60) << "source " << source;  // 100 expected of each
    EXPECT_LT(n, 140) << "source " << source;
  }
}

TEST(TrainingGraphs, GraphsThatCannotBeTrainedOnAreRefusedByName) {
  TrainingDistribution d;
  d.kinds.clear();
  try {
    d.validate();
    ADD_FAILURE() << "no kinds and no graphs";
  } catch (const InputError& e) {
    EXPECT_NE(e.problem().find("a kind or a graph"), std::string::npos) << e.what();
  }

  d.graphs.push_back({"empty.json", DataflowGraph()});
  try {
    d.validate();
    ADD_FAILURE() << "a graph without nodes";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "empty.json");
  }
  EXPECT_THROW(sampleTraining(d, 0), InputError);

  DataflowGraph perDevice = randomLayeredDag(2, 3, 2);
  Node n;
  n.id = "measured";
  n.compute_us = {10, 20};  // times measured on one two-device set
  perDevice.addNode(n);
  d.graphs = {{"measured.json", perDevice}};
  try {
    d.validate();
    ADD_FAILURE() << "per-device compute times";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "measured.json");
    EXPECT_NE(e.where().find("'measured'.compute_us"), std::string::npos) << e.what();
  }
  // One time for every device is a graph like any other.
  d.graphs[0].graph = randomLayeredDag(2, 3, 2);
  n.compute_us = {10};
  d.graphs[0].graph.addNode(n);
  EXPECT_NO_THROW(d.validate());
  EXPECT_EQ(sampleTraining(d, 0).description.rfind("graph measured.json on ", 0), 0u);
}

}  // namespace
}  // namespace doppler::train

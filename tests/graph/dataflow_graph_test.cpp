#include "core/graph/dataflow_graph.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/input_error.h"
#include "core/graph/device_set.h"

namespace doppler {
namespace {

DataflowGraph diamond() {
  DataflowGraph g;
  for (const char* id : {"a", "b", "c", "d"}) g.addNode(Node{id, "op", 1, 1, {}});
  g.addEdge("a", "b", 1);
  g.addEdge("a", "c", 1);
  g.addEdge("b", "d", 1);
  g.addEdge("c", "d", 1);
  return g;
}

TEST(DataflowGraph, AdjacencyAndTopologicalOrder) {
  DataflowGraph g = diamond();
  EXPECT_EQ(g.nodeCount(), 4);
  EXPECT_EQ(g.edgeCount(), 4);
  EXPECT_EQ(g.topologicalOrder(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g.inEdges(3).size(), 2u);
  EXPECT_EQ(g.outEdges(0).size(), 2u);
  EXPECT_TRUE(g.isAcyclic());
  EXPECT_EQ(*g.find("c"), 2);
  EXPECT_FALSE(g.find("zz").has_value());
}

TEST(DataflowGraph, TopologicalTiesGoByIndex) {
  DataflowGraph g;
  for (const char* id : {"x", "y", "z"}) g.addNode(Node{id, "", 0, 0, {}});
  g.addEdge("z", "x", 0);
  EXPECT_EQ(g.topologicalOrder(), (std::vector<int>{1, 2, 0}));
}

TEST(DataflowGraph, CycleIsNamed) {
  DataflowGraph g = diamond();
  g.addEdge("d", "b", 1);
  auto cycle = g.findCycle();
  ASSERT_EQ(cycle.size(), 2u);
  try {
    g.topologicalOrder();
    FAIL() << "no error";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("cycle"), std::string::npos);
    EXPECT_NE(m.find("'b'"), std::string::npos) << m;
    EXPECT_NE(m.find("'d'"), std::string::npos) << m;
  }
}

TEST(DataflowGraph, RejectsBadNodesAndEdges) {
  DataflowGraph g = diamond();
  EXPECT_THROW(g.addNode(Node{"a", "", 0, 0, {}}), InputError);
  EXPECT_THROW(g.addNode(Node{"", "", 0, 0, {}}), InputError);
  EXPECT_THROW(g.addNode(Node{"n", "", -1, 0, {}}), InputError);
  EXPECT_THROW(g.addNode(Node{"n", "", std::nan(""), 0, {}}), InputError);
  EXPECT_THROW(g.addNode(Node{"n", "", 0, 0, {1, INFINITY}}), InputError);
  EXPECT_THROW(g.addEdge("a", "nope", 1), InputError);
  EXPECT_THROW(g.addEdge("a", "a", 1), InputError);
  EXPECT_THROW(g.addEdge("a", "b", -5), InputError);
  EXPECT_EQ(g.nodeCount(), 4);  // nothing half-added
  EXPECT_EQ(g.edgeCount(), 4);
  try {
    g.addNode(Node{"b", "", 0, 0, {}});
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate node id 'b' (first at nodes[1])"),
              std::string::npos)
        << e.what();
  }
}

TEST(DataflowGraph, PerDeviceArraysMustMatchDeviceCount) {
  DataflowGraph g;
  g.addNode(Node{"a", "", 0, 0, {1, 2, 3}});
  EXPECT_NO_THROW(g.checkDeviceCount(3));
  try {
    g.checkDeviceCount(4);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'a'.compute_us"), std::string::npos) << e.what();
  }
}

TEST(DeviceSet, UniformAndValidate) {
  DeviceSet d = DeviceSet::uniform(3, Device{"gpu", 10, 16}, 20, 2);
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d.devices[2].name, "gpu2");
  EXPECT_DOUBLE_EQ(d.latency_us[1][1], 0);
  EXPECT_NO_THROW(d.validate());
  d.bandwidth_gbps[0][1] = 0;
  EXPECT_THROW(d.validate(), InputError);
  d.bandwidth_gbps[0][1] = 5;
  d.latency_us[2].pop_back();
  EXPECT_THROW(d.validate(), InputError);
  EXPECT_THROW(DeviceSet().validate(), InputError);
}

}  // namespace
}  // namespace doppler

#include "core/graph/graph_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/common/input_error.h"
#include "tests/support/data.h"
#include "tests/support/temp_dir.h"

namespace doppler {
namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

const char* kGraph = R"({"format": "dataflow-graph/1", "name": "chainmm",
 "nodes": [{"id": "a", "op": "matmul", "flops": 2e12, "output_bytes": 4e8},
           {"id": "b", "op": "add", "compute_us": [14, 16, 9]},
           {"id": "c", "compute_us": 3}],
 "edges": [{"src": "a", "dst": "b", "bytes": 4e8},
           {"src": "a", "dst": "c", "transfer_us": 18}]})";

TEST(GraphJson, ReadsTheDesignExample) {
  DataflowGraph g = parseGraph(kGraph);
  EXPECT_EQ(g.name, "chainmm");
  ASSERT_EQ(g.nodeCount(), 3);
  EXPECT_DOUBLE_EQ(g.node(0).flops, 2e12);
  EXPECT_EQ(g.node(1).compute_us, (std::vector<double>{14, 16, 9}));
  EXPECT_EQ(g.node(2).compute_us, (std::vector<double>{3}));
  EXPECT_DOUBLE_EQ(g.edge(0).bytes, 4e8);
  EXPECT_FALSE(g.edge(0).transfer_us.has_value());
  EXPECT_DOUBLE_EQ(*g.edge(1).transfer_us, 18);
}

TEST(GraphJson, RoundTrips) {
  DataflowGraph g = parseGraph(kGraph);
  std::string once = writeGraphJson(g);
  DataflowGraph h = parseGraph(once);
  EXPECT_EQ(writeGraphJson(h), once);
  EXPECT_EQ(h.nodeCount(), 3);
  EXPECT_EQ(h.node(1).op, "add");
}

TEST(GraphJson, ErrorsNameThePlace) {
  EXPECT_NE(errorOf([] {
              parseGraph("{\"format\": \"dataflow-graph/1\",\n \"nodes\": [,]}", {}, "g.json");
            }).find("g.json: line 2, column"),
            std::string::npos);
  auto base = [](const std::string& nodes, const std::string& edges) {
    return R"({"format":"dataflow-graph/1","nodes":)" + nodes + R"(,"edges":)" + edges + "}";
  };
  struct Bad {
    std::string text, expect;
  } cases[] = {
      {base(R"([{"id":"a"},{"id":"a"}])", "[]"), "nodes[1]: duplicate node id 'a'"},
      {base(R"([{"id":"a"}])", R"([{"src":"a","dst":"q"}])"), "edges[0].dst: unknown node 'q'"},
      {base(R"([{"id":"a","flops":-1}])", "[]"), "nodes[0].flops: must not be negative"},
      {base(R"([{"id":"a","compute_us":[1,"x"]}])", "[]"),
       "nodes[0].compute_us[1]: expected a number"},
      {base(R"([{"id":7}])", "[]"), "nodes[0].id: expected a string"},
      {base(R"([{"id":"a"},{"id":"b"}])", R"([{"src":"a","dst":"b"},{"src":"b","dst":"a"}])"),
       "cycle"},
      {base(R"([{"id":"a"}])", R"([{"src":"a","dst":"a"}])"), "self loop"},
      {base(R"([{"op":"x"}])", "[]"), "nodes[0].id: missing required field"},
      {R"({"format":"device-set/1"})", "this is a device file"},
      {R"({"nodes":[]})", "format: missing"},
      {"[1,2]", "expected a JSON object"},
      {"hello", "not a graph"},
      {std::string("\x01\x02\x03", 3), "binary data"},
      {"   \n  ", "no content"},
  };
  for (const Bad& b : cases) {
    std::string m = errorOf([&] { parseGraph(b.text, {}, "g.json"); });
    EXPECT_NE(m.find(b.expect), std::string::npos) << "expected '" << b.expect << "' in: " << m;
    EXPECT_EQ(m.rfind("g.json", 0), 0u) << m;
  }
  // NaN and infinity are not JSON numbers: refused as malformed JSON.
  EXPECT_NE(errorOf([&] {
              parseGraph(base(R"([{"id":"a","flops":NaN}])", "[]"));
            }).find("malformed JSON"),
            std::string::npos);
  EXPECT_NE(
      errorOf([&] { parseGraph(base(R"([{"id":"a","flops":1e999}])", "[]")); }).find("not finite"),
      std::string::npos);
}

TEST(DopplerText, ReadsTheTestGraphs) {
  for (const auto& t : testing::testGraphs()) {
    DataflowGraph g = readGraphFile(testing::testData(t.file));
    EXPECT_EQ(g.nodeCount(), t.nodes) << t.file;
    EXPECT_EQ(g.edgeCount(), t.edges) << t.file;
    EXPECT_TRUE(g.isAcyclic()) << t.file;
    EXPECT_EQ(g.name + ".txt", t.file);
  }
  // Two branches of 2x2-tiled matmuls (tiles of 1536): a load costs a tile's elements, every
  // transfer its bytes x 2000, the tile products 2 x 1536^3 (tests/data/make_graphs.py).
  DataflowGraph chain = testing::readTestGraph("chain_mm_40nodes.txt");
  EXPECT_DOUBLE_EQ(chain.node(0).compute_us.at(0), 1536.0 * 1536 * 1e-6);
  EXPECT_DOUBLE_EQ(chain.node(1).compute_us.at(0), 2 * 1536.0 * 1536 * 1536 * 1e-6);
  EXPECT_DOUBLE_EQ(*chain.edge(0).transfer_us, 4 * 1536.0 * 1536 * 2000 * 1e-6);  // the source's
  EXPECT_TRUE(chain.node(0).op.empty());
  // Op words, and a last line with its newline.
  DataflowGraph diamonds = testing::readTestGraph("diamonds_12nodes.txt");
  EXPECT_EQ(diamonds.node(0).op, "load");
  EXPECT_EQ(diamonds.node(1).op, "matmul");
  EXPECT_EQ(diamonds.node(11).op, "loss");
}

TEST(DopplerText, MalformedFilesNameTheFileAndTheLine) {
  struct Bad {
    std::string file, expect;
  } cases[] = {
      {"bad_cost.txt",
       "bad_cost.txt: line 7: expected a non-negative integer compute cost, "
       "found '3.5'"},
      {"short.txt",
       "short.txt: line 8: expected 4 node cost lines (6 nodes less 2 inputs), found 3"},
      {"edge_mismatch.txt", "edge_mismatch.txt: line 4: has 2 edge destinations but line 3 has 3"},
      {"cycle.txt", "cycle.txt"},
  };
  for (const Bad& b : cases) {
    std::string m = errorOf([&] { readGraphFile(testing::testData("malformed/" + b.file)); });
    EXPECT_NE(m.find(b.expect), std::string::npos) << "expected '" << b.expect << "' in: " << m;
  }
  EXPECT_NE(errorOf([] { readGraphFile(testing::testData("malformed/cycle.txt")); }).find("cycle"),
            std::string::npos);
}

// The published graphs' sizes: needs the paper graphs (not in the repository).
TEST(DopplerText, ReadsThePaperGraphs) {
  const auto graphs = testing::readPaperGraphs();
  if (graphs.empty()) return;
  const std::pair<int, int> sizes[] = {{76, 80},   {180, 208}, {182, 234},
                                       {229, 284}, {302, 398}, {367, 470}};
  ASSERT_EQ(graphs.size(), 6u);
  for (size_t i = 0; i < graphs.size(); ++i) {
    EXPECT_EQ(graphs[i].graph.nodeCount(), sizes[i].first) << graphs[i].name;
    EXPECT_EQ(graphs[i].graph.edgeCount(), sizes[i].second) << graphs[i].name;
    EXPECT_TRUE(graphs[i].graph.isAcyclic()) << graphs[i].name;
  }
  const DataflowGraph& chain = graphs[0].graph;  // 112 less 36 inputs
  EXPECT_DOUBLE_EQ(chain.node(0).compute_us.at(0), 1e12 * 1e-6);
  EXPECT_DOUBLE_EQ(*chain.edge(0).transfer_us, 4e12 * 1e-6);  // comm cost of the source node
}

TEST(DopplerText, ScaleAndOpWord) {
  const char* text = "3\r\n0\r\n0\r\n1\r\n10,40,einsummable\r\n20,80";
  ReadOptions o;
  o.doppler_scale = 0.5;
  DataflowGraph g = parseGraph(text, o);
  ASSERT_EQ(g.nodeCount(), 2);
  EXPECT_EQ(g.node(0).op, "einsummable");
  EXPECT_DOUBLE_EQ(g.node(1).compute_us[0], 10);
  EXPECT_DOUBLE_EQ(*g.edge(0).transfer_us, 20);
}

TEST(DopplerText, ErrorsNameTheLine) {
  struct Bad {
    std::string text, expect;
  } cases[] = {
      {"3\n0\n0\n1\n10,40\nx,80\n",
       "line 6: expected a non-negative integer compute cost, found 'x'"},
      {"3\n0\n0\n1\n10,40\n", "expected 2 node cost lines"},
      {"3\n0\n0 1\n1\n10,40\n1,1\n", "line 4: has 1 edge destinations but line 3 has 2"},
      {"3\n0\n0\n5\n10,40\n1,1\n", "line 4: edge destination 5 is out of range"},
      {"3\n0\n0\n0\n10,40\n1,1\n", "self loop"},
      {"3\n0\n0 1\n1 0\n10,40\n1,1\n", "cycle"},
      {"3\n0\n0\n1\n10,-40\n1,1\n", "line 5: communication cost is negative"},
      {"3 4\n0\n0\n1\n10,40\n1,1\n", "line 1: expected exactly one number"},
      {"2\n0 1\n0\n1\n", "no node to schedule"},
  };
  for (const Bad& b : cases) {
    std::string m = errorOf([&] { parseGraph(b.text, {}, "t.txt"); });
    EXPECT_NE(m.find(b.expect), std::string::npos) << "expected '" << b.expect << "' in: " << m;
  }
}

TEST(DeviceJson, ReadsScalarAndMatrixLinks) {
  DeviceSet d = parseDeviceSet(R"({"format": "device-set/1", "name": "4xP100",
    "devices": [{"name": "gpu0", "tflops": 9.3, "memory_gb": 16}, {"name": "gpu1", "tflops": 9.3}],
    "links": {"bandwidth_gbps": 16, "latency_us": 5}})");
  EXPECT_EQ(d.size(), 2);
  EXPECT_DOUBLE_EQ(d.bandwidth_gbps[1][0], 16);
  EXPECT_DOUBLE_EQ(d.latency_us[0][0], 0);
  DeviceSet m = parseDeviceSet(R"({"format": "device-set/1",
    "devices": [{"tflops": 1}, {"tflops": 2}],
    "links": {"bandwidth_gbps": [[0, 10], [20, 0]], "latency_us": [[0, 1], [2, 0]]}})");
  EXPECT_DOUBLE_EQ(m.bandwidth_gbps[1][0], 20);
  EXPECT_DOUBLE_EQ(m.latency_us[0][1], 1);
  DeviceSet again = parseDeviceSet(writeDeviceSetJson(m));
  EXPECT_EQ(again.bandwidth_gbps, m.bandwidth_gbps);
  EXPECT_EQ(again.devices[1].tflops, 2);
}

TEST(DeviceJson, ErrorsNameTheField) {
  struct Bad {
    std::string text, expect;
  } cases[] = {
      {R"({"format":"device-set/1","devices":[],"links":{"bandwidth_gbps":1}})",
       "devices: the device set has no devices"},
      {R"({"format":"device-set/1","devices":[{"tflops":-1}],"links":{"bandwidth_gbps":1}})",
       "devices[0].tflops"},
      {R"({"format":"device-set/1","devices":[{"tflops":1},{"tflops":1}],"links":{"bandwidth_gbps":[[0,1]]}})",
       "links.bandwidth_gbps: has 1 rows"},
      {R"({"format":"device-set/1","devices":[{"tflops":1},{"tflops":1}],"links":{"bandwidth_gbps":0}})",
       "links.bandwidth_gbps[0][1]: must be a finite positive number"},
      {R"({"format":"device-set/1","devices":[{"tflops":1}]})", "links: missing required field"},
      {R"({"format":"dataflow-graph/1"})", "this is a graph file"},
  };
  for (const Bad& b : cases) {
    std::string m = errorOf([&] { parseDeviceSet(b.text, "d.json"); });
    EXPECT_NE(m.find(b.expect), std::string::npos) << "expected '" << b.expect << "' in: " << m;
  }
}

TEST(Files, MissingEmptyHugeAndDirectory) {
  const testing::TempDir tmp("doppler_io_test");
  const std::filesystem::path& dir = tmp.dir();
  EXPECT_NE(errorOf([&] { readGraphFile((dir / "nope.json").string()); }).find("no such file"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { readGraphFile(dir.string()); }).find("is a directory"),
            std::string::npos);
  std::ofstream((dir / "empty.json").string()).close();
  EXPECT_NE(errorOf([&] { readGraphFile((dir / "empty.json").string()); }).find("file is empty"),
            std::string::npos);
  {
    // A 100 MB file is refused by size before any parsing.
    std::ofstream big((dir / "big.json").string(), std::ios::binary);
    std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 100; ++i) big << chunk;
  }
  EXPECT_NE(errorOf([&] {
              readGraphFile((dir / "big.json").string());
            }).find("larger than the 64 MiB limit"),
            std::string::npos);
}

}  // namespace
}  // namespace doppler

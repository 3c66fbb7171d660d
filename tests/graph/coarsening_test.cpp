// Coarsening (core/graph/coarsening.h): merge phases, the partition and its costs, expansion, the
// JSON round trip of a coarsened graph, and `doppler graph coarsen`.
#include "core/graph/coarsening.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "tests/support/cli_fixture.h"

namespace doppler {
namespace {

using nlohmann::json;

Node node(const std::string& id, double flops = 1, const std::string& op = "op") {
  Node n;
  n.id = id;
  n.op = op;
  n.flops = flops;
  return n;
}

// The fine node ids of each coarse node.
std::vector<std::set<std::string>> memberIds(const DataflowGraph& g) {
  std::vector<std::set<std::string>> out;
  for (const auto& m : g.groups->members) {
    out.emplace_back();
    for (int f : m) out.back().insert(g.groups->fine.node(f).id);
  }
  return out;
}

std::set<std::string> ids(std::initializer_list<const char*> names) {
  return std::set<std::string>(names.begin(), names.end());
}

// Every fine node in exactly one group, group_of and members agreeing, the coarse graph acyclic,
// costs summed.
void expectValidGrouping(const DataflowGraph& fine, const DataflowGraph& coarse) {
  ASSERT_TRUE(coarse.groups);
  const GraphGroups& gr = *coarse.groups;
  ASSERT_EQ(gr.fine.nodeCount(), fine.nodeCount());
  ASSERT_EQ(static_cast<int>(gr.members.size()), coarse.nodeCount());
  ASSERT_EQ(static_cast<int>(gr.group_of.size()), fine.nodeCount());
  std::vector<int> seen(fine.nodeCount(), 0);
  double flops = 0, coarseFlops = 0;
  for (int g = 0; g < coarse.nodeCount(); ++g) {
    EXPECT_FALSE(gr.members[g].empty());
    double groupFlops = 0;
    for (int f : gr.members[g]) {
      ++seen[f];
      EXPECT_EQ(gr.group_of[f], g);
      groupFlops += fine.node(f).flops;
    }
    EXPECT_DOUBLE_EQ(coarse.node(g).flops, groupFlops);
    coarseFlops += coarse.node(g).flops;
  }
  for (int f = 0; f < fine.nodeCount(); ++f) {
    EXPECT_EQ(seen[f], 1) << fine.node(f).id;
    flops += fine.node(f).flops;
  }
  EXPECT_NEAR(coarseFlops, flops, 1e-9 * flops);
  EXPECT_TRUE(coarse.isAcyclic());
  std::set<std::string> coarseIds;
  for (const Node& n : coarse.nodes()) EXPECT_TRUE(coarseIds.insert(n.id).second) << n.id;
}

void expectSameGraph(const DataflowGraph& a, const DataflowGraph& b) {
  ASSERT_EQ(a.nodeCount(), b.nodeCount());
  ASSERT_EQ(a.edgeCount(), b.edgeCount());
  for (int v = 0; v < a.nodeCount(); ++v) {
    EXPECT_EQ(a.node(v).id, b.node(v).id);
    EXPECT_EQ(a.node(v).op, b.node(v).op);
    EXPECT_DOUBLE_EQ(a.node(v).flops, b.node(v).flops);
    EXPECT_DOUBLE_EQ(a.node(v).output_bytes, b.node(v).output_bytes);
    EXPECT_EQ(a.node(v).compute_us, b.node(v).compute_us);
  }
  for (int e = 0; e < a.edgeCount(); ++e) {
    EXPECT_EQ(a.edge(e).src, b.edge(e).src);
    EXPECT_EQ(a.edge(e).dst, b.edge(e).dst);
    EXPECT_DOUBLE_EQ(a.edge(e).bytes, b.edge(e).bytes);
    EXPECT_EQ(a.edge(e).transfer_us, b.edge(e).transfer_us);
  }
}

// A random DAG: nodes in scopes "/s<a>/t<b>/op<i>" (some unscoped), weight inputs with one
// consumer, edges from earlier to later nodes (so scopes interleave along paths).
DataflowGraph randomDag(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  DataflowGraph g;
  g.name = "random-" + std::to_string(seed);
  for (int v = 0; v < n; ++v) {
    std::string id;
    switch (rng() % 4) {
      case 0:
        id = "op" + std::to_string(v);
        break;
      case 1:
        id = "/s" + std::to_string(rng() % 3) + "/op" + std::to_string(v);
        break;
      default:
        id = "/s" + std::to_string(rng() % 3) + "/t" + std::to_string(rng() % 2) + "/op" +
             std::to_string(v);
    }
    Node nd = node(id, 1 + rng() % 100);
    nd.output_bytes = rng() % 1000;
    const int self = g.addNode(nd);
    if (self > 0) {
      std::set<int> sources;  // no parallel edges
      const int fanIn = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < fanIn; ++k) {
        const int lo = std::max(0, self - 1 - static_cast<int>(rng() % 8));
        sources.insert(lo + static_cast<int>(rng() % (self - lo)));
      }
      for (int src : sources)
        g.addEdge(Edge{src, self, static_cast<double>(rng() % 500), std::nullopt});
    }
    if (rng() % 3 == 0) {  // a weight input of this node
      Node w = node(id + ".weight", 0, "input");
      w.output_bytes = 64;
      const int wi = g.addNode(w);
      g.addEdge(Edge{wi, self, 64, std::nullopt});
    }
  }
  return g;
}

TEST(Coarsening, ScopeOfSplitsPathsAndDottedNames) {
  EXPECT_EQ(scopeOf("/h.3/attn/MatMul_1"), (std::vector<std::string>{"h.3", "attn"}));
  EXPECT_EQ(scopeOf("/MatMul"), std::vector<std::string>{});
  EXPECT_EQ(scopeOf("h.3.attn.q_proj.weight"), (std::vector<std::string>{"h.3", "attn", "q_proj"}));
  EXPECT_EQ(scopeOf("input.1"), std::vector<std::string>{});
  EXPECT_EQ(scopeOf("matmul_b0_s1"), std::vector<std::string>{});
}

TEST(Coarsening, ChainsMergeIntoOneGroupEach) {
  DataflowGraph g;
  for (const char* id : {"x0", "x1", "x2", "x3", "y0", "y1"}) g.addNode(node(id));
  g.addEdge("x0", "x1", 1);
  g.addEdge("x1", "x2", 1);
  g.addEdge("x2", "x3", 1);
  g.addEdge("y0", "y1", 1);
  CoarsenStats st;
  DataflowGraph c = coarsenGraph(g, 2, &st);
  expectValidGrouping(g, c);
  EXPECT_EQ(memberIds(c),
            (std::vector<std::set<std::string>>{ids({"x0", "x1", "x2", "x3"}), ids({"y0", "y1"})}));
  EXPECT_EQ(st.chain_merges, 4);
  EXPECT_EQ(st.scope_merges, 0);
  EXPECT_EQ(st.forced_merges, 0);
  EXPECT_EQ(st.scope_depth, -1);
  EXPECT_EQ(c.node(0).id, "x0+3");  // no scope: first member and how many more
  EXPECT_EQ(c.node(0).op, "op");
  EXPECT_DOUBLE_EQ(c.node(0).flops, 4);
}

TEST(Coarsening, ChainStopsAtABranchOrAJoin) {
  DataflowGraph g;
  for (const char* id : {"a", "b", "c", "d"}) g.addNode(node(id));
  g.addEdge("a", "b", 1);  // a has two consumers: a-b and a-c are no chain
  g.addEdge("a", "c", 1);
  g.addEdge("b", "d", 1);  // d has two producers
  g.addEdge("c", "d", 1);
  CoarsenStats st;
  DataflowGraph c = coarsenGraph(g, 3, &st);
  EXPECT_EQ(st.chain_merges, 0);
  EXPECT_EQ(st.forced_merges, 1);
  EXPECT_EQ(c.nodeCount(), 3);
  expectValidGrouping(g, c);
}

// in -> five scoped nodes -> out: no chains, so only scopes (then neighbours) merge.
DataflowGraph fanGraph() {
  DataflowGraph g;
  g.addNode(node("in"));
  for (const char* id : {"/a/p/m1", "/a/p/m2", "/a/q/m1", "/a/q/m2", "/b/m1"}) {
    g.addNode(node(id));
    g.addEdge("in", id, 1);
  }
  g.addNode(node("out"));
  for (const char* id : {"/a/p/m1", "/a/p/m2", "/a/q/m1", "/a/q/m2", "/b/m1"})
    g.addEdge(id, "out", 1);
  return g;
}

TEST(Coarsening, ScopesMergeFromTheDeepestLevelUp) {
  const DataflowGraph g = fanGraph();
  CoarsenStats st;
  DataflowGraph c = coarsenGraph(g, 5, &st);
  expectValidGrouping(g, c);
  EXPECT_EQ(c.nodeCount(), 5);
  EXPECT_EQ(st.scope_merges, 2);
  EXPECT_EQ(st.scope_depth, 2);
  EXPECT_TRUE(c.find("/a/p") && c.find("/a/q"));
  EXPECT_EQ(memberIds(c)[*c.find("/a/p")], ids({"/a/p/m1", "/a/p/m2"}));

  c = coarsenGraph(g, 4, &st);
  expectValidGrouping(g, c);
  EXPECT_EQ(st.scope_merges, 3);
  EXPECT_EQ(st.scope_depth, 1);
  ASSERT_TRUE(c.find("/a"));
  EXPECT_EQ(memberIds(c)[*c.find("/a")], ids({"/a/p/m1", "/a/p/m2", "/a/q/m1", "/a/q/m2"}));
  EXPECT_TRUE(c.find("/b/m1"));  // a group of one keeps its member's id
}

TEST(Coarsening, AtTheLastLevelOnlyAsManyMergesAsNeeded) {
  DataflowGraph g;
  g.addNode(node("in"));
  for (int i = 0; i < 6; ++i) {
    g.addNode(node("/s/m" + std::to_string(i)));
    g.addEdge("in", "/s/m" + std::to_string(i), 1);
  }
  for (int max = 1; max <= g.nodeCount(); ++max) {
    CoarsenStats st;
    DataflowGraph c = coarsenGraph(g, max, &st);
    EXPECT_EQ(c.nodeCount(), max) << max;
    if (max < g.nodeCount()) expectValidGrouping(g, c);
    EXPECT_EQ(st.scope_merges, std::min(5, g.nodeCount() - max)) << max;
  }
}

TEST(Coarsening, WeightInputsJoinTheirConsumer) {
  DataflowGraph g;
  g.addNode(node("/h.0/attn/MatMul"));
  g.addNode(node("h.0.attn.q.weight", 0, "input"));
  g.addNode(node("/h.0/attn/Add"));
  g.addNode(node("onnx::Add_7", 0, "input"));
  g.addNode(node("/h.1/mlp/MatMul"));
  g.addNode(node("/h.1/mlp/Relu"));
  g.addEdge("h.0.attn.q.weight", "/h.0/attn/MatMul", 8);
  g.addEdge("/h.0/attn/MatMul", "/h.0/attn/Add", 4);
  g.addEdge("onnx::Add_7", "/h.0/attn/Add", 4);
  g.addEdge("/h.0/attn/MatMul", "/h.1/mlp/MatMul", 4);
  g.addEdge("/h.1/mlp/MatMul", "/h.1/mlp/Relu", 4);
  CoarsenStats st;
  DataflowGraph c = coarsenGraph(g, 3, &st);
  expectValidGrouping(g, c);
  EXPECT_EQ(st.input_merges, 2);
  EXPECT_EQ(st.chain_merges, 1);  // MatMul -> Relu
  ASSERT_TRUE(c.find("/h.0/attn/MatMul"));
  auto m = memberIds(c);
  EXPECT_EQ(m[*c.find("/h.0/attn/MatMul")], ids({"/h.0/attn/MatMul", "h.0.attn.q.weight"}));
  EXPECT_EQ(c.node(*c.find("/h.0/attn/MatMul")).op, "op");  // a node with its weights
  ASSERT_TRUE(c.find("/h.0/attn/Add"));  // and a weight without a scope of its own
  EXPECT_EQ(m[*c.find("/h.0/attn/Add")], ids({"/h.0/attn/Add", "onnx::Add_7"}));
  ASSERT_TRUE(c.find("/h.1/mlp"));
  EXPECT_EQ(m[*c.find("/h.1/mlp")], ids({"/h.1/mlp/MatMul", "/h.1/mlp/Relu"}));
}

// Scope A: a1 -> b1 -> a2. Grouping {a1, a2} would make a cycle with {b1}.
DataflowGraph interleavedScopes() {
  DataflowGraph g;
  for (const char* id : {"/A/a1", "/B/b1", "/A/a2", "/A/a3", "/B/b2", "/C/c1"}) g.addNode(node(id));
  g.addEdge("/A/a1", "/B/b1", 1);
  g.addEdge("/B/b1", "/A/a2", 1);
  g.addEdge("/A/a1", "/A/a3", 1);
  g.addEdge("/A/a2", "/B/b2", 1);
  g.addEdge("/A/a3", "/B/b2", 1);
  g.addEdge("/A/a1", "/C/c1", 1);
  return g;
}

TEST(Coarsening, ScopesInterleavedAlongAPathStayAcyclic) {
  const DataflowGraph g = interleavedScopes();
  for (int max = 1; max < g.nodeCount(); ++max) {
    DataflowGraph c = coarsenGraph(g, max);
    EXPECT_EQ(c.nodeCount(), max);
    expectValidGrouping(g, c);
  }
  // The naive scope partition is refused, naming the cycle.
  try {
    groupGraph(g, {0, 1, 0, 0, 1, 2});
    FAIL() << "expected a cycle";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "groups[0]");
    EXPECT_NE(e.problem().find("cycle: '/A' -> '/B' -> '/A'"), std::string::npos) << e.what();
  }
}

TEST(Coarsening, RandomDagsGiveAcyclicPartitionsOfExactlyTheLimit) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const DataflowGraph g = randomDag(seed, 60 + static_cast<int>(seed % 7) * 20);
    for (int max : {1, 2, 5, 17, g.nodeCount() / 2, g.nodeCount() - 1}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " max " + std::to_string(max));
      CoarsenStats st;
      DataflowGraph c = coarsenGraph(g, max, &st);
      EXPECT_EQ(c.nodeCount(), max);
      EXPECT_EQ(st.fine_nodes, g.nodeCount());
      EXPECT_EQ(st.coarse_nodes, max);
      EXPECT_EQ(st.input_merges + st.chain_merges + st.scope_merges + st.forced_merges,
                g.nodeCount() - max);
      expectValidGrouping(g, c);
      // Expanding everything gives the fine graph back.
      std::vector<int> all(c.nodeCount());
      for (int i = 0; i < c.nodeCount(); ++i) all[i] = i;
      expectSameGraph(expandGroups(c, all), g);
    }
  }
}

TEST(Coarsening, ASmallGraphComesBackUnchanged) {
  const DataflowGraph g = fanGraph();
  DataflowGraph c = coarsenGraph(g, g.nodeCount());
  EXPECT_FALSE(c.groups);
  expectSameGraph(c, g);
  // A coarse graph is coarsened again from its fine graph.
  DataflowGraph c4 = coarsenGraph(g, 4);
  DataflowGraph again = coarsenGraph(c4, 5);
  EXPECT_EQ(again.nodeCount(), 5);
  EXPECT_EQ(again.groups->fine.nodeCount(), g.nodeCount());
  EXPECT_THROW(coarsenGraph(g, 0), InputError);
}

TEST(Coarsening, CostsSumAndSingleComputeValuesBroadcast) {
  DataflowGraph g;
  Node a = node("a", 10);
  a.output_bytes = 5;
  a.compute_us = {1};
  Node b = node("b", 20, "add");
  b.output_bytes = 7;
  b.compute_us = {2, 3};
  Node w = node("w", 0, "input");  // no compute time at all: neutral
  g.addNode(a);
  g.addNode(b);
  g.addNode(w);
  g.addNode(node("c", 4));
  g.addEdge("a", "b", 1);
  g.addEdge("w", "b", 1);
  g.addEdge("b", "c", 1);
  DataflowGraph c = groupGraph(g, {0, 0, 0, 1});
  EXPECT_EQ(c.node(0).id, "a+2");
  EXPECT_EQ(c.node(0).op, "group");
  EXPECT_DOUBLE_EQ(c.node(0).flops, 30);
  EXPECT_DOUBLE_EQ(c.node(0).output_bytes, 12);
  EXPECT_EQ(c.node(0).compute_us, (std::vector<double>{3, 4}));
  // compute_us and flops only cannot merge: the error names both nodes.
  try {
    groupGraph(g, {0, 1, 1, 1});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "nodes[3] 'c'");
    EXPECT_NE(e.problem().find("'b' has compute_us"), std::string::npos) << e.what();
  }
}

// A Split's three outputs into one group all travel; one tensor read by two members travels once.
// The producer's output_bytes tells the two apart (the importer sets it to its outputs' sum).
TEST(Coarsening, SeveralOutputsOfOneProducerEachTravel) {
  DataflowGraph g;
  Node split = node("split");
  split.output_bytes = 300;
  g.addNode(split);
  Node x = node("x");
  x.output_bytes = 100;
  g.addNode(x);
  for (const char* id : {"q", "k", "v", "a", "b"}) g.addNode(node(id));
  for (const char* id : {"q", "k", "v"}) g.addEdge("split", id, 100);
  g.addEdge("x", "a", 100);
  g.addEdge("x", "b", 100);
  const DataflowGraph c = groupGraph(g, {0, 1, 2, 2, 2, 3, 3});
  ASSERT_EQ(c.edgeCount(), 2);
  EXPECT_DOUBLE_EQ(c.edge(0).bytes, 300);  // split -> {q, k, v}: three tensors
  EXPECT_DOUBLE_EQ(c.edge(1).bytes, 100);  // x -> {a, b}: one tensor
}

// Layers merged as neighbours have no common scope: their group is named by the range of layers.
TEST(Coarsening, GroupsOfWholeLayersAreNamedByTheirRange) {
  DataflowGraph g;
  g.addNode(node("input"));
  std::string prev = "input";
  for (int l = 0; l < 6; ++l)
    for (const char* op : {"a", "b"}) {
      const std::string id = "/l." + std::to_string(l) + "/" + op;
      g.addNode(node(id));
      g.addEdge(prev, id, 1);
      prev = id;
    }
  const DataflowGraph c = coarsenGraph(g, 3);
  ASSERT_EQ(c.nodeCount(), 3);
  const auto members = memberIds(c);
  for (int v = 0; v < 3; ++v) {
    // The first and last layer among the members ("input" has none).
    std::string first, last;
    for (const std::string& id : members[v]) {
      if (id == "input") continue;
      const std::string layer = id.substr(1, 3);  // "/l.3/a" -> "l.3"
      if (first.empty()) first = layer;
      last = layer;
    }
    const std::string want = first == last ? "/" + first : "/" + first + "\u2026" + last;
    EXPECT_EQ(c.node(v).id, want);
  }
  EXPECT_EQ(c.node(0).id, "/l.0");  // the graph input and the first layer
}

TEST(Coarsening, ATensorSentTwiceIntoAGroupCountsOnce) {
  DataflowGraph g;
  for (const char* id : {"u", "w", "v1", "v2"}) g.addNode(node(id));
  g.addEdge("u", "v1", 100);
  g.addEdge("u", "v2", 100);
  g.addEdge("w", "v1", 50);
  g.addEdge("w", "v2", 30);
  DataflowGraph c = groupGraph(g, {0, 1, 2, 2});
  ASSERT_EQ(c.edgeCount(), 2);
  EXPECT_DOUBLE_EQ(c.edge(0).bytes, 100);  // u -> {v1, v2}
  EXPECT_DOUBLE_EQ(c.edge(1).bytes, 50);   // w -> {v1, v2}: the larger
  c = groupGraph(g, {0, 0, 1, 1});
  ASSERT_EQ(c.edgeCount(), 1);
  EXPECT_DOUBLE_EQ(c.edge(0).bytes, 150);  // distinct sources add up
  EXPECT_FALSE(c.edge(0).transfer_us);

  DataflowGraph t;
  for (const char* id : {"u", "w", "v"}) t.addNode(node(id));
  t.addEdge(Edge{0, 2, 10, 5.0});
  t.addEdge(Edge{1, 2, 0, 7.0});
  c = groupGraph(t, {0, 0, 1});
  ASSERT_TRUE(c.edge(0).transfer_us);
  EXPECT_DOUBLE_EQ(*c.edge(0).transfer_us, 12);
  t.addNode(node("x"));
  t.addEdge("x", "v", 10);  // bytes only, into the same coarse edge
  try {
    groupGraph(t, {0, 0, 1, 0});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "edges[2] ('x' -> 'v')");
    EXPECT_NE(e.problem().find("transfer_us"), std::string::npos);
  }
}

TEST(Coarsening, ExpandingOneGroupReplacesItByItsMembers) {
  const DataflowGraph g = fanGraph();
  DataflowGraph c = coarsenGraph(g, 3);
  expectValidGrouping(g, c);
  int big = 0;
  for (int i = 0; i < c.nodeCount(); ++i)
    if (c.groups->members[i].size() > c.groups->members[big].size()) big = i;
  const auto members = memberIds(c)[big];
  const std::vector<int> expand{big};
  DataflowGraph e = expandGroups(c, expand);
  expectValidGrouping(g, e);
  EXPECT_EQ(e.nodeCount(), c.nodeCount() - 1 + static_cast<int>(members.size()));
  for (const std::string& id : members) {
    ASSERT_TRUE(e.find(id)) << id;
    EXPECT_EQ(e.groups->members[*e.find(id)].size(), 1u);
  }
  for (int i = 0; i < c.nodeCount(); ++i) {
    if (i != big) {
      EXPECT_TRUE(e.find(c.node(i).id)) << c.node(i).id;
    }
  }
  EXPECT_THROW(expandGroups(g, expand), InputError);  // no groups
  const std::vector<int> bad{c.nodeCount()};
  EXPECT_THROW(expandGroups(c, bad), InputError);
}

// Group ids and ops are names: renamed by hand, they are kept (costs are checked, names are not).
TEST(CoarseningJson, AGroupRenamedByHandKeepsItsName) {
  const DataflowGraph c = coarsenGraph(randomDag(7, 120), 12);
  json j = json::parse(writeGraphJson(c));
  const std::string old = j["nodes"][0]["id"];
  j["nodes"][0]["id"] = "encoder";
  j["nodes"][0]["op"] = "block";
  for (auto& e : j["edges"]) {
    if (e["src"] == old) e["src"] = "encoder";
    if (e["dst"] == old) e["dst"] = "encoder";
  }
  const DataflowGraph back = parseGraphJson(j.dump(), "c.json");
  EXPECT_EQ(back.node(0).id, "encoder");
  EXPECT_EQ(back.node(0).op, "block");
  EXPECT_DOUBLE_EQ(back.node(0).flops, c.node(0).flops);
  ASSERT_TRUE(back.groups);
  EXPECT_EQ(back.groups->members[0], c.groups->members[0]);
  EXPECT_EQ(back.edgeCount(), c.edgeCount());
}

TEST(CoarseningJson, ACoarseGraphRoundTrips) {
  const DataflowGraph g = randomDag(7, 120);
  const DataflowGraph c = coarsenGraph(g, 12);
  const std::string text = writeGraphJson(c);
  const json j = json::parse(text);
  EXPECT_EQ(j["fine"]["format"], "dataflow-graph/1");
  EXPECT_EQ(j["fine"]["nodes"].size(), static_cast<size_t>(g.nodeCount()));
  EXPECT_TRUE(j["nodes"][0]["members"].is_array());
  const DataflowGraph back = parseGraphJson(text, "c.json");
  expectSameGraph(back, c);
  ASSERT_TRUE(back.groups);
  EXPECT_EQ(back.groups->group_of, c.groups->group_of);
  expectSameGraph(back.groups->fine, g);
  EXPECT_EQ(writeGraphJson(back), text);
}

TEST(CoarseningJson, AGraphWithoutGroupsIsWrittenAsBefore) {
  const DataflowGraph g = randomDag(3, 40);
  const std::string text = writeGraphJson(g);
  EXPECT_EQ(text.find("members"), std::string::npos);
  EXPECT_EQ(text.find("\"fine\""), std::string::npos);
  EXPECT_EQ(writeGraphJson(parseGraphJson(text)), text);
}

class CoarseningJsonErrors : public ::testing::Test {
 protected:
  // in -> /a/x, /a/y, /b/z -> out, grouped as {in}, {/a/x, /a/y}, {/b/z}, {out}.
  void SetUp() override {
    DataflowGraph g = fanGraph();
    j = json::parse(writeGraphJson(groupGraph(g, {0, 1, 1, 2, 2, 3, 4})));
  }
  void expectError(const std::string& where, const std::string& fragment) const {
    try {
      parseGraphJson(j.dump(), "g.json");
      FAIL() << "expected an error at " << where;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "g.json");
      EXPECT_EQ(e.where(), where) << e.what();
      EXPECT_NE(e.problem().find(fragment), std::string::npos) << e.what();
    }
  }
  json j;
};

TEST_F(CoarseningJsonErrors, UnknownMember) {
  j["nodes"][1]["members"][1] = "/a/p/nope";
  expectError("nodes[1].members[1]", "unknown fine node '/a/p/nope'");
}

TEST_F(CoarseningJsonErrors, MemberTwice) {
  j["nodes"][2]["members"].push_back("/a/p/m1");
  expectError("nodes[2].members[2]", "already a member of nodes[1] '/a/p'");
}

TEST_F(CoarseningJsonErrors, MissingMember) {
  j["nodes"][4]["members"] = json::array();
  expectError("nodes[4].members", "is empty");
  j["nodes"][3]["members"] = json::array({"/b/m1"});
  j["nodes"][4]["members"] = json::array({"/b/m1"});
  expectError("nodes[4].members[0]", "already a member");
  j["nodes"][4]["members"] = json::array({"in"});
  j["nodes"][0]["members"] = json::array({"out"});
  j["nodes"][3]["members"] = json::array();
  expectError("nodes[3].members", "is empty");
  j["nodes"][3].erase("members");
  expectError("nodes[3].members", "missing");
}

TEST_F(CoarseningJsonErrors, AFineNodeInNoGroup) {
  j["nodes"][1]["members"] = json::array({"/a/p/m1"});
  expectError("fine.nodes[2]", "fine node '/a/p/m2' is a member of no group");
}

TEST_F(CoarseningJsonErrors, CyclicPartition) {
  // {in, out} and the rest: in -> /a/p/m1 -> out.
  j["nodes"][0]["members"] = json::array({"in", "out"});
  j["nodes"].erase(4);
  j["edges"] = json::array();
  expectError("nodes[0].members", "the groups make a cycle");
}

TEST_F(CoarseningJsonErrors, MembersWithoutAFineGraph) {
  j.erase("fine");
  expectError("fine", "missing");
}

TEST_F(CoarseningJsonErrors, ErrorsInTheFineGraphNameTheirPath) {
  j["fine"]["edges"][0]["src"] = "ghost";
  expectError("fine.edges[0].src", "unknown node 'ghost'");
}

TEST_F(CoarseningJsonErrors, AWrittenCostThatDisagreesWithTheMembers) {
  j["nodes"][1]["flops"] = 99;
  expectError("nodes[1].flops", "its members sum to 2");
  j["nodes"][1]["flops"] = 2;
  j["edges"][0]["bytes"] = 5;
  expectError("edges[0].bytes", "the fine edges make 1");
}

class CoarsenCli : public doppler::testing::CliFixture {};

TEST_F(CoarsenCli, CoarsensAFileAndRefusesABadLimit) {
  if (!std::filesystem::exists(DOPPLER_CLI)) GTEST_SKIP() << "build the doppler target first";
  const std::string in = write("g.json", writeGraphJson(randomDag(5, 80)));
  const std::string out = path("c.json");
  auto r = run("graph coarsen --graph " + in + " --max-nodes 10 --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("-> 10 groups"), std::string::npos) << r.err;
  const DataflowGraph c = readGraphFile(out);
  EXPECT_EQ(c.nodeCount(), 10);
  r = run("graph coarsen --graph " + in + " --max-nodes 10 --json --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["coarse_nodes"], 10);
  r = run("graph info --graph " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("10 groups stand for"), std::string::npos) << r.out;
  expectBadInput("graph coarsen --graph " + in + " --max-nodes 0", {"--max-nodes", "at least 1"});
}

}  // namespace
}  // namespace doppler

#include "core/graph/generators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "core/common/input_error.h"

namespace doppler {
namespace {

const Node& nodeById(const DataflowGraph& g, const std::string& id) {
  auto v = g.find(id);
  if (!v) throw std::runtime_error("no node " + id);
  return g.node(*v);
}

double totalFlops(const DataflowGraph& g) {
  double s = 0;
  for (const auto& n : g.nodes()) s += n.flops;
  return s;
}

int countOp(const DataflowGraph& g, const std::string& op) {
  int c = 0;
  for (const auto& n : g.nodes()) c += n.op == op;
  return c;
}

// Closed-form sizes (derived in generators.cpp).
int chainmmNodes(int p) {
  return 3 * p * p + 2 * p * p * p + (p > 1 ? 2 * p * p : 0);
}
int chainmmEdges(int p) {
  return 4 * p * p * p + (p > 1 ? 2 * p * p * p : 0);
}
int ffnnNodes(int L, int S) {
  return S + 2 * L * S * S + (S > 1 ? L * S : 0) + L * S + (L - 1) * S + (S > 1 ? 1 : 0);
}
int ffnnEdges(int L, int S) {
  return 2 * L * S * S + (S > 1 ? L * S * S : 0) + L * S + (L - 1) * S + (S > 1 ? S : 0);
}
int blockNodes(int G, int T) {
  return 4 * G + T * (3 + (G > 1)) + 9 * T * G;
}
int blockEdges(int G, int T) {
  return T * (3 + 15 * G + (G > 1 ? G : 0));
}
int layerNodes(int G, int T) {
  return blockNodes(G, T) + 3 * G + T * (2 + (G > 1)) + 4 * T * G;
}
int layerEdges(int G, int T) {
  return blockEdges(G, T) + T * (3 + 8 * G + (G > 1 ? G : 0));
}

// Structural invariants every generated graph must satisfy.
void checkWellFormed(const DataflowGraph& g) {
  EXPECT_TRUE(g.isAcyclic());
  for (const auto& n : g.nodes()) {
    EXPECT_GE(n.flops, 0) << n.id;
    EXPECT_GT(n.output_bytes, 0) << n.id;
    EXPECT_FALSE(n.op.empty()) << n.id;
    if (n.op == "input") {
      EXPECT_EQ(n.flops, 0) << n.id;
    }
    EXPECT_TRUE(n.compute_us.empty()) << n.id;
  }
  for (const auto& e : g.edges()) {
    EXPECT_EQ(e.bytes, g.node(e.src).output_bytes);
    EXPECT_FALSE(e.transfer_us.has_value());
    // Nodes are emitted in topological order.
    EXPECT_LT(e.src, e.dst);
  }
  // Input nodes have no inputs, every other node has at least one.
  for (int v = 0; v < g.nodeCount(); ++v) {
    if (g.node(v).op == "input") {
      EXPECT_TRUE(g.inEdges(v).empty()) << g.node(v).id;
    } else {
      EXPECT_FALSE(g.inEdges(v).empty()) << g.node(v).id;
    }
  }
}

bool sameGraph(const DataflowGraph& a, const DataflowGraph& b) {
  if (a.name != b.name || a.nodeCount() != b.nodeCount() || a.edgeCount() != b.edgeCount())
    return false;
  for (int v = 0; v < a.nodeCount(); ++v) {
    const Node &x = a.node(v), &y = b.node(v);
    if (x.id != y.id || x.op != y.op || x.flops != y.flops || x.output_bytes != y.output_bytes)
      return false;
  }
  for (int e = 0; e < a.edgeCount(); ++e) {
    const Edge &x = a.edge(e), &y = b.edge(e);
    if (x.src != y.src || x.dst != y.dst || x.bytes != y.bytes) return false;
  }
  return true;
}

std::string errorOf(const std::string& kind, const std::map<std::string, double>& params) {
  try {
    generateGraph(kind, params);
  } catch (const InputError& e) {
    return std::string(e.where()) + " | " + e.what();
  }
  return "";
}

TEST(Generators, KindsAndParametersAreDescribed) {
  const auto& kinds = generatorKinds();
  ASSERT_EQ(kinds.size(), 4u);
  std::set<std::string> names;
  for (const auto& k : kinds) {
    names.insert(k.kind);
    EXPECT_FALSE(k.description.empty());
    EXPECT_FALSE(k.params.empty());
    for (const auto& p : k.params) {
      EXPECT_FALSE(p.name.empty());
      EXPECT_FALSE(p.description.empty()) << k.kind << " " << p.name;
      EXPECT_LE(p.min, p.value) << k.kind << " " << p.name;
      EXPECT_LE(p.value, p.max) << k.kind << " " << p.name;
      if (p.integer) {
        EXPECT_EQ(p.value, std::floor(p.value)) << k.kind << " " << p.name;
      }
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"chainmm", "ffnn", "llama-block", "llama-layer"}));
}

TEST(Generators, DefaultsAreSizedLikeThePaperGraphs) {
  for (const auto& k : generatorKinds()) {
    DataflowGraph g = generateGraph(k.kind);
    EXPECT_EQ(g.name, k.kind);
    EXPECT_GE(g.nodeCount(), 80) << k.kind;
    EXPECT_LE(g.nodeCount(), 230) << k.kind;
    checkWellFormed(g);
  }
  DataflowGraph c = generateGraph("chainmm");
  EXPECT_EQ(c.nodeCount(), chainmmNodes(3));
  EXPECT_EQ(c.nodeCount(), 99);
  EXPECT_EQ(c.edgeCount(), chainmmEdges(3));
  EXPECT_EQ(c.edgeCount(), 162);
  DataflowGraph f = generateGraph("ffnn");
  EXPECT_EQ(f.nodeCount(), ffnnNodes(4, 4));
  EXPECT_EQ(f.nodeCount(), 177);
  EXPECT_EQ(f.edgeCount(), ffnnEdges(4, 4));
  EXPECT_EQ(f.edgeCount(), 224);
  DataflowGraph b = generateGraph("llama-block");
  EXPECT_EQ(b.nodeCount(), blockNodes(4, 3));
  EXPECT_EQ(b.nodeCount(), 136);
  EXPECT_EQ(b.edgeCount(), blockEdges(4, 3));
  EXPECT_EQ(b.edgeCount(), 201);
  DataflowGraph l = generateGraph("llama-layer");
  EXPECT_EQ(l.nodeCount(), layerNodes(4, 3));
  EXPECT_EQ(l.nodeCount(), 205);
  EXPECT_EQ(l.edgeCount(), layerEdges(4, 3));
  EXPECT_EQ(l.edgeCount(), 318);
}

TEST(Generators, CountsFollowTheFormulasAcrossParameters) {
  for (int p : {1, 2, 3, 4, 5}) {
    DataflowGraph g = generateGraph("chainmm", {{"blocks", p}, {"n", 100}});
    EXPECT_EQ(g.nodeCount(), chainmmNodes(p)) << p;
    EXPECT_EQ(g.edgeCount(), chainmmEdges(p)) << p;
    EXPECT_EQ(countOp(g, "matmul"), 2 * p * p * p);
    checkWellFormed(g);
  }
  for (int L : {1, 2, 5})
    for (int S : {1, 2, 3}) {
      DataflowGraph g = generateGraph("ffnn", {{"layers", L}, {"shards", S}});
      EXPECT_EQ(g.nodeCount(), ffnnNodes(L, S)) << L << " " << S;
      EXPECT_EQ(g.edgeCount(), ffnnEdges(L, S)) << L << " " << S;
      EXPECT_EQ(countOp(g, "relu"), (L - 1) * S);
      checkWellFormed(g);
    }
  for (int G : {1, 2, 8})
    for (int T : {1, 3}) {
      DataflowGraph b =
          generateGraph("llama-block", {{"head_shards", G}, {"batch_shards", T}, {"batch", 3}});
      EXPECT_EQ(b.nodeCount(), blockNodes(G, T)) << G << " " << T;
      EXPECT_EQ(b.edgeCount(), blockEdges(G, T)) << G << " " << T;
      checkWellFormed(b);
      DataflowGraph l =
          generateGraph("llama-layer", {{"head_shards", G}, {"batch_shards", T}, {"batch", 3}});
      EXPECT_EQ(l.nodeCount(), layerNodes(G, T)) << G << " " << T;
      EXPECT_EQ(l.edgeCount(), layerEdges(G, T)) << G << " " << T;
      checkWellFormed(l);
    }
}

TEST(Generators, ChainmmFlopsAreExact) {
  // Defaults: n = 12288, 3 blocks of 4096, fp32.
  DataflowGraph g = generateGraph("chainmm");
  const double b = 4096, n = 12288, p = 3;
  const Node& mm = nodeById(g, "xy_0_1_2");
  EXPECT_EQ(mm.op, "matmul");
  EXPECT_EQ(mm.flops, 2 * b * b * b);
  EXPECT_EQ(mm.output_bytes, b * b * 4);
  const Node& add = nodeById(g, "xyz_2_0");
  EXPECT_EQ(add.op, "add");
  EXPECT_EQ(add.flops, (p - 1) * b * b);
  const Node& in = nodeById(g, "z_1_2");
  EXPECT_EQ(in.op, "input");
  EXPECT_EQ(in.flops, 0);
  EXPECT_EQ(in.output_bytes, b * b * 4);
  EXPECT_EQ(totalFlops(g), 4 * n * n * n + 2 * (p - 1) * n * n);

  // Uneven tiles (n = 10, 3 blocks: 4, 3, 3) keep the closed form.
  DataflowGraph u = generateGraph("chainmm", {{"n", 10}, {"blocks", 3}, {"dtype_bytes", 2}});
  EXPECT_EQ(totalFlops(u), 4 * 1000.0 + 2 * 2 * 100.0);
  EXPECT_EQ(nodeById(u, "xy_0_2_1").flops, 2.0 * 4 * 3 * 3);  // rows 4, inner 3, cols 3
  EXPECT_EQ(nodeById(u, "x_0_0").output_bytes, 4 * 4 * 2);
  // xy_i_j sums the three partial products xy_i_j_k and feeds the second product.
  auto s = *u.find("xy_1_2");
  EXPECT_EQ(u.inEdges(s).size(), 3u);
  for (int e : u.inEdges(s)) EXPECT_EQ(u.node(u.edge(e).src).op, "matmul");
}

TEST(Generators, FfnnFlopsAreExact) {
  DataflowGraph g = generateGraph(
      "ffnn",
      {{"layers", 3}, {"shards", 2}, {"batch", 64}, {"d_in", 100}, {"hidden", 30}, {"d_out", 7}});
  // Layer 0: 100 -> 30, tiles 50 x 15; layer 2: 30 -> 7, output shards 4 and 3.
  EXPECT_EQ(nodeById(g, "mm_l0_r1_c0").flops, 2.0 * 64 * 50 * 15);
  EXPECT_EQ(nodeById(g, "mm_l2_r0_c1").flops, 2.0 * 64 * 15 * 3);
  EXPECT_EQ(nodeById(g, "sum_l2_c0").flops, 1.0 * 64 * 4);
  EXPECT_EQ(nodeById(g, "relu_l1_c1").op, "relu");
  EXPECT_FALSE(g.find("relu_l2_c0"));
  EXPECT_EQ(nodeById(g, "y").op, "concat");
  EXPECT_EQ(nodeById(g, "y").output_bytes, 64.0 * 7 * 4);
  const double matmuls = 2.0 * 64 * (100 * 30 + 30 * 30 + 30 * 7);
  const double reduces = 64.0 * (30 + 30 + 7);  // (S-1) * B * out per layer
  const double bias = 64.0 * (30 + 30 + 7);     // B * out per layer
  const double relu = 64.0 * (30 + 30);         // no relu on the last layer
  EXPECT_EQ(totalFlops(g), matmuls + reduces + bias + relu);
}

TEST(Generators, LlamaFlopsAreExact) {
  DataflowGraph g = generateGraph("llama-layer");
  // Defaults: s = 2048, D = 4096, 32 heads of 128 in 4 groups of 8, batch 3 in 3 shards, F = 11008.
  const double s = 2048, D = 4096, dh = 128, hg = 8, e = hg * dh, n = s, F = 11008, fg = F / 4;
  const Node& q = nodeById(g, "q_proj_b1_s2");
  EXPECT_EQ(q.op, "matmul");
  EXPECT_EQ(q.flops, 2 * n * D * e);
  EXPECT_EQ(q.output_bytes, n * e * 4);
  EXPECT_EQ(nodeById(g, "scores_b0_s0").flops, hg * 2 * s * s * dh);  // 2 s^2 d_head per head
  EXPECT_EQ(nodeById(g, "attn_v_b2_s3").flops, hg * 2 * s * s * dh);
  EXPECT_EQ(nodeById(g, "softmax_b0_s1").flops, 5 * hg * s * s);
  EXPECT_EQ(nodeById(g, "rope_k_b0_s1").op, "rope");
  EXPECT_EQ(nodeById(g, "o_proj_b0_s1").flops, 2 * n * e * D);
  EXPECT_EQ(nodeById(g, "o_sum_b0").flops, 3 * n * D);
  EXPECT_EQ(nodeById(g, "gate_proj_b0_s0").flops, 2 * n * D * fg);
  EXPECT_EQ(nodeById(g, "down_proj_b2_s3").flops, 2 * n * fg * D);
  EXPECT_EQ(nodeById(g, "silu_mul_b1_s0").op, "silu_mul");
  EXPECT_EQ(nodeById(g, "rmsnorm2_b1").op, "rmsnorm");

  // Total: per token 2*(4D^2 + 3DF) for the projections, per sequence 4*s^2*D for attention.
  const double tokens = 3 * s;
  const double expected = tokens * 2 * (4 * D * D + 3 * D * F)  // projections
                          + 3 * 4 * s * s * D                   // QK^T and PV
                          + 3 * 5 * 32 * s * s                  // softmax
                          + tokens * 2 * 3 * D                  // rope on Q and K
                          + tokens * 2 * 4 * D                  // two rmsnorms
                          + tokens * 2 * 3 * D                  // two reduces over 4 groups
                          + tokens * 2 * D                      // two residual adds
                          + tokens * 5 * F;                     // silu_mul
  EXPECT_DOUBLE_EQ(totalFlops(g), expected);

  // Attention in a shard reads the rotated Q and K, and V straight from its projection.
  auto sc = *g.find("scores_b0_s0");
  std::set<std::string> in;
  for (int ei : g.inEdges(sc)) in.insert(g.node(g.edge(ei).src).id);
  EXPECT_EQ(in, (std::set<std::string>{"rope_q_b0_s0", "rope_k_b0_s0"}));
  auto av = *g.find("attn_v_b0_s0");
  in.clear();
  for (int ei : g.inEdges(av)) in.insert(g.node(g.edge(ei).src).id);
  EXPECT_EQ(in, (std::set<std::string>{"softmax_b0_s0", "v_proj_b0_s0"}));
}

TEST(Generators, Deterministic) {
  for (const auto& k : generatorKinds())
    EXPECT_TRUE(sameGraph(generateGraph(k.kind), generateGraph(k.kind))) << k.kind;
  EXPECT_TRUE(sameGraph(generateGraph("chainmm", {{"blocks", 4}, {"n", 999}}),
                        generateGraph("chainmm", {{"n", 999}, {"blocks", 4}})));
}

TEST(Generators, UnknownKindThrows) {
  try {
    generateGraph("resnet");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "kind");
    EXPECT_NE(std::string(e.what()).find("resnet"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("llama-layer"), std::string::npos);
  }
}

TEST(Generators, BadParametersThrowNamingTheParameter) {
  struct Case {
    std::string kind;
    std::map<std::string, double> params;
    std::string name;
  };
  const std::vector<Case> cases = {
      {"chainmm", {{"bogus", 1}}, "bogus"},
      {"chainmm", {{"blocks", 0}}, "blocks"},
      {"chainmm", {{"blocks", 33}}, "blocks"},
      {"chainmm", {{"blocks", 2.5}}, "blocks"},
      {"chainmm", {{"n", NAN}}, "n"},
      {"chainmm", {{"n", INFINITY}}, "n"},
      {"chainmm", {{"n", 2}, {"blocks", 3}}, "n"},
      {"ffnn", {{"dtype_bytes", 0}}, "dtype_bytes"},
      {"ffnn", {{"shards", 8}, {"d_out", 4}}, "d_out"},
      {"ffnn", {{"ffn_hidden", 100}}, "ffn_hidden"},               // only llama-layer has it
      {"llama-block", {{"heads", 7}}, "d_model"},                  // 4096 % 7 != 0
      {"llama-block", {{"d_model", 96}, {"heads", 32}}, "heads"},  // head dim 3 is odd
      {"llama-block", {{"head_shards", 64}, {"heads", 16}}, "head_shards"},
      {"llama-block", {{"batch_shards", 4}}, "batch_shards"},  // batch 3
      {"llama-layer", {{"ffn_hidden", -1}}, "ffn_hidden"},
      {"llama-layer", {{"seq", 1e9}}, "seq"},
  };
  for (const auto& c : cases) {
    std::string err = errorOf(c.kind, c.params);
    ASSERT_FALSE(err.empty()) << c.kind << " " << c.name;
    EXPECT_EQ(err.rfind("--param " + c.name + " |", 0), 0u) << err;
    EXPECT_NE(err.find("'" + c.name + "'"), std::string::npos) << err;
  }
  EXPECT_NE(errorOf("chainmm", {{"bogus", 1}}).find("blocks, n, dtype_bytes"), std::string::npos);
  // Boundary values are accepted.
  EXPECT_NO_THROW(generateGraph("chainmm", {{"blocks", 1}, {"n", 1}}));
  EXPECT_NO_THROW(generateGraph("chainmm", {{"blocks", 32}, {"n", 32}, {"dtype_bytes", 8}}));
}

}  // namespace
}  // namespace doppler

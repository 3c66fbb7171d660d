// Parameterised generators for the Doppler paper's four workloads (CHAINMM, FFNN, LLAMA-BLOCK,
// LLAMA-LAYER), with exact FLOP and byte formulas.
//
// Conventions shared by every generator:
// - A matrix product of an (m x k) by a (k x n) operand costs exactly 2*m*k*n FLOPs (one multiply
//   and one add per term). Element-wise ops cost a fixed number of FLOPs per output element, given
//   at each node kind below. Pure data movement (inputs, concatenation) costs 0 FLOPs.
// - output_bytes = (elements of the node's output) * dtype_bytes; every node has output_bytes > 0.
// - Every edge carries the producer's whole output: edge.bytes = producer.output_bytes.
// - Weight matrices and input activations are "input" nodes (0 FLOPs) so that where they live is
//   part of the placement; small parameter vectors (biases, RMSNorm gains) and RoPE cos/sin
//   tables are folded into the op that uses them and are not nodes.
// - A dimension of size D cut into P shards gives shard k the size D/P rounded down, plus one for
//   the first D mod P shards, so the shard sizes always sum to D and the FLOP totals below hold
//   for uneven splits too.
// - Nodes are added in a topological order (every edge points from an earlier node to a later
//   one), so each graph is acyclic by construction and identical on every call.
#include "core/graph/generators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "core/common/input_error.h"

namespace doppler {
namespace {

using i64 = std::int64_t;

// Size of shard k when a dimension of size total is cut into parts shards.
i64 part(i64 total, i64 parts, i64 k) {
  return total / parts + (k < total % parts ? 1 : 0);
}

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(15);
  s << x;
  return s.str();
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

GeneratorParam dtypeParam() {
  return {"dtype_bytes", 4, 1, 8, true, "bytes per tensor element (4 = fp32, 2 = fp16/bf16)"};
}

std::vector<GeneratorInfo> makeKinds() {
  std::vector<GeneratorInfo> kinds;

  kinds.push_back(
      {"chainmm",
       "Chain of blocked matrix products W = (X*Y)*Z with n x n matrices cut into blocks x blocks "
       "tiles: an input node per tile, one matmul per tile triple (i,k,j) and one add per output "
       "tile summing its partial products, for X*Y and then for (X*Y)*Z. Defaults: 99 nodes "
       "(72 ops, 27 tile inputs), 162 edges.",
       {{"blocks", 3, 1, 32, true,
         "tiles per matrix dimension (each matrix is blocks x blocks tiles)"},
        {"n", 12288, 1, 1048576, true,
         "matrix dimension (X, Y, Z are n x n; must be >= blocks; uneven tiles allowed)"},
        dtypeParam()}});

  kinds.push_back(
      {"ffnn",
       "Sharded multi-layer perceptron y = L_layers(...relu(L_1(x))), L(h) = h*W + b. The feature "
       "dimension is cut into shards: weight W is shards x shards tiles, each layer has a matmul "
       "per tile, a cross-shard reduce (add) per output shard, a bias add and a relu (none on "
       "the last layer), and the output shards are all-gathered by one concat node. Defaults: "
       "177 nodes (109 ops, 68 inputs), 224 edges.",
       {{"layers", 4, 1, 64, true, "number of linear layers"},
        {"shards", 4, 1, 32, true,
         "shards of every feature dimension (weights are shards^2 tiles)"},
        {"batch", 4096, 1, 16777216, true, "rows of the activation matrix (batch size)"},
        {"d_in", 8192, 1, 1048576, true, "input features (must be >= shards)"},
        {"hidden", 8192, 1, 1048576, true, "hidden layer width (must be >= shards)"},
        {"d_out", 1024, 1, 1048576, true, "output features (must be >= shards)"},
        dtypeParam()}});

  std::vector<GeneratorParam> llama = {
      {"seq", 2048, 1, 131072, true, "sequence length s (tokens per sequence)"},
      {"d_model", 4096, 1, 65536, true, "model width D (a multiple of heads)"},
      {"heads", 32, 1, 1024, true, "attention heads H (head dim D/H must be even for RoPE)"},
      {"head_shards", 4, 1, 64, true,
       "tensor-parallel shards: heads are split into this many groups (also the MLP shards)"},
      {"batch", 3, 1, 4096, true, "sequences per batch"},
      {"batch_shards", 3, 1, 64, true,
       "data-parallel shards: the batch is split into this many groups of whole sequences"},
      dtypeParam()};
  kinds.push_back(
      {"llama-block",
       "LLaMA attention block h = x + Attn(RMSNorm(x)) for each batch shard: RMSNorm, Q/K/V "
       "projections sharded by head group, RoPE on Q and K, per head group QK^T, softmax and "
       "softmax*V, a sharded output projection, a reduce (add) over head groups and the residual "
       "add. Weights are shared by all batch shards. Defaults (LLaMA-7B widths): 136 nodes (117 "
       "ops, "
       "19 inputs), 201 edges.",
       llama});
  llama.push_back(
      {"ffn_hidden", 11008, 1, 1048576, true, "SwiGLU hidden size F (must be >= head_shards)"});
  kinds.push_back(
      {"llama-layer",
       "LLaMA decoder layer: the llama-block followed by a SwiGLU MLP out = h + "
       "W_down(silu(W_gate*RMSNorm(h)) * (W_up*RMSNorm(h))), with gate/up sharded by columns and "
       "down by rows into head_shards shards, a reduce (add) and the residual add. Defaults "
       "(LLaMA-7B widths): 205 nodes (174 ops, 31 inputs), 318 edges.",
       llama});
  return kinds;
}

// Parameter values after defaults, overrides and range checks.
class Params {
 public:
  Params(const GeneratorInfo& info, const std::map<std::string, double>& overrides) : info_(info) {
    for (const auto& p : info.params) values_[p.name] = p.value;
    for (const auto& entry : overrides) {
      // (No structured binding: clang 14 cannot capture one in the lambda below.)
      const std::string& name = entry.first;
      const double value = entry.second;
      auto it = std::find_if(info.params.begin(), info.params.end(),
                             [&](const GeneratorParam& p) { return p.name == name; });
      if (it == info.params.end()) {
        std::vector<std::string> known;
        for (const auto& p : info.params) known.push_back(p.name);
        throw InputError("", "--param " + name,
                         "unknown parameter '" + name + "' for generator " + info.kind +
                             " (known: " + joinNames(known) + ")");
      }
      if (!std::isfinite(value) || value < it->min || value > it->max)
        throw InputError("", "--param " + name,
                         "parameter '" + name + "' of " + info.kind + " must be in [" +
                             fmt(it->min) + ", " + fmt(it->max) + "], got " + fmt(value));
      if (it->integer && value != std::floor(value))
        throw InputError(
            "", "--param " + name,
            "parameter '" + name + "' of " + info.kind + " must be an integer, got " + fmt(value));
      values_[name] = value;
    }
  }

  i64 i(const std::string& name) const { return static_cast<i64>(values_.at(name)); }

  // A constraint between parameters; the error is attributed to parameter `name`.
  void require(bool ok, const std::string& name, const std::string& what) const {
    if (!ok)
      throw InputError("", "--param " + name,
                       "parameter '" + name + "' of " + info_.kind + ": " + what);
  }

 private:
  const GeneratorInfo& info_;
  std::map<std::string, double> values_;
};

// Adds nodes whose output size is given in elements, and edges that carry the producer's output.
class Builder {
 public:
  Builder(std::string name, double dtypeBytes) : dtype_(dtypeBytes) { g_.name = std::move(name); }

  int node(std::string id, std::string op, double flops, double elements) {
    Node n;
    n.id = std::move(id);
    n.op = std::move(op);
    n.flops = flops;
    n.output_bytes = elements * dtype_;
    return g_.addNode(std::move(n));
  }
  void edge(int src, int dst) {
    Edge e;
    e.src = src;
    e.dst = dst;
    e.bytes = g_.node(src).output_bytes;
    g_.addEdge(e);
  }
  DataflowGraph take() { return std::move(g_); }

 private:
  DataflowGraph g_;
  double dtype_;
};

std::string idx(const std::string& prefix, std::initializer_list<i64> parts) {
  std::string s = prefix;
  for (i64 p : parts) {
    s += '_';
    s += std::to_string(p);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// CHAINMM: W = (X*Y)*Z, X, Y, Z n x n, p = blocks tiles per dimension, r_k = size of tile row k.
//   x_i_j, y_i_j, z_i_j   op "input"   0 FLOPs               output r_i*r_j elements
//   xy_i_j_k              op "matmul"  2*r_i*r_k*r_j FLOPs   = x_i_k * y_k_j,  r_i*r_j elements
//   xy_i_j                op "add"     (p-1)*r_i*r_j FLOPs   = sum_k xy_i_j_k, r_i*r_j elements
//   xyz_i_j_k             op "matmul"  2*r_i*r_k*r_j FLOPs   = xy_i_k * z_k_j, r_i*r_j elements
//   xyz_i_j               op "add"     (p-1)*r_i*r_j FLOPs   = sum_k xyz_i_j_k
// With p = 1 there are no add nodes (the single partial product is the result).
// Nodes: 3p^2 + 2p^3 + 2p^2*[p>1]; edges: 4p^3 + 2p^3*[p>1];
// total FLOPs: 4n^3 + 2(p-1)n^2 (each product is 2n^3, each reduction (p-1)n^2).
DataflowGraph chainmm(const Params& P) {
  const i64 p = P.i("blocks"), n = P.i("n");
  P.require(n >= p, "n",
            "n (" + std::to_string(n) + ") must be at least blocks (" + std::to_string(p) + ")");
  Builder b("chainmm", static_cast<double>(P.i("dtype_bytes")));
  auto r = [&](i64 k) { return static_cast<double>(part(n, p, k)); };

  auto tiles = [&](const std::string& name) {
    std::vector<std::vector<int>> t(p, std::vector<int>(p));
    for (i64 i = 0; i < p; ++i)
      for (i64 j = 0; j < p; ++j) t[i][j] = b.node(idx(name, {i, j}), "input", 0, r(i) * r(j));
    return t;
  };
  auto product = [&](const std::string& name, const std::vector<std::vector<int>>& A,
                     const std::vector<std::vector<int>>& B) {
    std::vector<std::vector<int>> out(p, std::vector<int>(p));
    for (i64 i = 0; i < p; ++i)
      for (i64 j = 0; j < p; ++j) {
        std::vector<int> partials;
        for (i64 k = 0; k < p; ++k) {
          int m = b.node(idx(name, {i, j, k}), "matmul", 2 * r(i) * r(k) * r(j), r(i) * r(j));
          b.edge(A[i][k], m);
          b.edge(B[k][j], m);
          partials.push_back(m);
        }
        if (p == 1) {
          out[i][j] = partials[0];
          continue;
        }
        int s =
            b.node(idx(name, {i, j}), "add", static_cast<double>(p - 1) * r(i) * r(j), r(i) * r(j));
        for (int m : partials) b.edge(m, s);
        out[i][j] = s;
      }
    return out;
  };

  auto X = tiles("x");
  auto Y = tiles("y");
  auto Z = tiles("z");
  auto XY = product("xy", X, Y);
  product("xyz", XY, Z);
  return b.take();
}

// ---------------------------------------------------------------------------------------------
// FFNN: L = layers, S = shards, B = batch; layer l maps in_l features to out_l features
// (d_in -> hidden -> ... -> hidden -> d_out; one layer maps d_in -> d_out). in_r / out_c are the
// shard sizes of those dimensions.
//   x_s{r}                 op "input"     0 FLOPs                 B*in_r elements (input shard r)
//   w_l{l}_r{r}_c{c}       op "input"     0 FLOPs                 in_r*out_c elements (weight tile)
//   mm_l{l}_r{r}_c{c}      op "matmul"    2*B*in_r*out_c FLOPs    B*out_c elements
//   sum_l{l}_c{c}          op "add"       (S-1)*B*out_c FLOPs     B*out_c (cross-shard reduce over
//                                                                 r; only when S > 1)
//   bias_l{l}_c{c}         op "bias_add"  B*out_c FLOPs           B*out_c
//   relu_l{l}_c{c}         op "relu"      B*out_c FLOPs           B*out_c (not on the last layer)
//   y                      op "concat"    0 FLOPs                 B*d_out (all-gather; only S > 1)
// Nodes: S + 2LS^2 + LS*[S>1] + LS + (L-1)S + [S>1];
// edges: 2LS^2 + LS^2*[S>1] + LS + (L-1)S + S*[S>1].
DataflowGraph ffnn(const Params& P) {
  const i64 L = P.i("layers"), S = P.i("shards"), B = P.i("batch");
  const i64 dIn = P.i("d_in"), hidden = P.i("hidden"), dOut = P.i("d_out");
  for (const char* name : {"d_in", "hidden", "d_out"})
    P.require(P.i(name) >= S, name,
              std::string(name) + " (" + std::to_string(P.i(name)) + ") must be at least shards (" +
                  std::to_string(S) + ")");
  Builder b("ffnn", static_cast<double>(P.i("dtype_bytes")));
  const double Bd = static_cast<double>(B);

  std::vector<int> act(S);
  for (i64 r = 0; r < S; ++r)
    act[r] = b.node("x_s" + std::to_string(r), "input", 0, Bd * part(dIn, S, r));

  for (i64 l = 0; l < L; ++l) {
    const i64 in = l == 0 ? dIn : hidden;
    const i64 out = l == L - 1 ? dOut : hidden;
    const std::string ls = "_l" + std::to_string(l);
    std::vector<std::vector<int>> w(S, std::vector<int>(S));
    for (i64 r = 0; r < S; ++r)
      for (i64 c = 0; c < S; ++c)
        w[r][c] = b.node("w" + ls + "_r" + std::to_string(r) + "_c" + std::to_string(c), "input", 0,
                         static_cast<double>(part(in, S, r)) * part(out, S, c));
    std::vector<int> next(S);
    for (i64 c = 0; c < S; ++c) {
      const std::string cs = "_c" + std::to_string(c);
      const double outC = static_cast<double>(part(out, S, c));
      std::vector<int> partials;
      for (i64 r = 0; r < S; ++r) {
        int m = b.node("mm" + ls + "_r" + std::to_string(r) + cs, "matmul",
                       2 * Bd * part(in, S, r) * outC, Bd * outC);
        b.edge(act[r], m);
        b.edge(w[r][c], m);
        partials.push_back(m);
      }
      int sum = partials[0];
      if (S > 1) {
        sum = b.node("sum" + ls + cs, "add", static_cast<double>(S - 1) * Bd * outC, Bd * outC);
        for (int m : partials) b.edge(m, sum);
      }
      int bias = b.node("bias" + ls + cs, "bias_add", Bd * outC, Bd * outC);
      b.edge(sum, bias);
      next[c] = bias;
      if (l != L - 1) {
        int relu = b.node("relu" + ls + cs, "relu", Bd * outC, Bd * outC);
        b.edge(bias, relu);
        next[c] = relu;
      }
    }
    act = next;
  }
  if (S > 1) {
    int y = b.node("y", "concat", 0, Bd * dOut);
    for (int a : act) b.edge(a, y);
  }
  return b.take();
}

// ---------------------------------------------------------------------------------------------
// LLaMA. D = d_model, H = heads, dh = D/H, s = seq, G = head_shards, T = batch_shards.
// Batch shard t holds b_t sequences (n_t = b_t*s tokens); head group g holds h_g heads, so its
// slice of the model width is e_g = h_g*dh. For each batch shard t and head group g:
//   x_b{t}             "input"    0                          n_t*D    (block input)
//   wq_s{g}, wk_s{g}, wv_s{g}  "input" 0                     D*e_g    (column shard)
//   wo_s{g}            "input"    0                          e_g*D    (row shard)
//   rmsnorm_b{t}       "rmsnorm"  4*n_t*D                    n_t*D    (square, accumulate,
//                                                            scale by 1/rms, multiply by gain)
//   q_proj_b{t}_s{g}   "matmul"   2*n_t*D*e_g                n_t*e_g  (same for k_proj, v_proj)
//   rope_q_b{t}_s{g}   "rope"     3*n_t*e_g                  n_t*e_g  (x*cos + rot(x)*sin;
//                                                            same for rope_k)
//   scores_b{t}_s{g}   "matmul"   2*b_t*h_g*s*s*dh           b_t*h_g*s*s  (Q K^T, i.e.
//                                                            2*s*s*dh per head and sequence)
//   softmax_b{t}_s{g}  "softmax"  5*b_t*h_g*s*s              b_t*h_g*s*s  (scale by 1/sqrt(dh),
//                                                            row max, exp(x-max), row sum, divide;
//                                                            the causal mask is free)
//   attn_v_b{t}_s{g}   "matmul"   2*b_t*h_g*s*s*dh           n_t*e_g  (P V)
//   o_proj_b{t}_s{g}   "matmul"   2*n_t*e_g*D                n_t*D    (partial output)
//   o_sum_b{t}         "add"      (G-1)*n_t*D                n_t*D    (reduce over g; G > 1)
//   residual_b{t}      "add"      n_t*D                      n_t*D    (x + attention)
// llama-layer adds, with the MLP width F cut into G shards f_g:
//   w_gate_s{g}, w_up_s{g}  "input"  0                       D*f_g
//   w_down_s{g}        "input"    0                          f_g*D
//   rmsnorm2_b{t}      "rmsnorm"  4*n_t*D                    n_t*D
//   gate_proj_b{t}_s{g}, up_proj_b{t}_s{g}  "matmul"  2*n_t*D*f_g   n_t*f_g
//   silu_mul_b{t}_s{g} "silu_mul" 5*n_t*f_g                  n_t*f_g  (exp(-x), +1, divide,
//                                                            times x, times up)
//   down_proj_b{t}_s{g} "matmul"  2*n_t*f_g*D                n_t*D    (partial output)
//   mlp_sum_b{t}       "add"      (G-1)*n_t*D                n_t*D    (reduce over g; G > 1)
//   residual2_b{t}     "add"      n_t*D                      n_t*D
// Block nodes: 4G + T(3 + [G>1]) + 9TG; edges: T(3 + 15G + G*[G>1]).
// Layer adds nodes 3G + T(2 + [G>1]) + 4TG and edges T(3 + 8G + G*[G>1]).
DataflowGraph llama(const Params& P, bool withMlp) {
  const i64 s = P.i("seq"), D = P.i("d_model"), H = P.i("heads"), G = P.i("head_shards");
  const i64 batch = P.i("batch"), T = P.i("batch_shards");
  P.require(D % H == 0, "d_model",
            "d_model (" + std::to_string(D) + ") must be a multiple of heads (" +
                std::to_string(H) + ")");
  const i64 dh = D / H;
  P.require(dh % 2 == 0, "heads",
            "the head dimension d_model/heads (" + std::to_string(dh) +
                ") must be even for the rotary embedding");
  P.require(
      H >= G, "head_shards",
      "head_shards (" + std::to_string(G) + ") must not exceed heads (" + std::to_string(H) + ")");
  P.require(batch >= T, "batch_shards",
            "batch_shards (" + std::to_string(T) + ") must not exceed batch (" +
                std::to_string(batch) + ")");
  const i64 F = withMlp ? P.i("ffn_hidden") : 0;
  if (withMlp)
    P.require(F >= G, "ffn_hidden",
              "ffn_hidden (" + std::to_string(F) + ") must be at least head_shards (" +
                  std::to_string(G) + ")");

  Builder b(withMlp ? "llama-layer" : "llama-block", static_cast<double>(P.i("dtype_bytes")));
  const double Dd = static_cast<double>(D), sd = static_cast<double>(s),
               dhd = static_cast<double>(dh);
  auto sg = [](i64 g) { return "_s" + std::to_string(g); };
  auto bt = [](i64 t) { return "_b" + std::to_string(t); };
  auto e = [&](i64 g) { return static_cast<double>(part(H, G, g) * dh); };
  auto hg = [&](i64 g) { return static_cast<double>(part(H, G, g)); };
  auto fg = [&](i64 g) { return static_cast<double>(part(F, G, g)); };

  std::vector<int> wq(G), wk(G), wv(G), wo(G);
  for (i64 g = 0; g < G; ++g) {
    wq[g] = b.node("wq" + sg(g), "input", 0, Dd * e(g));
    wk[g] = b.node("wk" + sg(g), "input", 0, Dd * e(g));
    wv[g] = b.node("wv" + sg(g), "input", 0, Dd * e(g));
    wo[g] = b.node("wo" + sg(g), "input", 0, e(g) * Dd);
  }
  std::vector<int> wgate(G), wup(G), wdown(G);
  if (withMlp)
    for (i64 g = 0; g < G; ++g) {
      wgate[g] = b.node("w_gate" + sg(g), "input", 0, Dd * fg(g));
      wup[g] = b.node("w_up" + sg(g), "input", 0, Dd * fg(g));
      wdown[g] = b.node("w_down" + sg(g), "input", 0, fg(g) * Dd);
    }

  // Sums G partial outputs (or passes the single one through) and adds the residual.
  auto reduceAndAdd = [&](const std::string& sumId, const std::string& resId,
                          const std::vector<int>& partials, int residual, double tokens) {
    int sum = partials[0];
    if (G > 1) {
      sum = b.node(sumId, "add", static_cast<double>(G - 1) * tokens * Dd, tokens * Dd);
      for (int m : partials) b.edge(m, sum);
    }
    int res = b.node(resId, "add", tokens * Dd, tokens * Dd);
    b.edge(residual, res);
    b.edge(sum, res);
    return res;
  };

  for (i64 t = 0; t < T; ++t) {
    const double bT = static_cast<double>(part(batch, T, t));
    const double n = bT * sd;  // tokens in this batch shard
    int x = b.node("x" + bt(t), "input", 0, n * Dd);
    int norm = b.node("rmsnorm" + bt(t), "rmsnorm", 4 * n * Dd, n * Dd);
    b.edge(x, norm);
    std::vector<int> outs;
    for (i64 g = 0; g < G; ++g) {
      const std::string id = bt(t) + sg(g);
      auto proj = [&](const char* name, int w) {
        int m = b.node(std::string(name) + id, "matmul", 2 * n * Dd * e(g), n * e(g));
        b.edge(norm, m);
        b.edge(w, m);
        return m;
      };
      int q = proj("q_proj", wq[g]), k = proj("k_proj", wk[g]), v = proj("v_proj", wv[g]);
      int rq = b.node("rope_q" + id, "rope", 3 * n * e(g), n * e(g));
      b.edge(q, rq);
      int rk = b.node("rope_k" + id, "rope", 3 * n * e(g), n * e(g));
      b.edge(k, rk);
      const double scoreElems = bT * hg(g) * sd * sd;
      int sc = b.node("scores" + id, "matmul", 2 * scoreElems * dhd, scoreElems);
      b.edge(rq, sc);
      b.edge(rk, sc);
      int sm = b.node("softmax" + id, "softmax", 5 * scoreElems, scoreElems);
      b.edge(sc, sm);
      int av = b.node("attn_v" + id, "matmul", 2 * scoreElems * dhd, n * e(g));
      b.edge(sm, av);
      b.edge(v, av);
      int o = b.node("o_proj" + id, "matmul", 2 * n * e(g) * Dd, n * Dd);
      b.edge(av, o);
      b.edge(wo[g], o);
      outs.push_back(o);
    }
    int h = reduceAndAdd("o_sum" + bt(t), "residual" + bt(t), outs, x, n);
    if (!withMlp) continue;

    int norm2 = b.node("rmsnorm2" + bt(t), "rmsnorm", 4 * n * Dd, n * Dd);
    b.edge(h, norm2);
    std::vector<int> downs;
    for (i64 g = 0; g < G; ++g) {
      const std::string id = bt(t) + sg(g);
      int gate = b.node("gate_proj" + id, "matmul", 2 * n * Dd * fg(g), n * fg(g));
      b.edge(norm2, gate);
      b.edge(wgate[g], gate);
      int up = b.node("up_proj" + id, "matmul", 2 * n * Dd * fg(g), n * fg(g));
      b.edge(norm2, up);
      b.edge(wup[g], up);
      int act = b.node("silu_mul" + id, "silu_mul", 5 * n * fg(g), n * fg(g));
      b.edge(gate, act);
      b.edge(up, act);
      int down = b.node("down_proj" + id, "matmul", 2 * n * fg(g) * Dd, n * Dd);
      b.edge(act, down);
      b.edge(wdown[g], down);
      downs.push_back(down);
    }
    reduceAndAdd("mlp_sum" + bt(t), "residual2" + bt(t), downs, h, n);
  }
  return b.take();
}

}  // namespace

const std::vector<GeneratorInfo>& generatorKinds() {
  static const std::vector<GeneratorInfo> kinds = makeKinds();
  return kinds;
}

DataflowGraph generateGraph(const std::string& kind,
                            const std::map<std::string, double>& overrides) {
  const auto& kinds = generatorKinds();
  auto it = std::find_if(kinds.begin(), kinds.end(),
                         [&](const GeneratorInfo& k) { return k.kind == kind; });
  if (it == kinds.end()) {
    std::vector<std::string> known;
    for (const auto& k : kinds) known.push_back(k.kind);
    throw InputError("", "kind",
                     "unknown generator kind '" + kind + "' (known: " + joinNames(known) + ")");
  }
  Params params(*it, overrides);
  if (kind == "chainmm") return chainmm(params);
  if (kind == "ffnn") return ffnn(params);
  return llama(params, kind == "llama-layer");
}

}  // namespace doppler

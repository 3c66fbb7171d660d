#include "core/policy/network_forward.h"

#include <cblas.h>
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older C library headers lack the name
#endif

namespace doppler::policy {

namespace {

using Matrix = std::vector<float>;  // row-major; the row width is passed alongside

// y = x W^T (+ b), as LibTorch's Linear does it: with a bias, y starts as the bias on every row
// and the product is added to it (addmm); without, y is the product (mm). `ldw` lets W be a
// column block of a wider matrix (plc1's per-input blocks).
void dense(const float* x, int rows, int ldx, const float* w, int out, int in, int ldw,
           const float* bias, float* y) {
  if (rows == 0) return;
  if (bias)
    for (int r = 0; r < rows; ++r) std::copy(bias, bias + out, y + static_cast<size_t>(r) * out);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, x, ldx, w, ldw,
              bias ? 1.0f : 0.0f, y, out);
}

// Into `y`, resized (the message-passing steps reuse their buffers: a block this size freed and
// allocated again each step is a fresh mapping whose pages fault in again).
void apply(const DenseLayer& l, const float* x, int rows, Matrix& y) {
  y.resize(static_cast<size_t>(rows) * l.out);
  dense(x, rows, l.in, l.w.data(), l.out, l.in, l.in, l.b.empty() ? nullptr : l.b.data(), y.data());
}

Matrix apply(const DenseLayer& l, const float* x, int rows) {
  Matrix y;
  apply(l, x, rows, y);
  return y;
}

void relu(Matrix& m) {
  for (float& v : m) v = v > 0 ? v : 0.0f;
}

// exp(x) for float, as Cephes' expf: x = n ln 2 + r with |r| <= ln 2 / 2, a degree-6 polynomial
// for exp(r), then 2^n put into the exponent (within 1 ulp of std::exp, measured over -87..88).
// Branch-free and inline, so the loops below vectorise: libm's expf and tanhf, called per
// element, took about a third of a placement; LibTorch runs these on SLEEF's vector functions.
inline float fastExp(float x) {
  x = x < -87.3365f ? -87.3365f : x;
  x = x > 88.3762f ? 88.3762f : x;
  const float fx = x * 1.44269504088896341f + 0.5f;
  int n = static_cast<int>(fx);
  n = static_cast<float>(n) > fx ? n - 1 : n;  // floor
  const float nf = static_cast<float>(n);
  x = x - nf * 0.693359375f - nf * -2.12194440e-4f;
  const float z = x * x;
  float y = 1.9875691500e-4f;
  y = y * x + 1.3981999507e-3f;
  y = y * x + 8.3334519073e-3f;
  y = y * x + 4.1665795894e-2f;
  y = y * x + 1.6666665459e-1f;
  y = y * x + 5.0000001201e-1f;
  y = y * z + x + 1.0f;
  return y * std::bit_cast<float>((n + 127) << 23);
}

void sigmoidInPlace(float* x, int count) {
  for (int i = 0; i < count; ++i) x[i] = 1.0f / (1.0f + fastExp(-x[i]));
}

// tanh(x) = 1 - 2 / (exp(2x) + 1): exact at the limits, within a few 1e-8 of std::tanh near 0.
void tanhInPlace(float* x, int count) {
  for (int i = 0; i < count; ++i) x[i] = 1.0f - 2.0f / (fastExp(2.0f * x[i]) + 1.0f);
}

// Each node's sum of h over its path's members, (node, member) pairs added in order, scaled.
Matrix pathSums(const Matrix& h, int n, int H, const std::vector<int64_t>& node,
                const std::vector<int64_t>& member, float scale) {
  Matrix s(static_cast<size_t>(n) * H, 0.0f);
  for (size_t k = 0; k < node.size(); ++k) {
    float* dst = &s[static_cast<size_t>(node[k]) * H];
    const float* src = &h[static_cast<size_t>(member[k]) * H];
    for (int j = 0; j < H; ++j) dst[j] += src[j];
  }
  for (float& v : s) v *= scale;
  return s;
}

// Set by keepPlacementMemory: freed blocks then stay in the heap for the next ones.
std::atomic<bool> memoryKept{false};

// Faults in, in one call, the heap that a forward pass of `bytes` is about to use. Page by page, a
// fresh process's first pass on LLAMA-LAYER took about 800 faults, 12 ms on the development VM,
// where it otherwise takes 7; populated at once they cost about 1 ms. Only where freed blocks stay
// in the heap (keepPlacementMemory), so that the pass's matrices are then carved from these pages;
// once per thread (glibc gives each thread its own arena) and size.
void prefaultHeap(size_t bytes) {
  thread_local size_t done = 0;
  if (!memoryKept.load() || bytes <= done) return;
  constexpr uintptr_t kPage = 4096;
  void* block = std::malloc(bytes + kPage);
  if (!block) return;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(block) + kPage - 1) & ~(kPage - 1);
  // Linux 5.14 and later; an older kernel refuses it and the pages fault in one by one as before.
  madvise(reinterpret_cast<void*>(start), bytes & ~(kPage - 1), MADV_POPULATE_WRITE);
  std::free(block);
  done = bytes;
}

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("networkScores: " + what);
}

}  // namespace

PolicyScores networkScores(const NetworkWeights& W, const GraphFeatures& f) {
  if (f.nodes == 0) return {};
  const PolicyConfig& c = W.config;
  const int n = f.nodes, H = c.hidden, hh = c.head_hidden, dh = c.device_hidden;
  const size_t m = f.msg_src.size();
  check(f.x.size() == static_cast<size_t>(n) * kNodeFeatures, "node features of another size");
  check(f.msg_dst.size() == m && f.msg_dir.size() == m && f.msg_x.size() == m * kEdgeFeatures,
        "message arrays of different sizes");
  check(f.in_norm.size() == static_cast<size_t>(n), "in_norm of another size");
  auto inRange = [n](const std::vector<int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [n](int64_t i) { return i >= 0 && i < n; });
  };
  check(inRange(f.msg_src) && inRange(f.msg_dst) && inRange(f.bpath_node) &&
            inRange(f.bpath_member) && inRange(f.tpath_node) && inRange(f.tpath_member),
        "a node index out of range");
  check(
      f.bpath_node.size() == f.bpath_member.size() && f.tpath_node.size() == f.tpath_member.size(),
      "path pairs of different sizes");

  // The largest the pass's matrices get at once (the encoder's; see prefaultHeap).
  prefaultHeap(sizeof(float) *
               (static_cast<size_t>(n) * (12 * H + 4 * hh) + m * (2 * H + c.edge_hidden)));

  // Encoder: input projection, edge network, message passing with a GRU update.
  Matrix h = apply(W.in_proj, f.x.data(), n);
  relu(h);
  {  // the encoder's buffers end here
    // Per message: [gate | bias], the gate 1 + tanh(.) in place.
    Matrix eg;
    {
      Matrix eh = apply(W.edge1, f.msg_x.data(), static_cast<int>(m));
      relu(eh);
      apply(W.edge2, eh.data(), static_cast<int>(m), eg);
    }
    for (size_t k = 0; k < m; ++k) {
      float* g = &eg[k * 2 * H];
      tanhInPlace(g, H);
      for (int j = 0; j < H; ++j) g[j] += 1;
    }

    Matrix agg(static_cast<size_t>(n) * H), proj, gi, gh;
    for (int step = 0; step < c.mp_steps; ++step) {
      // proj: n x 2H, read as 2n rows of H (row 2 * node + direction).
      apply(W.msg, h.data(), n, proj);
      std::fill(agg.begin(), agg.end(), 0.0f);
      for (size_t k = 0; k < m; ++k) {
        const float* p = &proj[static_cast<size_t>(f.msg_src[k] * 2 + f.msg_dir[k]) * H];
        const float* g = &eg[k * 2 * H];
        const float* b = &eg[k * 2 * H + H];
        float* a = &agg[static_cast<size_t>(f.msg_dst[k]) * H];
        for (int j = 0; j < H; ++j) a[j] += p[j] * g[j] + b[j];
      }
      for (int v = 0; v < n; ++v)
        for (int j = 0; j < H; ++j) {
          float& a = agg[static_cast<size_t>(v) * H + j];
          a = std::max(a * f.in_norm[v], 0.0f);
        }
      // GRU cell, in LibTorch's order of operations: r = sigmoid(gh_r + gi_r), z likewise,
      // new = tanh(gi_n + gh_n * r), h' = (h - new) * z + new.
      apply(W.gru_ih, agg.data(), n, gi);
      apply(W.gru_hh, h.data(), n, gh);
      for (int v = 0; v < n; ++v) {
        const float* i3 = &gi[static_cast<size_t>(v) * 3 * H];
        float* h3 = &gh[static_cast<size_t>(v) * 3 * H];  // becomes [r | z | new]
        float* hv = &h[static_cast<size_t>(v) * H];
        for (int j = 0; j < 2 * H; ++j) h3[j] += i3[j];
        sigmoidInPlace(h3, 2 * H);
        for (int j = 0; j < H; ++j) h3[2 * H + j] = i3[2 * H + j] + h3[2 * H + j] * h3[j];
        tanhInPlace(h3 + 2 * H, H);
        for (int j = 0; j < H; ++j) hv[j] = (hv[j] - h3[2 * H + j]) * h3[H + j] + h3[2 * H + j];
      }
    }
  }

  PolicyScores p;
  p.hh = hh;
  p.dh = dh;
  p.df = c.device_features;

  // SEL: [sel_z(x) | h | b-path sums | t-path sums] -> sel1 -> LeakyReLU -> sel2.
  {
    const Matrix sb = pathSums(h, n, H, f.bpath_node, f.bpath_member, f.path_norm);
    const Matrix st = pathSums(h, n, H, f.tpath_node, f.tpath_member, f.path_norm);
    const Matrix z = apply(W.sel_z, f.x.data(), n);
    Matrix in(static_cast<size_t>(n) * 4 * H);
    for (int v = 0; v < n; ++v) {
      float* row = &in[static_cast<size_t>(v) * 4 * H];
      const size_t o = static_cast<size_t>(v) * H;
      std::copy_n(&z[o], H, row);
      std::copy_n(&h[o], H, row + H);
      std::copy_n(&sb[o], H, row + 2 * H);
      std::copy_n(&st[o], H, row + 3 * H);
    }
    Matrix hid = apply(W.sel1, in.data(), n);
    for (float& v : hid) v = v > 0 ? v : v * kLeakySlope;
    p.sel = apply(W.sel2, hid.data(), n);
  }

  // PLC's node and member terms: plc1's columns [device | plc_z(x) | h | device sums].
  {
    const int ld = W.plc1.in;
    const float* w = W.plc1.w.data();
    const Matrix z = apply(W.plc_z, f.x.data(), n);
    Matrix a(static_cast<size_t>(n) * hh), b(static_cast<size_t>(n) * hh);
    dense(z.data(), n, H, w + dh, hh, H, ld, nullptr, a.data());
    dense(h.data(), n, H, w + dh + H, hh, H, ld, nullptr, b.data());
    p.node.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) p.node[i] = (a[i] + b[i]) + W.plc1.b[i % hh];
    p.member.resize(a.size());
    dense(h.data(), n, H, w + dh + 2 * H, hh, H, ld, nullptr, p.member.data());
    for (float& v : p.member) v *= f.member_norm;
    p.wy.resize(static_cast<size_t>(hh) * dh);
    for (int r = 0; r < hh; ++r) std::copy_n(w + static_cast<size_t>(r) * ld, dh, &p.wy[r * dh]);
  }
  p.wy1 = W.plc_y.w;
  p.by1 = W.plc_y.b;
  p.w2 = W.plc2.w;
  return p;
}

// A placement allocates and frees blocks of up to a few MB (LibTorch's tensors, the plain forward
// pass's matrices) one after another. Under glibc's defaults each one above the mmap threshold (128
// KB at first; it rises only after such a block is freed, and the trim threshold with it) is a
// fresh mapping whose pages fault in again, and freed heap above the trim threshold goes back to
// the system. In a fresh process that made the first placement of LLAMA-LAYER about 60 ms against
// 10 ms for the next ones (LibTorch's forward pass); and how fast the next ones were depended on
// the largest block a placement happened to free. Served from the heap, and with freed heap kept,
// later blocks reuse pages already touched. The process keeps up to 512 MB of freed heap in
// exchange; a policy is loaded to place many graphs (the studio) or one (the CLI), so that is
// memory it would touch again.
void setBlasThreads(int threads) {
  if (threads <= 0) return;
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    fn(threads);
}

void keepPlacementMemory() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    memoryKept = true;
  });
}

}  // namespace doppler::policy

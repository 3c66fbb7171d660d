#include "core/policy/features.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/input_error.h"
#include "core/heuristics/list_scheduler.h"
#include "core/sim/lower_bound.h"

namespace doppler::policy {

int compareNear(double a, double b) {
  const double tol = 1e-9 * std::max(std::abs(a), std::abs(b));
  if (a < b - tol) return -1;
  if (a > b + tol) return 1;
  return 0;
}

namespace {

// Writes column `col` of a row-major matrix with `stride` columns: z-score of `values` there,
// log1p(value / mean) at col + 1 (values are non-negative costs).
void normalisedColumns(const std::vector<double>& values, std::vector<float>& out, int stride,
                       int col) {
  const size_t n = values.size();
  if (n == 0) return;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(n));
  const bool flat = sd <= 1e-12 * std::max(1.0, std::abs(mean));
  for (size_t i = 0; i < n; ++i) {
    out[i * stride + col] = flat ? 0.0f : static_cast<float>((values[i] - mean) / sd);
    out[i * stride + col + 1] =
        mean > 0 ? static_cast<float>(std::log1p(std::max(0.0, values[i]) / mean)) : 0.0f;
  }
}

uint64_t fnv(uint64_t h, const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::string fingerprint(const CostTable& c, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int v = 0; v < c.nodes(); ++v)
    for (int d = 0; d < c.devices(); ++d) {
      const double x = c.compute(v, d);
      h = fnv(h, &x, sizeof x);
    }
  for (int e = 0; e < c.edges(); ++e) {
    const int ends[2] = {c.edgeSrc(e), c.edgeDst(e)};
    h = fnv(h, ends, sizeof ends);
    for (int a = 0; a < c.devices(); ++a)
      for (int b = 0; b < c.devices(); ++b) {
        const double x = c.transfer(e, a, b);
        h = fnv(h, &x, sizeof x);
      }
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return (name.empty() ? std::string("graph") : name) + ":" + std::to_string(c.nodes()) + "n/" +
         std::to_string(c.edges()) + "e/" + std::to_string(c.devices()) + "d:" + buf;
}

namespace {

// The longest paths graphFeatures follows: per node, the successor (predecessor) that realises
// its bottom (top) level, ties by the lowest node index.
struct PathSteps {
  std::vector<int> next, prev;
};

PathSteps pathSteps(const CostTable& c, const std::vector<double>& bl,
                    const std::vector<double>& tl) {
  const int n = c.nodes();
  PathSteps s{std::vector<int>(n, -1), std::vector<int>(n, -1)};
  for (int v = 0; v < n; ++v) {
    double best = -1;
    for (const int* e = c.outBegin(v); e != c.outEnd(v); ++e) {
      const int w = c.edgeDst(*e);
      const double len = c.meanTransfer(*e) + bl[w];
      const int cmp = s.next[v] < 0 ? 1 : compareNear(len, best);
      if (cmp > 0 || (cmp == 0 && w < s.next[v])) s.next[v] = w, best = len;
    }
    best = -1;
    for (const int* e = c.inBegin(v); e != c.inEnd(v); ++e) {
      const int u = c.edgeSrc(*e);
      const double len = tl[u] + c.meanCompute(u) + c.meanTransfer(*e);
      const int cmp = s.prev[v] < 0 ? 1 : compareNear(len, best);
      if (cmp > 0 || (cmp == 0 && u < s.prev[v])) s.prev[v] = u, best = len;
    }
  }
  return s;
}

// The summed length of every node's path along `step` (the node itself included), each length
// memoised: O(nodes) in all.
int64_t summedPathLengths(const std::vector<int>& step) {
  std::vector<int64_t> len(step.size(), 0);
  std::vector<int> pending;
  int64_t total = 0;
  for (size_t v = 0; v < step.size(); ++v) {
    int u = static_cast<int>(v);
    while (u >= 0 && len[u] == 0) {
      pending.push_back(u);
      u = step[u];
    }
    int64_t l = u >= 0 ? len[u] : 0;
    while (!pending.empty()) {
      len[pending.back()] = ++l;
      pending.pop_back();
    }
    total += len[v];
  }
  return total;
}

}  // namespace

int64_t placementPathPairs() {
  double budget = 4.0 * (1ull << 30);
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    budget = std::min(budget, 0.25 * static_cast<double>(pages) * static_cast<double>(pageSize));
  return static_cast<int64_t>(budget / 32.0);
}

int64_t pathPairCount(const CostTable& c) {
  const PathSteps s = pathSteps(c, bottomLevels(c), topLevels(c));
  return summedPathLengths(s.next) + summedPathLengths(s.prev);
}

GraphFeatures graphFeatures(const CostTable& c, const std::string& name, int64_t maxPathPairs) {
  GraphFeatures f;
  const int n = c.nodes(), m = c.edges();
  f.nodes = n;
  f.devices = c.devices();
  f.fingerprint = fingerprint(c, name);

  const std::vector<double> bl = bottomLevels(c), tl = topLevels(c);
  std::vector<double> comp(n), inComm(n, 0.0), outComm(n, 0.0);
  for (int v = 0; v < n; ++v) comp[v] = c.meanCompute(v);
  for (int e = 0; e < m; ++e) {
    outComm[c.edgeSrc(e)] += c.meanTransfer(e);
    inComm[c.edgeDst(e)] += c.meanTransfer(e);
  }
  f.x.assign(static_cast<size_t>(n) * kNodeFeatures, 0.0f);
  normalisedColumns(comp, f.x, kNodeFeatures, 0);
  normalisedColumns(bl, f.x, kNodeFeatures, 2);
  normalisedColumns(tl, f.x, kNodeFeatures, 4);
  normalisedColumns(inComm, f.x, kNodeFeatures, 6);
  normalisedColumns(outComm, f.x, kNodeFeatures, 8);
  // Program order: structurally identical nodes (the replicated blocks of every paper graph) get
  // identical embeddings otherwise, and then neither SEL nor PLC can tell them apart, so the
  // policy cannot express (or imitate) a placement that treats them differently.
  for (int v = 0; v < n; ++v) {
    float* row = f.x.data() + static_cast<size_t>(v) * kNodeFeatures;
    const double r = n > 1 ? static_cast<double>(v) / (n - 1) : 0.0;
    row[10] = static_cast<float>(2 * r - 1);
    row[11] = static_cast<float>(std::sin(v * 1.0));
    row[12] = static_cast<float>(std::cos(v * 1.0));
    row[13] = static_cast<float>(std::sin(v * 0.3));
  }
  f.bottom = bl;

  // Messages both ways along every edge.
  std::vector<double> comm(m);
  for (int e = 0; e < m; ++e) comm[e] = c.meanTransfer(e);
  std::vector<float> ex(static_cast<size_t>(m) * 2, 0.0f);
  normalisedColumns(comm, ex, 2, 0);
  f.msg_x.assign(static_cast<size_t>(2 * m) * kEdgeFeatures, 0.0f);
  std::vector<int> into(n, 0);
  for (int e = 0; e < m; ++e) {
    const int u = c.edgeSrc(e), v = c.edgeDst(e);
    for (int dir = 0; dir < 2; ++dir) {
      const size_t k = static_cast<size_t>(2 * e + dir);
      f.msg_src.push_back(dir == 0 ? u : v);
      f.msg_dst.push_back(dir == 0 ? v : u);
      f.msg_dir.push_back(dir);
      f.msg_x[k * kEdgeFeatures + 0] = ex[2 * e];
      f.msg_x[k * kEdgeFeatures + 1] = ex[2 * e + 1];
      f.msg_x[k * kEdgeFeatures + 2 + dir] = 1.0f;
      ++into[dir == 0 ? v : u];
    }
  }
  f.in_norm.resize(n);
  for (int v = 0; v < n; ++v)
    f.in_norm[v] = 1.0f / std::sqrt(static_cast<float>(std::max(1, into[v])));

  // Longest paths: the successor (predecessor) that realises the bottom (top) level, ties by the
  // lowest node index, followed to an exit (entry).
  const PathSteps steps = pathSteps(c, bl, tl);
  const std::vector<int>& next = steps.next;
  const std::vector<int>& prev = steps.prev;
  if (maxPathPairs > 0) {
    const int64_t pairs = summedPathLengths(next) + summedPathLengths(prev);
    if (pairs > maxPathPairs)
      throw InputError(name, "graph",
                       "its nodes' longest paths hold " + std::to_string(pairs) +
                           " (node, member) pairs, more than the " + std::to_string(maxPathPairs) +
                           " the policy may gather here (they grow as nodes times depth); coarsen "
                           "it first (doppler graph coarsen -n 2000)");
  }
  double total = 0;
  for (int v = 0; v < n; ++v) {
    for (int u = v; u >= 0; u = next[u]) f.bpath_node.push_back(v), f.bpath_member.push_back(u);
    for (int u = v; u >= 0; u = prev[u]) f.tpath_node.push_back(v), f.tpath_member.push_back(u);
  }
  total = static_cast<double>(f.bpath_node.size() + f.tpath_node.size());
  f.path_norm = n > 0 ? static_cast<float>(2.0 * n / std::max(1.0, total)) : 1.0f;
  f.member_norm = n > 0 ? static_cast<float>(c.devices()) / static_cast<float>(n) : 1.0f;
  const double lb = lowerBound(c).value();
  f.time_scale = lb > 0 ? lb : 1.0;
  return f;
}

}  // namespace doppler::policy

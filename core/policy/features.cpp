#include "core/policy/features.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

GraphFeatures graphFeatures(const CostTable& c, const std::string& name) {
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
  std::vector<int> next(n, -1), prev(n, -1);
  for (int v = 0; v < n; ++v) {
    double best = -1;
    for (const int* e = c.outBegin(v); e != c.outEnd(v); ++e) {
      const int w = c.edgeDst(*e);
      const double len = c.meanTransfer(*e) + bl[w];
      const int cmp = next[v] < 0 ? 1 : compareNear(len, best);
      if (cmp > 0 || (cmp == 0 && w < next[v])) next[v] = w, best = len;
    }
    best = -1;
    for (const int* e = c.inBegin(v); e != c.inEnd(v); ++e) {
      const int u = c.edgeSrc(*e);
      const double len = tl[u] + c.meanCompute(u) + c.meanTransfer(*e);
      const int cmp = prev[v] < 0 ? 1 : compareNear(len, best);
      if (cmp > 0 || (cmp == 0 && u < prev[v])) prev[v] = u, best = len;
    }
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

// ---------------------------------------------------------------------------------------------

EpisodeState::EpisodeState(const CostTable& costs, const GraphFeatures& gf)
    : costs_(costs), gf_(gf), plan_(costs), pending_(costs.nodes()), sibling_(costs.devices()) {
  for (int v = 0; v < costs.nodes(); ++v) {
    pending_[v] = costs.inDegree(v);
    if (pending_[v] == 0) ready_.push_back(v);
  }
}

void EpisodeState::earliestStarts(int v, double* est) const {
  for (int d = 0; d < costs_.devices(); ++d) est[d] = plan_.earliestStart(v, d, false);
}

void EpisodeState::deviceFeatures(int v, const double* est, float* out) const {
  const int D = costs_.devices();
  const double inv = 1.0 / gf_.time_scale;
  double minEst = est[0], minEft = est[0] + costs_.compute(v, 0), meanLoad = 0;
  for (int d = 0; d < D; ++d) {
    minEst = std::min(minEst, est[d]);
    minEft = std::min(minEft, est[d] + costs_.compute(v, d));
    meanLoad += plan_.load(d);
  }
  meanLoad /= D;
  double inData = 0, outData = 0;
  for (const int* e = costs_.inBegin(v); e != costs_.inEnd(v); ++e)
    inData += costs_.meanTransfer(*e);
  for (const int* e = costs_.outBegin(v); e != costs_.outEnd(v); ++e)
    outData += costs_.meanTransfer(*e);
  // Siblings: the other inputs of v's successors that are already placed. Data they send to a
  // common successor stays local only where v joins them, which a node-by-node plan cannot see
  // otherwise (it is what groups the inputs of a reduction on one device).
  std::fill(sibling_.begin(), sibling_.end(), 0.0);
  double siblingTotal = 0;
  for (const int* e = costs_.outBegin(v); e != costs_.outEnd(v); ++e) {
    const int s = costs_.edgeDst(*e);
    for (const int* g = costs_.inBegin(s); g != costs_.inEnd(s); ++g) {
      const int u = costs_.edgeSrc(*g);
      const int du = u == v ? -1 : plan_.device(u);
      if (du < 0) continue;
      sibling_[du] += costs_.meanTransfer(*g);
      siblingTotal += costs_.meanTransfer(*g);
    }
  }
  for (int d = 0; d < D; ++d) {
    double predWork = 0, predStart = 0, predFinish = 0, transfer = 0, localData = 0;
    bool any = false;
    for (const int* e = costs_.inBegin(v); e != costs_.inEnd(v); ++e) {
      const int u = costs_.edgeSrc(*e);
      const int du = plan_.device(u);
      if (du == d) {
        localData += costs_.meanTransfer(*e);
        predWork += costs_.compute(u, d);
        predStart = any ? std::min(predStart, plan_.start(u)) : plan_.start(u);
        predFinish = any ? std::max(predFinish, plan_.finish(u)) : plan_.finish(u);
        any = true;
      } else {
        transfer += costs_.transfer(*e, du, d);
      }
    }
    float* f = out + static_cast<size_t>(d) * kDeviceFeatures;
    f[0] = static_cast<float>(plan_.load(d) * inv);
    f[1] = static_cast<float>(predWork * inv);
    f[2] = static_cast<float>(predStart * inv);
    f[3] = static_cast<float>(predFinish * inv);
    f[4] = static_cast<float>(est[d] * inv);
    f[5] = static_cast<float>((est[d] - minEst) * inv);
    f[6] = static_cast<float>((est[d] + costs_.compute(v, d) - minEft) * inv);
    f[7] = static_cast<float>(transfer * inv);
    f[8] = static_cast<float>(plan_.deviceFree(d) * inv);
    f[9] = static_cast<float>((plan_.load(d) - meanLoad) * inv);
    f[10] = static_cast<float>(inData > 0 ? localData / inData : (any ? 1.0 : 0.0));
    f[11] = static_cast<float>(costs_.compute(v, d) * inv);
    f[12] = static_cast<float>(outData * inv);
    f[13] = static_cast<float>(gf_.bottom[v] * inv);
    f[14] = static_cast<float>(sibling_[d] * inv);
    f[15] = static_cast<float>(siblingTotal > 0 ? sibling_[d] / siblingTotal : 0.0);
  }
}

void EpisodeState::teacherNodes(std::vector<int>& positions) const {
  positions.clear();
  double best = 0;
  for (int j = 0; j < static_cast<int>(ready_.size()); ++j) {
    const double b = gf_.bottom[ready_[j]];
    const int c = positions.empty() ? 1 : compareNear(b, best);
    if (c > 0) {
      positions.assign(1, j);
      best = b;
    } else if (c == 0) {
      positions.push_back(j);
    }
  }
}

int EpisodeState::teacherNodePosition() const {
  int best = 0;
  for (int j = 1; j < static_cast<int>(ready_.size()); ++j) {
    const int v = ready_[j], b = ready_[best];
    const int c = compareNear(gf_.bottom[v], gf_.bottom[b]);
    if (c > 0 || (c == 0 && v < b)) best = j;
  }
  return best;
}

void EpisodeState::teacherDevices(const double* est, const uint8_t* allowed,
                                  std::vector<int>& devices) const {
  devices.clear();
  double best = 0;
  for (int d = 0; d < costs_.devices(); ++d) {
    if (allowed && !allowed[d]) continue;
    const int c = devices.empty() ? -1 : compareNear(est[d], best);
    if (c < 0) {
      devices.assign(1, d);
      best = est[d];
    } else if (c == 0) {
      devices.push_back(d);
    }
  }
}

int EpisodeState::teacherDevice(int v, const double* est, const uint8_t* allowed) const {
  int dev = -1;
  double k1 = 0, k2 = 0;
  for (int d = 0; d < costs_.devices(); ++d) {
    if (allowed && !allowed[d]) continue;
    const double eft = est[d] + costs_.compute(v, d);
    bool better = dev < 0;
    if (!better) {
      const int c1 = compareNear(est[d], k1);
      better = c1 < 0 || (c1 == 0 && compareNear(eft, k2) < 0);
    }
    if (better) dev = d, k1 = est[d], k2 = eft;
  }
  return dev;
}

void EpisodeState::place(int pos, int dev, double est) {
  const int v = ready_[pos];
  ready_[pos] = ready_.back();
  ready_.pop_back();
  plan_.place(v, dev, est);
  for (const int* e = costs_.outBegin(v); e != costs_.outEnd(v); ++e) {
    const int w = costs_.edgeDst(*e);
    if (--pending_[w] == 0) ready_.push_back(w);
  }
}

}  // namespace doppler::policy

#include "core/policy/episode_state.h"

#include <algorithm>
#include <cmath>

namespace doppler::policy {

EpisodeState::EpisodeState(const CostTable& costs, const GraphFeatures& gf, int features)
    : costs_(costs),
      gf_(gf),
      plan_(costs),
      pending_(costs.nodes()),
      features_(features),
      sibling_(costs.devices()),
      join_(costs.devices()) {
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
  static_assert(kDeviceFeatures == 18, "deviceFeatures writes 18 features");
  if (features_ <= kDeviceFeaturesV2) {
    for (int d = 0; d < D; ++d)
      std::fill_n(out + static_cast<size_t>(d) * kDeviceFeatures + 16, 2, 0.0f);
    return;
  }
  plan_.joinTimes(v, est, join_.data(), arrival_);
  const double minJoin = *std::min_element(join_.begin(), join_.end());
  for (int d = 0; d < D; ++d) {
    float* f = out + static_cast<size_t>(d) * kDeviceFeatures;
    f[16] = static_cast<float>((join_[d] - minJoin) * inv);
    f[17] = static_cast<float>((join_[d] - est[d] - costs_.compute(v, d)) * inv);
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

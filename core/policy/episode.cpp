#include "core/policy/episode.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/common/input_error.h"

namespace doppler::policy {

namespace {

float leaky(float x) {
  return x > 0 ? x : kLeakySlope * x;
}

}  // namespace

Episode::Episode(const CostTable& costs, const GraphFeatures& features, const PolicyScores* scores,
                 Component sel, Component plc, const std::vector<uint8_t>* allowed)
    : costs_(costs),
      scores_(scores),
      allowed_(allowed != nullptr && !allowed->empty() ? allowed : nullptr),
      selLearned_(sel == Component::Learned),
      plcLearned_(plc == Component::Learned),
      state_(costs, features, scores != nullptr ? scores->df : kDeviceFeatures),
      assignment_(costs.nodes(), -1) {
  const int n = costs.nodes(), D = costs.devices();
  if (allowed_ && allowed_->size() != static_cast<size_t>(n) * D)
    throw InputError("", "allowed devices",
                     "mask has " + std::to_string(allowed_->size()) + " entries, expected " +
                         std::to_string(n) + " nodes x " + std::to_string(D) + " devices");
  if ((selLearned_ || plcLearned_) && scores_ == nullptr)
    throw std::invalid_argument("Episode: a learned component needs the network's scores");
  order_.reserve(n);
  if (plcLearned_) {
    sums_.assign(static_cast<size_t>(D) * scores_->hh, 0.0f);
    y1_.resize(scores_->dh);
    features_.resize(static_cast<size_t>(D) * kDeviceFeatures);
  }
}

const uint8_t* Episode::allowedFor(int v) const {
  return allowed_ ? allowed_->data() + static_cast<size_t>(v) * costs_.devices() : nullptr;
}

void Episode::selProbabilities(std::vector<float>& probs) const {
  const std::vector<int>& ready = state_.ready();
  const int R = static_cast<int>(ready.size());
  probs.assign(R, 0.0f);
  if (!selLearned_) {
    probs[state_.teacherNodePosition()] = 1.0f;
    return;
  }
  // Softmax of the static logits over the ready set.
  const std::vector<float>& logits = scores_->sel;
  float mx = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < R; ++j) mx = std::max(mx, logits[ready[j]]);
  double z = 0;
  for (int j = 0; j < R; ++j) z += probs[j] = std::exp(logits[ready[j]] - mx);
  for (int j = 0; j < R; ++j) probs[j] = static_cast<float>(probs[j] / z);
}

void Episode::deviceProbabilities(int v, double* est, float* features, float* probs) const {
  const int D = costs_.devices();
  state_.earliestStarts(v, est);
  const uint8_t* allow = allowedFor(v);
  if (allow && std::none_of(allow, allow + D, [](uint8_t a) { return a != 0; }))
    throw InputError("", "allowed devices", "node " + std::to_string(v) + " has no allowed device");
  if (!plcLearned_) {
    std::fill(probs, probs + D, 0.0f);
    probs[state_.teacherDevice(v, est, allow)] = 1.0f;
    return;
  }
  // PLC: per-device features, scored by the device MLP on top of the node and member terms.
  const PolicyScores& p = *scores_;
  const int hh = p.hh, dh = p.dh;
  float* feat = features ? features : features_.data();
  state_.deviceFeatures(v, est, feat);
  const float inf = std::numeric_limits<float>::infinity();
  float mx = -inf;
  for (int d = 0; d < D; ++d) {
    if (allow && !allow[d]) {
      probs[d] = -inf;
      continue;
    }
    const float* fd = feat + static_cast<size_t>(d) * kDeviceFeatures;
    for (int i = 0; i < dh; ++i) {
      float a = p.by1[i];
      const float* wrow = p.wy1.data() + static_cast<size_t>(i) * p.df;
      for (int k = 0; k < p.df; ++k) a += wrow[k] * fd[k];
      y1_[i] = leaky(a);
    }
    float logit = 0;
    const float* nodeRow = p.node.data() + static_cast<size_t>(v) * hh;
    const float* sumRow = sums_.data() + static_cast<size_t>(d) * hh;
    for (int j = 0; j < hh; ++j) {
      float a = nodeRow[j] + sumRow[j];
      const float* wrow = p.wy.data() + static_cast<size_t>(j) * dh;
      for (int i = 0; i < dh; ++i) a += wrow[i] * y1_[i];
      logit += p.w2[j] * leaky(a);
    }
    probs[d] = logit;
    mx = std::max(mx, logit);
  }
  double z = 0;
  for (int d = 0; d < D; ++d) {
    probs[d] = (allow && !allow[d]) ? 0.0f : std::exp(probs[d] - mx);
    z += probs[d];
  }
  for (int d = 0; d < D; ++d) probs[d] = static_cast<float>(probs[d] / z);
}

void Episode::place(int pos, int device, double est) {
  const int v = state_.ready()[pos];
  state_.place(pos, device, est);
  assignment_[v] = device;
  order_.push_back(v);
  if (plcLearned_) {
    const int hh = scores_->hh;
    const float* mem = scores_->member.data() + static_cast<size_t>(v) * hh;
    float* s = sums_.data() + static_cast<size_t>(device) * hh;
    for (int j = 0; j < hh; ++j) s[j] += mem[j];
  }
}

void Episode::placeNode(int node, int device) {
  const std::vector<int>& ready = state_.ready();
  const auto it = std::find(ready.begin(), ready.end(), node);
  if (it == ready.end())
    throw std::invalid_argument("Episode::placeNode: node " + std::to_string(node) +
                                " is not ready");
  if (device < 0 || device >= costs_.devices())
    throw std::invalid_argument("Episode::placeNode: no device " + std::to_string(device));
  place(static_cast<int>(it - ready.begin()), device,
        state_.plan().earliestStart(node, device, false));
}

double Episode::partialMakespan() const {
  double makespan = 0;
  for (int d = 0; d < costs_.devices(); ++d) makespan = std::max(makespan, plan().deviceFree(d));
  return makespan;
}

}  // namespace doppler::policy

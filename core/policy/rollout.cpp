#include "core/policy/rollout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/common/random.h"

namespace doppler::policy {

namespace {

// The guide's device, or with probability `deviate` another allowed device drawn in proportion to
// PLC's probabilities (uniformly if they are all zero).
int guidedDevice(const float* prob, int k, const uint8_t* allowed, int guide, double deviate,
                 Rng& rng) {
  auto ok = [&](int j) { return (allowed == nullptr || allowed[j] != 0) && j != guide; };
  const bool guideOk = guide >= 0 && guide < k && (allowed == nullptr || allowed[guide] != 0);
  if (guideOk && !(deviate > 0 && rng.uniform() < deviate)) return guide;
  double z = 0;
  int count = 0;
  for (int j = 0; j < k; ++j)
    if (ok(j)) z += prob[j], ++count;
  if (count == 0) return guide;
  if (z > 0) {
    double u = rng.uniform() * z;
    int last = -1;
    for (int j = 0; j < k; ++j) {
      if (!ok(j)) continue;
      last = j;
      if ((u -= prob[j]) < 0) return j;
    }
    return last;
  }
  int pick = rng.below(count);
  for (int j = 0; j < k; ++j)
    if (ok(j) && pick-- == 0) return j;
  return guide;
}

// Chooses among k options with probabilities prob (masked options have probability 0).
int choose(const float* prob, int k, const uint8_t* allowed, DecisionMode mode, double eps,
           Rng& rng) {
  auto ok = [&](int j) { return allowed == nullptr || allowed[j] != 0; };
  if (eps > 0 && rng.uniform() < eps) {
    int count = 0;
    for (int j = 0; j < k; ++j) count += ok(j);
    int pick = rng.below(count);
    for (int j = 0; j < k; ++j)
      if (ok(j) && pick-- == 0) return j;
  }
  if (mode == DecisionMode::Sample) {
    double u = rng.uniform(), acc = 0;
    int last = -1;
    for (int j = 0; j < k; ++j) {
      if (!ok(j)) continue;
      last = j;
      acc += prob[j];
      if (u < acc) return j;
    }
    return last;  // rounding left u beyond the sum
  }
  int best = -1;
  for (int j = 0; j < k; ++j)
    if (ok(j) && (best < 0 || prob[j] > prob[best])) best = j;
  return best;
}

int argmax(const float* prob, int k) {
  int best = 0;
  for (int j = 1; j < k; ++j)
    if (prob[j] > prob[best]) best = j;
  return best;
}

}  // namespace

Rollout rollout(const PolicyScores& scores, const CostTable& c, const GraphFeatures& f,
                const RolloutOptions& o) {
  const EpisodeOptions& eo = o.episode;
  const int n = c.nodes(), D = c.devices();
  const bool masked = !eo.allowed.empty();
  const bool selLearned = eo.sel == Component::Learned;
  const bool plcLearned = eo.plc == Component::Learned;
  Episode episode(c, f, &scores, eo.sel, eo.plc, &eo.allowed);
  Rng rng(eo.seed);
  Rollout r;
  if (eo.record_probs) r.result.steps.reserve(n);
  if (o.keep_batch) {
    r.nodes.reserve(n);
    r.devices.reserve(n);
    r.dev_x.reserve(static_cast<size_t>(n) * D * kDeviceFeatures);
    if (masked) r.allowed.reserve(static_cast<size_t>(n) * D);
  }
  if (o.teacher_targets) r.tie_dev.reserve(static_cast<size_t>(n) * D);

  std::vector<double> est(D);
  std::vector<float> feat(static_cast<size_t>(D) * kDeviceFeatures);
  std::vector<float> selp, plcp(D);
  std::vector<int> ties, devTies;

  for (int step = 0; step < n; ++step) {
    const std::vector<int>& ready = episode.ready();
    const int R = static_cast<int>(ready.size());
    const bool followTeacher = o.teacher_mix > 0 && rng.uniform() < o.teacher_mix;

    // SEL.
    episode.selProbabilities(selp);
    int pos;
    if (selLearned) {
      pos = choose(selp.data(), R, nullptr, eo.mode, eo.epsilon, rng);
      if (o.keep_batch)
        for (int j = 0; j < R; ++j) r.cand.push_back(ready[j]), r.cand_step.push_back(step);
    } else {
      pos = episode.teacherNodePosition();
    }
    bool selOk = true;
    if (o.teacher_targets) {
      episode.state().teacherNodes(ties);
      for (int j : ties) r.tie_cand.push_back(ready[j]), r.tie_step.push_back(step);
      const int greedy = selLearned ? argmax(selp.data(), R) : pos;
      selOk = std::find(ties.begin(), ties.end(), greedy) != ties.end();
    }
    if (followTeacher) pos = episode.teacherNodePosition();
    const int node = ready[pos];
    if (eo.record_probs) {
      EpisodeStep record;
      record.node = node;
      record.candidates = ready;
      record.sel_probs = selp;
      r.result.steps.push_back(std::move(record));
    }

    // PLC.
    episode.deviceProbabilities(node, est.data(), feat.data(), plcp.data());
    const uint8_t* allow = episode.allowedFor(node);
    int dev;
    if (plcLearned) {
      dev = o.guide ? guidedDevice(plcp.data(), D, allow, (*o.guide)[node], o.guide_deviate, rng)
                    : choose(plcp.data(), D, allow, eo.mode, eo.epsilon, rng);
    } else {
      dev = episode.teacherDevice(node, est.data());
    }
    if (o.teacher_targets) {
      episode.state().teacherDevices(est.data(), allow, devTies);
      for (int d = 0; d < D; ++d) r.tie_dev.push_back(0);
      for (int d : devTies) r.tie_dev[static_cast<size_t>(step) * D + d] = 1;
      int greedy = dev;
      if (plcLearned) {
        greedy = -1;
        for (int d = 0; d < D; ++d)
          if ((!allow || allow[d]) && (greedy < 0 || plcp[d] > plcp[greedy])) greedy = d;
      }
      const bool plcOk = std::find(devTies.begin(), devTies.end(), greedy) != devTies.end();
      r.sel_agree += selOk;
      r.plc_agree += plcOk;
      r.both_agree += selOk && plcOk;
    }
    if (followTeacher) dev = episode.teacherDevice(node, est.data());
    if (eo.record_probs) {
      r.result.steps.back().device = dev;
      r.result.steps.back().plc_probs = plcp;
    }
    if (o.keep_batch) {
      r.nodes.push_back(node);
      r.devices.push_back(dev);
      if (plcLearned) {
        r.dev_x.insert(r.dev_x.end(), feat.begin(), feat.end());
        if (masked) r.allowed.insert(r.allowed.end(), allow, allow + D);
      }
    }
    episode.place(pos, dev, est[dev]);
  }
  r.result.assignment = episode.assignment();
  r.result.order = episode.order();
  r.result.planned_makespan_us = episode.plan().schedule().makespan_us;
  return r;
}

EpisodeResult runEpisode(const PolicyScores& scores, const CostTable& costs, const GraphFeatures& f,
                         const EpisodeOptions& options) {
  if (costs.nodes() == 0) return {};
  RolloutOptions o;
  o.episode = options;
  return rollout(scores, costs, f, o).result;
}

Rollout replay(const CostTable& c, const GraphFeatures& f, const std::vector<int>& order,
               const Assignment& assignment, const EpisodeOptions& eo, int deviceFeatures) {
  const int n = c.nodes(), D = c.devices();
  if (static_cast<int>(order.size()) != n || static_cast<int>(assignment.size()) != n)
    throw std::invalid_argument("replay: the order or the assignment does not cover the graph");
  const bool masked = !eo.allowed.empty();
  EpisodeState st(c, f, deviceFeatures);
  Rollout r;
  r.result.assignment.assign(n, -1);
  std::vector<double> est(D);
  std::vector<float> feat(static_cast<size_t>(D) * kDeviceFeatures);
  for (int step = 0; step < n; ++step) {
    const int v = order[step], dev = assignment[v];
    const std::vector<int>& ready = st.ready();
    const auto it = std::find(ready.begin(), ready.end(), v);
    if (it == ready.end() || dev < 0 || dev >= D)
      throw std::invalid_argument("replay: step " + std::to_string(step) +
                                  " is not a valid decision");
    if (eo.sel == Component::Learned)
      for (int u : ready) r.cand.push_back(u), r.cand_step.push_back(step);
    st.earliestStarts(v, est.data());
    if (eo.plc == Component::Learned) {
      st.deviceFeatures(v, est.data(), feat.data());
      r.dev_x.insert(r.dev_x.end(), feat.begin(), feat.end());
      if (masked) {
        const uint8_t* allow = &eo.allowed[static_cast<size_t>(v) * D];
        r.allowed.insert(r.allowed.end(), allow, allow + D);
      }
    }
    r.nodes.push_back(v);
    r.devices.push_back(dev);
    st.place(static_cast<int>(it - ready.begin()), dev, est[dev]);
    r.result.assignment[v] = dev;
    r.result.order.push_back(v);
  }
  r.result.planned_makespan_us = st.plan().schedule().makespan_us;
  return r;
}

}  // namespace doppler::policy

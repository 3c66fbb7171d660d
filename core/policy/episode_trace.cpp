#include "core/policy/episode_trace.h"

#include <algorithm>
#include <functional>
#include <string>

#include "core/common/input_error.h"

namespace doppler::policy {

namespace {

// What decides a step when it is not overridden: a position in ready(), then a device.
struct Chooser {
  std::function<int(const Episode&, int step, const std::vector<float>& selp)> node;
  std::function<int(const Episode&, int step, int v, const double* est, const float* plcp)> device;
};

// The first maximum, among allowed devices (rollout.cpp's greedy choice).
int firstMax(const float* p, int k, const uint8_t* allowed) {
  int best = -1;
  for (int j = 0; j < k; ++j)
    if ((allowed == nullptr || allowed[j] != 0) && (best < 0 || p[j] > p[best])) best = j;
  return best;
}

TracedEpisode run(Episode& episode, const CostTable& costs, const DecisionControl* control,
                  const Chooser& choose, const DecisionTrace& meaning) {
  const int n = costs.nodes(), D = costs.devices();
  DecisionDriver driver(control, n, D);
  if (driver.recording()) {
    DecisionTrace& t = driver.trace();
    t.node_score = meaning.node_score;
    t.device_score = meaning.device_score;
    t.node_higher_better = meaning.node_higher_better;
    t.device_higher_better = meaning.device_higher_better;
    t.node_tie_break = meaning.node_tie_break;
    t.device_tie_break = meaning.device_tie_break;
    t.node_scored = meaning.node_scored;
  }
  std::vector<float> selp, plcp(D);
  std::vector<double> est(D), join(D), scratch;
  const bool plcIsProbability = meaning.device_higher_better;
  for (int step = 0; step < n; ++step) {
    const std::vector<int>& ready = episode.ready();
    episode.selProbabilities(selp);
    int pos = driver.active() ? driver.forcedNodePosition(step, ready) : -1;
    const bool nodeForced = pos >= 0;
    if (!nodeForced) pos = choose.node(episode, step, selp);
    const int v = ready[pos];
    episode.deviceProbabilities(v, est.data(), nullptr, plcp.data());
    int dev = driver.active() ? driver.forcedDevice(step) : -1;
    const bool deviceForced = dev >= 0;
    if (!deviceForced) dev = choose.device(episode, step, v, est.data(), plcp.data());
    if (driver.recording()) {
      DecisionStep d;
      d.node = v;
      d.device = dev;
      d.node_overridden = nodeForced;
      d.device_overridden = deviceForced;
      d.ready.reserve(ready.size());
      for (size_t j = 0; j < ready.size(); ++j)
        d.ready.push_back({ready[j], meaning.node_higher_better ? selp[j] : 0.0});
      const uint8_t* allow = episode.allowedFor(v);
      episode.plan().joinTimes(v, est.data(), join.data(), scratch);
      for (int k = 0; k < D; ++k) {
        const double finish = est[k] + costs.compute(v, k);
        const bool ok = allow == nullptr || allow[k] != 0;
        d.devices.push_back(
            {k, plcIsProbability ? (ok ? plcp[k] : 0.0) : est[k], est[k], finish, join[k]});
      }
      driver.record(std::move(d));
    }
    episode.place(pos, dev, est[dev]);
    if (driver.recording())
      driver.trace().steps.back().partial_makespan_us = episode.partialMakespan();
  }
  TracedEpisode out;
  out.assignment = episode.assignment();
  out.order = episode.order();
  out.plan = episode.plan().schedule();
  out.planned_makespan_us = out.plan.makespan_us;
  if (driver.recording()) out.trace = driver.take();
  return out;
}

}  // namespace

TracedEpisode traceEpisode(const PolicyScores* scores, const CostTable& costs,
                           const GraphFeatures& features, const DecisionControl* control,
                           Component sel, Component plc) {
  Episode episode(costs, features, scores, sel, plc);
  Chooser choose;
  choose.node = [](const Episode&, int, const std::vector<float>& selp) {
    return firstMax(selp.data(), static_cast<int>(selp.size()), nullptr);
  };
  choose.device = [&costs](const Episode& e, int, int v, const double*, const float* plcp) {
    return firstMax(plcp, costs.devices(), e.allowedFor(v));
  };
  DecisionTrace meaning;
  meaning.node_score = sel == Component::Learned ? "SEL probability" : "critical-path pick";
  meaning.device_score = plc == Component::Learned ? "PLC probability" : "critical-path pick";
  meaning.node_higher_better = true;
  meaning.device_higher_better = true;
  meaning.node_tie_break = "first in the ready set";  // firstMax
  meaning.device_tie_break = "lower device index first";
  return run(episode, costs, control, choose, meaning);
}

TracedEpisode traceRecorded(const CostTable& costs, const GraphFeatures& features,
                            const std::vector<int>& order, const Assignment& assignment,
                            const DecisionControl* control) {
  const int n = costs.nodes(), D = costs.devices();
  if (static_cast<int>(order.size()) != n || static_cast<int>(assignment.size()) != n)
    throw InputError("", "order",
                     "the recorded decisions cover " + std::to_string(order.size()) + " of " +
                         std::to_string(n) + " nodes");
  Episode episode(costs, features, nullptr, Component::Heuristic, Component::Heuristic);
  // The record is followed up to the first override: at that step, the record's node (unless the
  // node is the override) and from the next step on, the critical-path teacher, since the record
  // has no rule for a state it never reached.
  int first = n;
  if (control)
    for (const DecisionOverride& o : control->overrides) first = std::min(first, o.step);
  Chooser choose;
  choose.node = [&](const Episode& e, int step, const std::vector<float>&) {
    if (step > first) return e.teacherNodePosition();
    const auto& ready = e.ready();
    const auto it = std::find(ready.begin(), ready.end(), order[step]);
    if (it == ready.end())
      throw InputError("", "order",
                       "step " + std::to_string(step) + ": recorded node " +
                           std::to_string(order[step]) + " is not ready");
    return static_cast<int>(it - ready.begin());
  };
  choose.device = [&](const Episode& e, int step, int v, const double* est, const float*) {
    if (step >= first) return e.teacherDevice(v, est);
    const int dev = assignment[v];
    if (dev < 0 || dev >= D)
      throw InputError("", "assignment",
                       "node " + std::to_string(v) + " has no device " + std::to_string(dev));
    return dev;
  };
  DecisionTrace meaning;
  meaning.node_score = "recorded pick";
  meaning.device_score = "earliest start (us)";
  meaning.node_higher_better = false;  // no probabilities: run() records 0 for every node
  meaning.device_higher_better = false;
  TracedEpisode out = run(episode, costs, control, choose, meaning);
  // The recorded order has no scores: 1 marks the pick for readers of the scores, and the trace
  // says so, so that views show "recorded order: no scores" rather than a 1.00 / 0.00 ranking.
  for (DecisionStep& d : out.trace.steps)
    for (CandidateScore& c : d.ready) c.score = c.node == d.node ? 1.0 : 0.0;
  out.trace.node_higher_better = true;
  out.trace.node_scored = false;
  out.trace.node_tie_break = "none: the recorded order decides";
  return out;
}

}  // namespace doppler::policy

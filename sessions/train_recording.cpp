#include "sessions/train_recording.h"

#include <cmath>
#include <map>

#include "core/sim/cost_table.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "sessions/from_core.h"

namespace doppler::sessions {

RunSpec trainRunSpec(const TrainRunInputs& in, const train::TrainConfig& config,
                     const policy::PolicyConfig& architecture) {
  RunSpec spec;
  spec.kind = "train";
  spec.method = "doppler";
  spec.params = {{"graph_file", in.graph_file},
                 {"scale", in.scale},
                 {"devices", in.devices},
                 {"stage", toString(config.stage)},
                 {"from", in.from.empty() ? nlohmann::json() : nlohmann::json(in.from)},
                 {"out", in.out},
                 {"train_config", config.toJson()},
                 {"architecture", architecture.toJson()}};
  spec.seed = config.seed;
  return spec;
}

void appendTrainMetrics(MetricWriter& metrics, const train::TrainProgress& p) {
  const int64_t step = p.episode;
  metrics.append("makespan_us", step, p.makespan_us);
  metrics.append("best_makespan_us", step, p.best_makespan_us);
  if (p.stage == train::Stage::Real)
    metrics.append("rollbacks", step, static_cast<double>(p.rollbacks));
  metrics.append("loss", step, p.loss);
  metrics.append("sel_loss", step, p.sel_loss);
  metrics.append("plc_loss", step, p.plc_loss);
  metrics.append("entropy", step, p.entropy);
  metrics.append("lr", step, p.lr);
  metrics.append("epsilon", step, p.epsilon);
  metrics.append("episodes_per_s", step, p.episodes_per_s);
  if (std::isfinite(p.baseline_us)) metrics.append("baseline_us", step, p.baseline_us);
  if (std::isfinite(p.agreement)) metrics.append("agreement", step, p.agreement);
  if (p.evaluated) metrics.append("greedy_makespan_us", step, p.greedy_makespan_us);
}

PlacementRecord episodeRecord(const DataflowGraph& g, const policy::EpisodeResult& e) {
  PlacementRecord rec = placementRecord(g, e.assignment, e.order);
  rec.decisions.clear();
  for (size_t t = 0; t < e.steps.size(); ++t) {
    const policy::EpisodeStep& s = e.steps[t];
    Decision d;
    d.step = static_cast<int>(t);
    d.node = s.node;
    d.device = s.device;
    for (size_t j = 0; j < s.candidates.size(); ++j) {
      d.sel_candidates.emplace_back(s.candidates[j], s.sel_probs[j]);
      if (s.candidates[j] == s.node) d.sel_prob = s.sel_probs[j];
    }
    d.plc_probs.assign(s.plc_probs.begin(), s.plc_probs.end());
    if (s.device >= 0 && s.device < static_cast<int>(s.plc_probs.size()))
      d.plc_prob = s.plc_probs[s.device];
    rec.decisions.push_back(std::move(d));
  }
  return rec;
}

TrainRunOutcome finishTrainRun(RunStore& store, int64_t run, const DataflowGraph& g,
                               const DeviceSet& d, const train::TrainConfig& config,
                               const train::TrainResult& result, const std::string& checkpoint) {
  const CostTable costs(g, d);
  // Stage III serves the best placement it measured; the others, the final greedy policy's.
  const bool real = config.stage == train::Stage::Real && !result.best_assignment.empty();
  policy::EpisodeResult served = result.greedy;
  if (real) {
    served = {};
    served.assignment = result.best_assignment;
    served.order = result.best_order;
  }
  const SimResult sim = Simulator(costs, config.sim).run(served.assignment, served.order);
  TrainRunOutcome out;
  out.greedy_makespan_us = result.greedy_makespan_us;
  out.lower_bound_us = lowerBound(costs).value();
  store.savePlacement(run, episodeRecord(g, served));
  store.saveTimeline(run, timelineRecord(g, sim.schedule, "simulated"));
  std::map<std::string, double> figures = {
      {"makespan_us", real ? sim.schedule.makespan_us : result.greedy_makespan_us},
      {"best_makespan_us", result.best_makespan_us},
      {"lower_bound_us", out.lower_bound_us},
      {"episodes", static_cast<double>(result.episodes_done)},
      {"distill_updates", static_cast<double>(result.distill_updates)},
      {"seconds", result.seconds}};
  if (config.stage == train::Stage::Real) {
    // Measured microseconds are the executor's (kernels sized for this machine), so they sit
    // beside the simulated makespan under their own names.
    figures["measured_makespan_us"] = result.greedy_makespan_us;
    figures["best_measured_makespan_us"] = result.best_makespan_us;
    figures["rollbacks"] = static_cast<double>(result.rollbacks);
    figures["stopped_early"] = result.stopped_early ? 1 : 0;
  }
  store.setFigures(run, figures);
  for (const std::string& line : result.log) store.addNote(run, line);
  if (!checkpoint.empty())
    store.addCheckpointFile(run, checkpoint, result.episodes_done, toString(config.stage));
  store.finishRun(run, result.cancelled ? RunStatus::Cancelled : RunStatus::Finished);
  return out;
}

}  // namespace doppler::sessions

#include "core/fleet/sim/harness.h"

#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/fleet/sim/baselines.h"

namespace doppler::fleet::sim {

Fidelity parseFidelity(const std::string& name) {
  if (name == "slot") return Fidelity::Slot;
  if (name == "request") return Fidelity::Request;
  throw InputError("", "--fidelity " + name,
                   "unknown fidelity '" + name + "' (known: slot, request)");
}

PreparedScenario prepareScenario(const RunOptions& options) {
  if (options.slots < 1) throw InputError("", "--slots", "must be at least 1");
  if (!(options.slot_seconds > 0)) throw InputError("", "--slot-seconds", "must be positive");
  if (!(options.load >= 0) || options.load > 10)
    throw InputError("", "--load", "must be from 0 to 10");
  if (!(options.time_scale > 0)) throw InputError("", "--time-scale", "must be positive");
  if (!(options.pool_scale > 0)) throw InputError("", "--pool-scale", "must be positive");
  ScenarioOptions so;
  so.topology = options.topology;
  so.trace = options.trace;
  so.world.seed = options.seed;
  so.world.model = options.model;
  so.world.pools.scale = options.pool_scale;
  so.demand.slots = options.slots;
  so.demand.slot_seconds = options.slot_seconds;
  so.demand.horizon = options.horizon;
  so.demand.calendar = options.calendar;
  so.demand.time_scale = options.time_scale;
  PreparedScenario p;
  p.scenario = buildScenario(so);
  p.time_scale = options.time_scale;
  p.capacity = estimateCapacity(p.scenario.world, p.scenario.demand);
  if (options.load > 0 && !(p.capacity.fleet_requests_per_s > 0)) {
    std::ostringstream s;
    s << "the fleet has no capacity for " << options.model << " at pool scale "
      << options.pool_scale << " (no pool has a GPU that holds the model), so no demand reaches "
      << "load " << options.load;
    throw InputError("", "options", s.str());
  }
  // One copy of a trace (stretch, once) keeps its request count over the horizon: a time scale
  // cannot change its mean load, and under `once` it crowded all of it into the first seconds.
  const bool oneCopy = options.trace != "synthetic" && (options.horizon == HorizonRule::Stretch ||
                                                        options.horizon == HorizonRule::Once);
  if (options.load > 0 && oneCopy) p.load_applied = false;
  // Demand rate is proportional to 1 / time scale (trace) or to the synthetic rate, so one
  // rescale hits the target up to the sampling of requests. The calendar's first estimate may
  // rest on a few windows of the trace (8 slots at the trace's own rate are 6 windows), so it is
  // corrected until within 2% of the target, at most three times.
  const int passes = options.horizon == HorizonRule::Calendar ? 3 : 1;
  for (int pass = 0; pass < passes && options.load > 0 && !oneCopy && p.capacity.load_factor > 0 &&
                     (pass == 0 || std::abs(p.capacity.load_factor / options.load - 1) > 0.02);
       ++pass) {
    const double factor = options.load / p.capacity.load_factor;
    p.rate_scale *= factor;
    if (options.trace == "synthetic")
      so.synthetic.mean_rate_per_s *= factor;
    else
      so.demand.time_scale = p.time_scale = p.time_scale / factor;
    Scenario rebuilt = buildScenario(so);
    p.scenario.demand = std::move(rebuilt.demand);
    p.capacity = estimateCapacity(p.scenario.world, p.scenario.demand);
  }
  for (const std::string& text : options.outages) {
    if (options.fidelity == Fidelity::Request)
      throw InputError("", "--outage " + text,
                       "outages are modelled by the slot-level simulator only (--fidelity slot)");
    p.outages.push_back(parseOutage(text, p.scenario.world));
  }
  // Some region must be up in every slot, or nothing could be served (the waits would be
  // infinite).
  if (!p.outages.empty())
    for (int s = 0; s < options.slots; ++s) {
      const double t = (s + 0.5) * options.slot_seconds;
      int down = 0;
      for (int r = 0; r < p.scenario.world.regionCount(); ++r)
        for (const Outage& o : p.outages)
          if (o.region == r && o.covers(t)) {
            ++down;
            break;
          }
      if (down == p.scenario.world.regionCount())
        throw InputError("", "--outage",
                         "every region would be down at once in slot " + std::to_string(s) +
                             ": nothing could serve");
    }
  if (!options.spikes.empty()) {
    for (const std::string& text : options.spikes)
      so.demand.spikes.push_back(parseSpike(text, p.scenario.world));
    Scenario spiked = buildScenario(so);
    p.scenario.demand = std::move(spiked.demand);
    p.capacity = estimateCapacity(p.scenario.world, p.scenario.demand);
  }
  return p;
}

RunOptions trainingRun(const RunOptions& options, uint64_t seed) {
  RunOptions o = options;
  o.seed = seed;
  if (o.horizon == HorizonRule::Calendar) {
    o.calendar.part = TracePart::Train;
    o.calendar.start_week_hour = trainingStartHour(seed, o.slots * o.slot_seconds / 3600.0);
  }
  return o;
}

SimResult runMethod(const PreparedScenario& prepared, const std::string& method,
                    const RunOptions& options) {
  std::unique_ptr<SchedulingPolicy> policy = makePolicy(method);
  return runPolicy(prepared, *policy, options);
}

SimResult runPolicy(const PreparedScenario& prepared, SchedulingPolicy& policy,
                    const RunOptions& options) {
  const auto [context, generated] = meanTokens(prepared.scenario.demand);
  SimOptions sim = options.sim;
  sim.seed = options.seed;
  sim.outages = prepared.outages;
  const FleetModel fleet(prepared.scenario.world, sim, context, generated);
  return options.fidelity == Fidelity::Slot
             ? simulateSlots(fleet, prepared.scenario.demand, policy)
             : simulateRequests(fleet, prepared.scenario.demand, policy);
}

Comparison compareMethods(const RunOptions& options, const std::vector<std::string>& methods,
                          int seeds, const PolicyFactory& factory, const CancelToken& cancel) {
  if (seeds < 1) throw InputError("", "--seeds", "must be at least 1");
  const PolicyFactory make = factory ? factory : PolicyFactory(makePolicy);
  // Every method is built once, before any run: unknown names and unreadable checkpoints fail
  // first, and a learned policy loads its checkpoint once.
  std::map<std::string, std::unique_ptr<SchedulingPolicy>> policies;
  for (const std::string& m : methods) policies[m] = make(m);
  Comparison c;
  c.methods = methods;
  for (int k = 0; k < seeds; ++k) {
    RunOptions run = options;
    run.seed = options.seed + static_cast<uint64_t>(k);
    run.sim.cancel = cancel;  // a run stops at its next slot (RunCancelled)
    const PreparedScenario prepared = prepareScenario(run);
    std::map<std::string, FleetMetrics> seed;
    for (const std::string& m : methods) {
      if (cancel.cancelled()) break;
      try {
        seed[m] = runPolicy(prepared, *policies[m], run).metrics;
      } catch (const RunCancelled&) {
        break;
      }
    }
    if (cancel.cancelled()) {  // this seed unfinished (or finished as the cancel came): dropped
      c.cancelled = true;
      break;
    }
    c.capacity.push_back(prepared.capacity);
    for (const std::string& m : methods) c.runs[m].push_back(std::move(seed[m]));
  }
  return c;
}

std::map<std::string, double> headlineFigures(const FleetMetrics& m) {
  return {{"mean_response_s", m.e2e_s.mean},
          {"p95_response_s", m.e2e_s.p95},
          {"ttft_p95_s", m.ttft_s.p95},
          {"tpot_p95_s", m.tpot_s.p95},
          {"slo_attainment", m.slo_attainment},
          {"mean_queue_s", m.queue_s.mean},
          {"power_cost", m.power_cost_usd},
          {"switches", m.switches},
          {"load_balance", m.load_balance},
          {"utilization", m.utilization},
          {"cross_region_share", m.cross_region_share},
          {"fallbacks", m.fallbacks}};
}

std::map<std::string, double> allFigures(const FleetMetrics& m) {
  std::map<std::string, double> f = headlineFigures(m);
  f["busy_share"] = m.busy_share;
  auto dist = [&](const std::string& name, const Distribution& d) {
    f[name + "_mean_s"] = d.mean;
    f[name + "_p50_s"] = d.p50;
    f[name + "_p90_s"] = d.p90;
    f[name + "_p95_s"] = d.p95;
    f[name + "_p99_s"] = d.p99;
  };
  dist("ttft", m.ttft_s);
  dist("tpot", m.tpot_s);
  dist("e2e", m.e2e_s);
  dist("queue", m.queue_s);
  f["arrivals"] = m.arrivals;
  f["served"] = m.served;
  f["queued"] = m.queued;
  f["rejected"] = m.rejected;
  f["goodput_rps"] = m.goodput_rps;
  f["throughput_rps"] = m.throughput_rps;
  f["tokens_per_s"] = m.tokens_per_s;
  f["energy_kwh"] = m.energy_kwh;
  f["gpu_cost_usd"] = m.gpu_cost_usd;
  f["energy_per_token_j"] = m.energy_per_token_j;
  f["switch_cost"] = m.switch_cost;
  f["migrations"] = m.migrations;
  f["utilization_cv"] = m.utilization_cv;
  f["jain_index"] = m.jain_index;
  f["added_network_s"] = m.added_network_s;
  f["mean_network_s"] = m.mean_network_s;
  f["wall_s"] = m.wall_s;
  return f;
}

}  // namespace doppler::fleet::sim

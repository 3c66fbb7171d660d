#pragma once
// What both fleet simulators share (docs/fleet_sim.md, "Model"): each region's servers, the
// roofline service times they run at, the server autoscaler (TORTA's micro layer, simplified) and
// the options. One model, so the slot-level and the per-request simulator differ only in how
// they move requests, never in what a GPU can do.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/fleet/world/scenario.h"

namespace doppler::fleet::sim {

// Service-level objectives for SLO attainment and goodput. Assumptions, not from a paper: 2 s to
// the first token (the fleet queues at slot scale, so TTFT is dominated by waiting) and 100 ms
// per output token (about 10 tokens/s, faster than reading speed).
struct SloTargets {
  double ttft_s = 2.0;
  double tpot_s = 0.1;
};

struct SimOptions {
  SloTargets slo;
  // The autoscaler keeps enough servers on that the routed demand plus the backlog would load
  // them to this share of their capacity (headroom for bursts within the slot).
  double target_utilization = 0.8;
  // Servers switched off per region and slot at most this share of its pool (at least one):
  // TORTA's micro layer switches servers "gradually".
  double scale_down_share = 0.1;
  // Continuous batching: at most this many sequences per server (vLLM's max_num_seqs default is
  // 256) and at most this many prompt tokens prefilled in one iteration (an assumption).
  int max_batch = 256;
  double prefill_token_budget = 16384;
  // A row of the allocation counts as switched when its L1 change exceeds this.
  double switch_threshold = 0.01;
  uint64_t seed = 1;             // request routing draws (per-request simulator)
  bool check_invariants = true;  // conservation checked every slot (throws on violation)
  // Per-request simulator: after the last slot, requests still in the system finish on the last
  // slot's servers, so every arrival gets a latency (the slot model samples every arrival too).
  bool drain_at_end = true;
  // The forecast a policy sees (SlotState::predicted). 0: the mean of the last 5 slots. In
  // (0, 1]: the true next slot's arrivals, each off by a relative error of ln(1 / accuracy) with
  // a random sign (seeded), so TORTA's prediction accuracy PA = exp(-mean relative error) is this
  // value (less where a minus error would go below zero and is clipped): the knob of the
  // prediction-accuracy sweep.
  double forecast_accuracy = 0;
  // Polled at every slot: once cancelled, the run throws RunCancelled (simulate.h) at the next
  // slot, so a Ctrl-C during `fleet compare` waits for one slot, not for a whole run.
  CancelToken cancel;
  // Regions whose servers are gone for a while (region_events.h); the slot-level simulator only.
  std::vector<Outage> outages;
};

// One GPU type's service model for the world's model: prefill(n) and the decode step
// max(alpha + beta * total_context, gamma * batch), the same formulas as gpu_catalog.h's
// prefillSeconds and decodeStepSeconds, split into their terms so a decode epoch integrates in
// closed form.
struct GpuModel {
  GpuType type{};
  double kv_tokens = 0;                             // KV cache that fits beside the weights
  double prefill_per_token = 0, prefill_floor = 0;  // compute per prompt token; one weights read
  double alpha = 0;                                 // weights read per decode step, s
  double beta = 0;   // KV bytes read per token of context per step, s
  double gamma = 0;  // compute per sequence per step, s
  double idle_w = 0, prefill_w = 0, decode_w = 0, usd_per_hour = 0;

  double prefillSeconds(double tokens) const;
  double stepSeconds(int batch, double total_context) const;
};

enum class ServerState { Off, Warming, On, Draining };

struct Server {
  int region = 0;
  int gpu = 0;  // index into FleetModel::gpus
  ServerState state = ServerState::Off;
  double ready_at = 0;  // Warming: when it can serve
};

// The fleet as the simulators see it: built once per scenario.
class FleetModel {
 public:
  FleetModel(const World& world, const SimOptions& options, double mean_context,
             double mean_generated);

  const World& world() const { return *world_; }
  const SimOptions& options() const { return options_; }
  int regions() const { return world_->regionCount(); }
  const std::vector<GpuModel>& gpus() const { return gpus_; }
  // Region r's servers, fastest (highest request rate) first: the order the autoscaler switches
  // them on, and the reverse of the order it switches them off.
  const std::vector<int>& regionServers(int region) const { return region_servers_[region]; }
  const std::vector<Server>& servers() const { return servers_; }
  double meanContext() const { return mean_context_; }
  double meanGenerated() const { return mean_generated_; }
  // Requests per second one server of this GPU sustains at the demand's mean request sizes
  // (servingRequestsPerSecond), and a region's whole pool.
  double serverRate(int gpu) const { return gpu_rate_[gpu]; }
  double poolRate(int region) const { return pool_rate_[region]; }
  // The largest KV cache of any server in the region (0 if the region has none).
  double regionMaxKv(int region) const { return region_max_kv_[region]; }
  double latency(int from, int to) const { return world_->latency.at(from, to); }
  double price(int region) const { return world_->regions[region].price.usd_per_kwh; }
  // Electricity per request served in the region, in USD: its pool's draw while decoding over the
  // pool's request rate (J per request at full load), at the region's price. What the OT layer's
  // power term weighs (baselines.h OtCost); 0 for a region with no server for the model.
  double requestPowerCost(int region) const { return request_power_usd_[region]; }
  // Whether the region is in an outage at time t (SimOptions::outages).
  bool down(int region, double t) const;

  // The autoscaler's decision: the smallest number of the region's servers (fastest first) whose
  // rates sum to demand_rps / target_utilization; at least one, at most the pool.
  int serversNeeded(int region, double demand_rps) const;
  // The same at another target utilization (TORTA's allocator learns its own).
  int serversNeeded(int region, double demand_rps, double target_utilization) const;

 private:
  const World* world_;
  SimOptions options_;
  double mean_context_, mean_generated_;
  std::vector<GpuModel> gpus_;
  std::vector<double> gpu_rate_, pool_rate_, region_max_kv_, request_power_usd_;
  std::vector<Server> servers_;
  std::vector<std::vector<int>> region_servers_;
};

// The server states of a whole fleet as a run changes them: the autoscaler applied at each slot.
// Both simulators hold one; the per-request simulator also drains servers before they go off.
class ServerPlan {
 public:
  explicit ServerPlan(const FleetModel& fleet);

  // Before the first slot: the first targets switched on warm (no cold start at time 0).
  void startWarm(const std::vector<int>& targets);
  // At a slot's start: Warming servers whose ready_at has passed turn On; then each region moves
  // toward its target: servers switched on start Warming until now + cold start; at most
  // scale-down servers leave, slowest first, as Draining (drained == true: straight to Off).
  // Returns the servers switched on (cold starts).
  int apply(double now, const std::vector<int>& targets, bool drain_immediately);

  std::vector<Server>& servers() { return servers_; }
  const std::vector<Server>& servers() const { return servers_; }
  // Servers On or Warming or Draining (they draw power and cost money).
  int poweredIn(int region) const;
  int onIn(int region) const;  // On only
  void markOff(int server) { servers_[server].state = ServerState::Off; }
  // An outage: every server of the region off at once, whatever it was doing.
  void forceOff(int region);

 private:
  const FleetModel* fleet_;
  std::vector<Server> servers_;
};

// TORTA's demand predictor looks at the last K = 5 slots (digest §3); this one is their mean per
// region, a stand-in for the learned predictor (part 2).
class Forecaster {
 public:
  explicit Forecaster(int regions, int window = 5) : regions_(regions), window_(window) {}
  void observe(const std::vector<double>& arrivals) { history_.push_back(arrivals); }
  std::vector<double> predict() const;

 private:
  int regions_, window_;
  std::vector<std::vector<double>> history_;
};

}  // namespace doppler::fleet::sim

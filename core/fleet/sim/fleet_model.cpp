#include "core/fleet/sim/fleet_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace doppler::fleet::sim {

double GpuModel::prefillSeconds(double tokens) const {
  return std::max(prefill_per_token * tokens, prefill_floor);
}

double GpuModel::stepSeconds(int batch, double total_context) const {
  return std::max(alpha + beta * total_context, gamma * batch);
}

namespace {

GpuModel gpuModel(const GpuSpec& gpu, const World& world) {
  const ModelSpec& model = world.model;
  const RooflineFactors& f = world.roofline;
  GpuModel g;
  g.type = gpu.type;
  g.kv_tokens = kvCapacityTokens(gpu, model, f);
  const double flops = gpu.fp16_tflops * 1e12 * f.mfu;
  const double bytes = gpu.bandwidth_gbs * 1e9 * f.mbu;
  g.prefill_per_token = 2.0 * model.params / flops;
  g.prefill_floor = model.weightBytes() / bytes;
  g.alpha = model.weightBytes() / bytes;
  g.beta = model.kvBytesPerToken() / bytes;
  g.gamma = 2.0 * model.params / flops;
  g.idle_w = gpu.idle_w;
  g.prefill_w = gpu.prefill_w;
  g.decode_w = gpu.decode_w;
  g.usd_per_hour = gpu.usd_per_hour;
  return g;
}

}  // namespace

FleetModel::FleetModel(const World& world, const SimOptions& options, double mean_context,
                       double mean_generated)
    : world_(&world),
      options_(options),
      mean_context_(mean_context),
      mean_generated_(mean_generated) {
  for (const GpuSpec& gpu : world.catalog) {
    gpus_.push_back(gpuModel(gpu, world));
    gpu_rate_.push_back(servingRequestsPerSecond(gpu, world.model, mean_context, mean_generated,
                                                 world.roofline, options.max_batch));
  }
  const int n = world.regionCount();
  pool_rate_.assign(n, 0);
  region_max_kv_.assign(n, 0);
  request_power_usd_.assign(n, 0);
  region_servers_.resize(n);
  for (int r = 0; r < n; ++r) {
    double watts = 0;
    std::vector<int> types(gpus_.size());
    std::iota(types.begin(), types.end(), 0);
    // Fastest first (TORTA's micro layer switches on "best hardware" first); ties by index.
    std::stable_sort(types.begin(), types.end(),
                     [&](int a, int b) { return gpu_rate_[a] > gpu_rate_[b]; });
    for (int gpu : types) {
      // A GPU the model does not fit in serves nothing and is never switched on.
      if (gpus_[gpu].kv_tokens < 1.0) continue;
      for (int k = 0; k < world.regions[r].pool.count[gpu]; ++k) {
        region_servers_[r].push_back(static_cast<int>(servers_.size()));
        servers_.push_back({r, gpu, ServerState::Off, 0});
        pool_rate_[r] += gpu_rate_[gpu];
        watts += gpus_[gpu].decode_w;
        region_max_kv_[r] = std::max(region_max_kv_[r], gpus_[gpu].kv_tokens);
      }
    }
    if (pool_rate_[r] > 0) request_power_usd_[r] = watts / pool_rate_[r] / 3.6e6 * price(r);
  }
}

int FleetModel::serversNeeded(int region, double demand_rps) const {
  return serversNeeded(region, demand_rps, options_.target_utilization);
}

int FleetModel::serversNeeded(int region, double demand_rps, double target_utilization) const {
  const std::vector<int>& list = region_servers_[region];
  const double want = demand_rps / target_utilization;
  double have = 0;
  int count = 0;
  for (int s : list) {
    if (count >= 1 && have >= want) break;
    have += gpu_rate_[servers_[s].gpu];
    ++count;
  }
  return count;
}

ServerPlan::ServerPlan(const FleetModel& fleet) : fleet_(&fleet), servers_(fleet.servers()) {}

void ServerPlan::startWarm(const std::vector<int>& targets) {
  for (int r = 0; r < fleet_->regions(); ++r) {
    const std::vector<int>& list = fleet_->regionServers(r);
    for (size_t k = 0; k < list.size(); ++k)
      servers_[list[k]].state =
          static_cast<int>(k) < targets[r] ? ServerState::On : ServerState::Off;
  }
}

int ServerPlan::apply(double now, const std::vector<int>& targets, bool drain_immediately) {
  int starts = 0;
  const double cold = fleet_->world().warmup.scaledTo(fleet_->world().model).cold_start_s;
  for (int r = 0; r < fleet_->regions(); ++r) {
    const std::vector<int>& list = fleet_->regionServers(r);
    int powered = 0;
    for (int s : list) {
      Server& server = servers_[s];
      if (server.state == ServerState::Warming && server.ready_at <= now)
        server.state = ServerState::On;
      if (server.state == ServerState::On || server.state == ServerState::Warming) ++powered;
    }
    const int target = std::clamp(targets[r], list.empty() ? 0 : 1, static_cast<int>(list.size()));
    if (target > powered) {
      // Fastest first: a Draining server is still loaded, so it comes back without a cold start.
      int missing = target - powered;
      for (int s : list) {
        if (missing == 0) break;
        Server& server = servers_[s];
        if (server.state == ServerState::Draining) {
          server.state = ServerState::On;
          --missing;
        } else if (server.state == ServerState::Off) {
          server.state = ServerState::Warming;
          server.ready_at = now + cold;
          ++starts;
          --missing;
        }
      }
    } else if (target < powered) {
      const int step = std::max(
          1, static_cast<int>(std::floor(fleet_->options().scale_down_share * list.size())));
      int extra = std::min(powered - target, step);
      for (auto it = list.rbegin(); it != list.rend() && extra > 0; ++it) {
        Server& server = servers_[*it];
        if (server.state == ServerState::Warming) {
          server.state = ServerState::Off;  // never served: nothing to drain
          --extra;
        } else if (server.state == ServerState::On) {
          server.state = drain_immediately ? ServerState::Off : ServerState::Draining;
          --extra;
        }
      }
    }
  }
  return starts;
}

int ServerPlan::poweredIn(int region) const {
  int n = 0;
  for (int s : fleet_->regionServers(region))
    if (servers_[s].state != ServerState::Off) ++n;
  return n;
}

int ServerPlan::onIn(int region) const {
  int n = 0;
  for (int s : fleet_->regionServers(region))
    if (servers_[s].state == ServerState::On) ++n;
  return n;
}

std::vector<double> Forecaster::predict() const {
  std::vector<double> out(regions_, 0.0);
  const int k = std::min<int>(window_, static_cast<int>(history_.size()));
  if (k == 0) return out;
  for (int back = 1; back <= k; ++back)
    for (int r = 0; r < regions_; ++r) out[r] += history_[history_.size() - back][r] / k;
  return out;
}

bool FleetModel::down(int region, double t) const {
  for (const Outage& o : options_.outages)
    if (o.region == region && o.covers(t)) return true;
  return false;
}

void ServerPlan::forceOff(int region) {
  for (int s : fleet_->regionServers(region)) servers_[s].state = ServerState::Off;
}

}  // namespace doppler::fleet::sim

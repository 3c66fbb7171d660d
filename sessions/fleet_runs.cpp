#include "sessions/fleet_runs.h"

#include <filesystem>
#include <numeric>

#include "sessions/metric_writer.h"

namespace doppler::sessions {

namespace fs = doppler::fleet::sim;

namespace {

// As the CLI records files (run_recording.h): absolute, so the run can be repeated from anywhere.
std::string absoluteIfFile(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return path;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

}  // namespace

std::string fleetFidelityName(fs::Fidelity fidelity) {
  return fidelity == fs::Fidelity::Request ? "request" : "slot";
}

RunSpec fleetRunSpec(const std::string& method, const fs::RunOptions& o, nlohmann::json extra) {
  RunSpec spec;
  spec.kind = "fleet";
  spec.method = method;
  spec.seed = o.seed;
  spec.params = std::move(extra);
  spec.params["topology"] = absoluteIfFile(o.topology);
  spec.params["trace"] = absoluteIfFile(o.trace);
  spec.params["slots"] = o.slots;
  spec.params["slot_seconds"] = o.slot_seconds;
  spec.params["horizon"] = fleet::toString(o.horizon);
  if (o.horizon == fleet::HorizonRule::Calendar) {
    spec.params["start"] = fleet::weekTimeText(o.calendar.start_week_hour);
    spec.params["profile"] = o.calendar.profile.empty() ? "auto" : o.calendar.profile;
    spec.params["trace_part"] = fleet::toString(o.calendar.part);
  }
  if (!o.spikes.empty()) spec.params["spikes"] = o.spikes;
  if (!o.outages.empty()) spec.params["outages"] = o.outages;
  spec.params["load"] = o.load;
  spec.params["time_scale"] = o.time_scale;
  spec.params["pool_scale"] = o.pool_scale;
  spec.params["model"] = o.model;
  spec.params["fidelity"] = fleetFidelityName(o.fidelity);
  spec.params["ttft_slo_s"] = o.sim.slo.ttft_s;
  spec.params["tpot_slo_s"] = o.sim.slo.tpot_s;
  if (o.sim.forecast_accuracy > 0) spec.params["forecast_accuracy"] = o.sim.forecast_accuracy;
  return spec;
}

// A file's stem, not its whole path, so `runs list` stays readable; params keep the path.
DataflowGraph fleetRunGraph(const std::string& topology) {
  DataflowGraph g;
  std::error_code ec;
  const bool isFile = std::filesystem::is_regular_file(topology, ec);
  g.name = "fleet:" + (isFile ? std::filesystem::path(topology).stem().string() : topology);
  return g;
}

DeviceSet fleetRunDevices(const fs::PreparedScenario& p) {
  DeviceSet d;
  d.name = std::to_string(p.scenario.world.regionCount()) + " regions, " +
           std::to_string(p.scenario.world.totalPool().total()) + " GPUs";
  return d;
}

void appendFleetSeries(MetricWriter& metrics, const fs::SimResult& result) {
  const int queued = metrics.series("queued");
  for (size_t t = 0; t < result.series.queued.size(); ++t)
    metrics.append(queued, static_cast<int64_t>(t), result.series.queued[t]);
}

std::map<std::string, double> fleetCompareFigures(const fs::Comparison& c) {
  std::map<std::string, double> figures;
  for (const std::string& m : c.methods) {
    const auto runs = c.runs.find(m);
    if (runs == c.runs.end() || runs->second.empty()) continue;
    std::map<std::string, double> sums;
    for (const fs::FleetMetrics& run : runs->second)
      for (const auto& [name, value] : fs::headlineFigures(run)) sums[name] += value;
    for (const auto& [name, sum] : sums)
      figures[m + "." + name] = sum / static_cast<double>(runs->second.size());
  }
  return figures;
}

}  // namespace doppler::sessions

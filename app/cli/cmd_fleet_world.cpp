// `doppler fleet world`: build a fleet world (regions, GPU pools, prices, latency) and its demand
// (core/fleet/world, docs/fleet.md) and print a summary of both.
#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/fleet/sim/harness.h"
#include "core/fleet/world/scenario.h"
#include "fleet_cli.h"
#include "output.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

namespace fw = doppler::fleet;

struct FleetWorldArgs : FleetScenarioArgs {
  OutputArgs output;
};

nlohmann::json gpuCounts(const fw::GpuPool& pool) {
  nlohmann::json out = nlohmann::json::object();
  for (fw::GpuType type : fw::kAllGpuTypes) out[fw::gpuSpec(type).name] = pool.of(type);
  return out;
}

struct Summary {
  std::vector<long long> perRegion;
  std::vector<int> perSlot;
  int peakSlot = 0;
};

Summary summarize(const fw::Demand& demand) {
  Summary s;
  s.perRegion = demand.totals.requestsPerRegion();
  s.perSlot = demand.totals.requestsPerSlot();
  s.peakSlot =
      static_cast<int>(std::max_element(s.perSlot.begin(), s.perSlot.end()) - s.perSlot.begin());
  return s;
}

int peakRegionSlot(const fw::Demand& demand) {
  return *std::max_element(demand.totals.requests.begin(), demand.totals.requests.end());
}

nlohmann::json worldJson(const fw::Scenario& sc) {
  const fw::World& world = sc.world;
  const fw::Demand& demand = sc.demand;
  const Summary summary = summarize(demand);
  const fw::CapacityEstimate capacity = fw::estimateCapacity(world, demand);
  nlohmann::json regions = nlohmann::json::array();
  for (int r = 0; r < world.regionCount(); ++r) {
    const fw::Region& region = world.regions[r];
    regions.push_back({{"name", region.name},
                       {"x", region.x},
                       {"y", region.y},
                       {"degree", region.degree},
                       {"gpus", gpuCounts(region.pool)},
                       {"gpu_total", region.pool.total()},
                       {"usd_per_kwh", region.price.usd_per_kwh},
                       {"price_basis", region.price.basis},
                       {"requests", summary.perRegion[r]}});
  }
  nlohmann::json catalog = nlohmann::json::array();
  for (const fw::GpuSpec& gpu : world.catalog)
    catalog.push_back({{"name", gpu.name},
                       {"fp16_tflops", gpu.fp16_tflops},
                       {"memory_gb", gpu.memory_gb},
                       {"bandwidth_gbs", gpu.bandwidth_gbs},
                       {"idle_w", gpu.idle_w},
                       {"prefill_w", gpu.prefill_w},
                       {"decode_w", gpu.decode_w},
                       {"usd_per_hour", gpu.usd_per_hour}});
  nlohmann::json demandSummary = demandJson(demand);
  demandSummary.update({{"slots", demand.totals.slots},
                        {"slot_seconds", demand.slot_seconds},
                        {"horizon_s", demand.horizon_s},
                        {"requests", demand.requests.size()},
                        {"requests_per_region", summary.perRegion},
                        {"peak_slot", summary.peakSlot},
                        {"peak_slot_requests", summary.perSlot[summary.peakSlot]},
                        {"peak_region_slot_requests", peakRegionSlot(demand)},
                        {"mean_context_tokens", capacity.mean_context_tokens},
                        {"mean_generated_tokens", capacity.mean_generated_tokens}});
  return {
      {"topology", world.topology},
      {"coordinates", world.coordinates == fw::Coordinates::LonLat ? "lonlat" : "planar_km"},
      {"seed", world.seed},
      {"model", world.model.name},
      {"regions", regions},
      {"links", world.links.size()},
      {"gpus", gpuCounts(world.totalPool())},
      {"catalog", catalog},
      {"latency_s",
       {{"min", world.latency.minOffDiagonal()},
        {"mean", world.latency.meanOffDiagonal()},
        {"max", world.latency.maxOffDiagonal()}}},
      {"demand", demandSummary},
      {"capacity",
       {{"fleet_requests_per_s", capacity.fleet_requests_per_s},
        {"demand_requests_per_s", capacity.demand_requests_per_s},
        {"load_factor", capacity.load_factor}}},
  };
}

std::string worldText(const fw::Scenario& sc) {
  const fw::World& world = sc.world;
  const fw::Demand& demand = sc.demand;
  const Summary summary = summarize(demand);
  const fw::CapacityEstimate capacity = fw::estimateCapacity(world, demand);
  const bool planar = world.coordinates == fw::Coordinates::PlanarKm;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"region", planar ? "x km" : "lon", planar ? "y km" : "lat"};
  for (const fw::GpuSpec& gpu : world.catalog) header.push_back(gpu.name);
  for (const char* h : {"GPUs", "$/kWh", "price", "requests"}) header.push_back(h);
  rows.push_back(header);
  for (int r = 0; r < world.regionCount(); ++r) {
    const fw::Region& region = world.regions[r];
    std::vector<std::string> row = {region.name, fixedNumber(region.x, 2),
                                    fixedNumber(region.y, 2)};
    for (fw::GpuType type : fw::kAllGpuTypes) row.push_back(std::to_string(region.pool.of(type)));
    row.push_back(std::to_string(region.pool.total()));
    row.push_back(fixedNumber(region.price.usd_per_kwh, 3));
    row.push_back(region.price.basis);
    row.push_back(std::to_string(summary.perRegion[r]));
    rows.push_back(row);
  }
  std::vector<Align> align(header.size(), Align::Right);
  align[0] = Align::Left;
  align[header.size() - 2] = Align::Left;
  std::ostringstream s;
  s << "topology    " << world.topology << " (" << world.regionCount() << " regions, "
    << world.links.size() << " links, " << (planar ? "planar km" : "lon/lat") << ")\n"
    << "model       " << world.model.name << ", seed " << world.seed << "\n\n"
    << textTable(rows, align) << "\n"
    << "latency     one-way, min " << fixedNumber(world.latency.minOffDiagonal() * 1e3, 2)
    << " ms, mean " << fixedNumber(world.latency.meanOffDiagonal() * 1e3, 2) << " ms, max "
    << fixedNumber(world.latency.maxOffDiagonal() * 1e3, 2) << " ms\n"
    << "demand      " << demand.source << ": " << demand.requests.size() << " requests over "
    << demand.totals.slots << " slots of " << shortNumber(demand.slot_seconds) << " s ("
    << fixedNumber(demand.horizon_s / 3600.0, 2) << " h";
  s << ", " << demandText(demand) << ")\n"
    << "peak slot   " << summary.perSlot[summary.peakSlot] << " requests (slot " << summary.peakSlot
    << "), busiest region-slot " << peakRegionSlot(demand) << "\n"
    << "capacity    " << fixedNumber(capacity.fleet_requests_per_s, 1)
    << " requests/s (roofline, mean request " << fixedNumber(capacity.mean_context_tokens, 0)
    << " + " << fixedNumber(capacity.mean_generated_tokens, 0) << " tokens); demand "
    << fixedNumber(capacity.demand_requests_per_s, 2) << "/s, load factor "
    << fixedNumber(capacity.load_factor, 4) << "\n";
  return s.str();
}

void runFleetWorld(const FleetWorldArgs& args) {
  fw::findModel(args.model);  // an unknown model is refused before anything is read
  // The one way a fleet scenario is built (fleet::sim::prepareScenario), as `simulate`, `compare`,
  // `train` and the studio build theirs; load 0: the demand as the trace and options give it.
  const fw::Scenario scenario = fleet::sim::prepareScenario(scenarioRunOptions(args, 0)).scenario;
  writeResult(
      args.output, [&] { return worldJson(scenario); }, [&] { return worldText(scenario); });
}

}  // namespace

void addFleetWorldCommand(CLI::App& fleet) {
  auto args = std::make_shared<FleetWorldArgs>();
  CLI::App* cmd = fleet.add_subcommand(
      "world", "Build the fleet's regions, GPU pools, prices, latency and demand; summarise them");
  addFleetScenarioOptions(*cmd, *args, "Seed for pools, prices, region spreading and bursts",
                          "Multiply the trace's times first (0.5 doubles the arrival rate)");
  addOutputOptions(*cmd, args->output);
  cmd->callback([args] { runFleetWorld(*args); });
}

}  // namespace doppler::cli

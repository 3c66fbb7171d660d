#include "app/studio/placement_compute.h"

#include <cctype>
#include <chrono>
#include <filesystem>

#include "core/graph/device_presets.h"
#include "core/graph/graph_io.h"
#include "core/graph/input_error.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"

namespace doppler::studio {

DeviceSet loadDevicesSpec(const std::string& s) {
  if (std::filesystem::exists(s)) return readDeviceFile(s);
  bool digits = !s.empty() && s.size() < 6;
  for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) {
    const int n = std::stoi(s);
    if (n < 1 || n > 4096)
      throw InputError("", "devices", "device count must be between 1 and 4096, got " + s);
    return DeviceSet::uniform(n);
  }
  for (const auto& p : devicePresets())
    if (p.name == s) return devicePreset(s);
  std::string known;
  for (const auto& p : devicePresets()) known += (known.empty() ? "" : ", ") + p.name;
  throw InputError(s, "devices",
                   "no such file, and not a device count or a preset (presets: " + known + ")");
}

PlacementInputs makeInputs(std::shared_ptr<const DataflowGraph> graph,
                           std::shared_ptr<const DeviceSet> devices, std::string spec) {
  PlacementInputs in;
  in.costs = std::make_shared<const CostTable>(*graph, *devices);  // checks the device count
  in.lowerBound = lowerBound(*in.costs).value();
  in.graph = std::move(graph);
  in.devices = std::move(devices);
  in.devicesSpec = std::move(spec);
  return in;
}

views::SnapshotPtr computePlacement(const PlacementInputs& in, const views::PlacementSettings& s,
                                    const CancelToken& cancel, ProgressFn progress,
                                    const views::PlacementSnapshot* previous) {
  const auto t0 = std::chrono::steady_clock::now();
  const Method& method = findMethod(s.method);
  Params params(method.params(), s.params);
  if (s.budget < 1) throw InputError("", "budget", "must be at least 1");
  SimOptions sim;
  sim.model = s.cost_model;
  sim.noise = s.noise;
  sim.seed = s.seed;
  PlaceContext ctx{*in.costs, sim, s.seed, s.budget, std::move(progress), cancel};
  Placement placement = method.place(ctx, params);
  validateAssignment(placement.assignment, *in.costs);
  Simulator simulator(*in.costs, sim);

  auto out = std::make_shared<views::PlacementSnapshot>();
  out->sim = simulator.run(placement.assignment);
  out->graph = in.graph;
  out->devices = in.devices;
  out->costs = in.costs;
  out->devices_spec = in.devicesSpec;
  out->settings = s;
  out->resolved_params = params.values();
  out->assignment = std::move(placement.assignment);
  if (placement.planned) out->planned_makespan_us = placement.planned->makespan_us;
  out->lower_bound_us = in.lowerBound;
  out->evaluations = placement.evaluations;
  out->cancelled = placement.cancelled;
  if (previous && previous->graph == in.graph && previous->devices &&
      previous->devices->size() == in.devices->size()) {
    out->previous_makespan_us = previous->makespan();
    for (size_t v = 0; v < out->assignment.size(); ++v)
      if (out->assignment[v] != previous->assignment[v]) out->moved.push_back(static_cast<int>(v));
  }
  out->compute_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace doppler::studio

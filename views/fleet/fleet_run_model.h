#pragma once
// The fleet workbench's model (docs/fleet_workbench.md): one scenario's world, each method's
// simulation of it on the shown seed (the full SimResult: per-slot series, per-region series,
// allocations, explanations), each method's figures on every seed, and what is selected (slot,
// region, the method the map and the decision trace show). The views paint what it answers, so
// the tests check the numbers here and the views only draw them.
#include <QObject>
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/fleet/sim/harness.h"

namespace doppler::views {

// What the heatmap colours per (slot, region).
enum class HeatMetric {
  // The region's share of the requests the fleet serves in the slot (routed there / all routed):
  // where the method sends the load. Unlike utilization (the autoscaler keeps it near 1, all
  // yellow at load 0.7), it varies with the method's routing at any load.
  LoadShare,
  // Busy share of the region's whole pool: the On servers' utilization x their share of the
  // pool's rate. The autoscaler keeps On servers near 1, so this is what shows load.
  PoolUtilization,
  Utilization,         // busy share of the region's On servers during the slot
  Queue,               // backlog at the slot's start, requests
  DemandOverCapacity,  // requests homed in the region / what its whole pool serves in a slot
};
QString heatMetricName(HeatMetric metric);

// One arrow of the map: requests of region `from` that the allocation sends to `to` in a slot.
struct FleetFlow {
  int from = 0, to = 0;
  double share = 0;     // allocation[from][to]
  double requests = 0;  // share x the slot's arrivals homed at `from`
};

// The scenario the results are of, for labels.
struct FleetScenarioInfo {
  std::string topology, trace, fidelity;
  int slots = 0;
  double slot_seconds = 45;
  uint64_t seed = 1;  // the shown seed (a comparison's first)
  int seeds = 1;
  double load_factor = 0;
  double start_utc_hour = 0;  // the horizon's start, for the slots' time of day
  // On the calendar horizon: its start in hours since Monday 00:00 UTC, so the slots say their
  // day too; < 0 otherwise.
  double start_week_hour = -1;
};

// A method's headline figures over seeds: mean and 95% confidence half-width.
struct FleetMethodSummary {
  std::string method;
  int seeds = 0;
  std::map<std::string, double> mean, ci95;
  int fallbacks = 0;  // on the shown seed
};

class FleetRunModel : public QObject {
  Q_OBJECT
 public:
  // The reference every regret is measured against: OT-only on the same seed.
  static constexpr const char* kReferenceMethod = "ot";

  explicit FleetRunModel(QObject* parent = nullptr);
  ~FleetRunModel() override;

  // A new scenario: drops every result. `methods` are the methods asked for, in order (the
  // reference may be run alongside without being one of them).
  void reset(std::shared_ptr<const fleet::World> world, FleetScenarioInfo info,
             std::vector<std::string> methods);
  void clear();
  // A method's run on the shown seed (its figures count as that seed's too).
  void setResult(const std::string& method, std::shared_ptr<const fleet::sim::SimResult> result);
  // A method's figures on another seed of a comparison.
  void addSeedMetrics(const std::string& method, const fleet::sim::FleetMetrics& metrics);

  bool empty() const { return results_.empty(); }
  const fleet::World* world() const { return world_.get(); }
  const FleetScenarioInfo& info() const { return info_; }
  int regions() const { return world_ ? world_->regionCount() : 0; }
  int slots() const { return info_.slots; }
  // The methods asked for that have a result, in the order asked.
  std::vector<std::string> methods() const;
  // Null when the method has no result.
  const fleet::sim::SimResult* result(const std::string& method) const;
  std::vector<FleetMethodSummary> summaries() const;

  // --- Selection.
  int slot() const { return slot_; }
  void setSlot(int slot);  // clamped to the slots
  int region() const { return region_; }
  void setRegion(int region);  // -1: none
  // The method the map and the decision trace show ("" before any result).
  const std::string& method() const { return method_; }
  void setMethod(const std::string& method);

  // --- What the views show.
  // The off-diagonal entries of the method's allocation in `slot` as request flows, largest
  // first; only those of at least `minRequests`.
  std::vector<FleetFlow> flows(const std::string& method, int slot, double minRequests = 0) const;
  // The largest flow of the method over every slot (the map's width scale, steady while playing).
  double maxFlow(const std::string& method) const;
  double heat(HeatMetric metric, const std::string& method, int slot, int region) const;
  // The largest value of `metric` over the method's run.
  double heatMax(HeatMetric metric, const std::string& method) const;
  // The top of the colour scale for `metric`, shared by the map and the heatmap: 1 for the
  // utilizations (a share of servers), at least 1 for demand ÷ capacity, else the run's largest
  // value rounded up to a round number, so that the colours use the whole scale.
  double heatScaleMax(HeatMetric metric, const std::string& method) const;

  // The decision trace. The reference is the method's own explanation of the slot (TORTA: the
  // slot's OT plan) where it gives one, else the OT plan the reference run chose in that slot.
  // Empty allocations (regions 0) when neither is there.
  fleet::sim::Allocation allocation(const std::string& method, int slot) const;
  fleet::sim::Allocation reference(const std::string& method, int slot) const;
  bool referenceIsOwn(const std::string& method, int slot) const;
  // allocation - reference, entry by entry.
  fleet::sim::Allocation difference(const std::string& method, int slot) const;
  // The method's mean response in `slot` minus OT-only's on the same seed, seconds (positive:
  // worse than OT-only); none without the reference run or for a slot nothing arrived in.
  std::optional<double> regret(const std::string& method, int slot) const;
  std::vector<double> regretSeries(const std::string& method) const;  // NaN where none
  std::vector<int> fallbackSlots(const std::string& method) const;
  QString fallbackReason(const std::string& method, int slot) const;

  // "slot 240 / 480 · 15:00 UTC (+3:00 h)".
  QString slotLabel(int slot) const;

 Q_SIGNALS:
  void resultsChanged();    // a new scenario or another method's result
  void selectionChanged();  // slot, region or method

 private:
  std::shared_ptr<const fleet::World> world_;
  FleetScenarioInfo info_;
  std::vector<std::string> asked_;
  std::map<std::string, std::shared_ptr<const fleet::sim::SimResult>> results_;
  std::map<std::string, std::vector<fleet::sim::FleetMetrics>> seedMetrics_;
  int slot_ = 0, region_ = -1;
  std::string method_;
};

}  // namespace doppler::views

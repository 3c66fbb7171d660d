#include "views/fleet/fleet_run_model.h"

#include <algorithm>
#include <cmath>

#include "core/fleet/sim/metrics.h"
#include "core/fleet/world/week_profile.h"
#include "views/common/nice_ticks.h"

namespace doppler::views {

namespace fs = doppler::fleet::sim;

QString heatMetricName(HeatMetric metric) {
  switch (metric) {
    case HeatMetric::LoadShare:
      return QObject::tr("share of the fleet's load");
    case HeatMetric::PoolUtilization:
      return QObject::tr("busy share of the pool");
    case HeatMetric::Utilization:
      return QObject::tr("busy share of On servers");
    case HeatMetric::Queue:
      return QObject::tr("queue (requests)");
    case HeatMetric::DemandOverCapacity:
      return QObject::tr("demand ÷ capacity");
  }
  return {};
}

FleetRunModel::FleetRunModel(QObject* parent) : QObject(parent) {}
FleetRunModel::~FleetRunModel() = default;

void FleetRunModel::reset(std::shared_ptr<const fleet::World> world, FleetScenarioInfo info,
                          std::vector<std::string> methods) {
  world_ = std::move(world);
  info_ = std::move(info);
  asked_ = std::move(methods);
  results_.clear();
  seedMetrics_.clear();
  region_ = -1;
  slot_ = std::clamp(slot_, 0, std::max(0, info_.slots - 1));
  method_ = asked_.empty() ? std::string() : asked_.front();
  Q_EMIT resultsChanged();
  Q_EMIT selectionChanged();
}

void FleetRunModel::clear() {
  reset(nullptr, {}, {});
}

void FleetRunModel::setResult(const std::string& method,
                              std::shared_ptr<const fs::SimResult> result) {
  if (!result) return;
  seedMetrics_[method].insert(seedMetrics_[method].begin(), result->metrics);
  results_[method] = std::move(result);
  Q_EMIT resultsChanged();
}

void FleetRunModel::addSeedMetrics(const std::string& method, const fs::FleetMetrics& metrics) {
  seedMetrics_[method].push_back(metrics);
  Q_EMIT resultsChanged();
}

std::vector<std::string> FleetRunModel::methods() const {
  std::vector<std::string> out;
  for (const std::string& m : asked_)
    if (results_.count(m)) out.push_back(m);
  return out;
}

const fs::SimResult* FleetRunModel::result(const std::string& method) const {
  const auto it = results_.find(method);
  return it == results_.end() ? nullptr : it->second.get();
}

std::vector<FleetMethodSummary> FleetRunModel::summaries() const {
  std::vector<FleetMethodSummary> out;
  for (const std::string& m : asked_) {
    const auto it = seedMetrics_.find(m);
    if (it == seedMetrics_.end() || it->second.empty()) continue;
    FleetMethodSummary s;
    s.method = m;
    s.seeds = static_cast<int>(it->second.size());
    std::map<std::string, std::vector<double>> values;
    for (const fs::FleetMetrics& run : it->second)
      for (const auto& [name, value] : fs::headlineFigures(run)) values[name].push_back(value);
    for (const auto& [name, v] : values) {
      double sum = 0;
      for (double x : v) sum += x;
      s.mean[name] = sum / static_cast<double>(v.size());
      s.ci95[name] = fs::ci95HalfWidth(v);
    }
    if (const fs::SimResult* r = result(m)) s.fallbacks = r->fallbacks;
    out.push_back(std::move(s));
  }
  return out;
}

void FleetRunModel::setSlot(int slot) {
  slot = std::clamp(slot, 0, std::max(0, info_.slots - 1));
  if (slot == slot_) return;
  slot_ = slot;
  Q_EMIT selectionChanged();
}

void FleetRunModel::setRegion(int region) {
  if (region < -1 || region >= regions()) region = -1;
  if (region == region_) return;
  region_ = region;
  Q_EMIT selectionChanged();
}

void FleetRunModel::setMethod(const std::string& method) {
  if (method == method_) return;
  method_ = method;
  Q_EMIT selectionChanged();
}

std::vector<FleetFlow> FleetRunModel::flows(const std::string& method, int slot,
                                            double minRequests) const {
  std::vector<FleetFlow> out;
  const fs::SimResult* r = result(method);
  if (!r || slot < 0 || slot >= static_cast<int>(r->allocations.size())) return out;
  const fs::Allocation& a = r->allocations[slot];
  const fs::RegionSeries& rs = r->region_series;
  for (int i = 0; i < a.regions; ++i) {
    const double arrivals = rs.regions == a.regions ? rs.at(rs.arrivals, slot, i) : 0.0;
    for (int j = 0; j < a.regions; ++j) {
      if (i == j || a.at(i, j) <= 0) continue;
      const double requests = a.at(i, j) * arrivals;
      if (requests > 0 && requests >= minRequests) out.push_back({i, j, a.at(i, j), requests});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const FleetFlow& x, const FleetFlow& y) { return x.requests > y.requests; });
  return out;
}

double FleetRunModel::maxFlow(const std::string& method) const {
  const fs::SimResult* r = result(method);
  double best = 0;
  if (!r) return best;
  for (int t = 0; t < static_cast<int>(r->allocations.size()); ++t) {
    const std::vector<FleetFlow> f = flows(method, t);
    if (!f.empty()) best = std::max(best, f.front().requests);
  }
  return best;
}

double FleetRunModel::heat(HeatMetric metric, const std::string& method, int slot,
                           int region) const {
  const fs::SimResult* r = result(method);
  if (!r) return 0;
  const fs::RegionSeries& rs = r->region_series;
  if (region < 0 || region >= rs.regions || slot < 0 ||
      static_cast<size_t>(slot) * rs.regions >= rs.utilization.size())
    return 0;
  switch (metric) {
    case HeatMetric::LoadShare: {
      double all = 0;
      for (int k = 0; k < rs.regions; ++k) all += rs.at(rs.routed, slot, k);
      return all > 0 ? rs.at(rs.routed, slot, region) / all : 0.0;
    }
    case HeatMetric::PoolUtilization: {
      const double pool = rs.at(rs.pool_rps, slot, region);
      return pool > 0
                 ? rs.at(rs.utilization, slot, region) * rs.at(rs.capacity_rps, slot, region) / pool
                 : 0.0;
    }
    case HeatMetric::Utilization:
      return rs.at(rs.utilization, slot, region);
    case HeatMetric::Queue:
      return rs.at(rs.queued, slot, region);
    case HeatMetric::DemandOverCapacity: {
      const double perSlot = rs.at(rs.pool_rps, slot, region) * info_.slot_seconds;
      return perSlot > 0 ? rs.at(rs.arrivals, slot, region) / perSlot : 0.0;
    }
  }
  return 0;
}

double FleetRunModel::heatMax(HeatMetric metric, const std::string& method) const {
  const fs::SimResult* r = result(method);
  if (!r) return 0;
  double best = 0;
  const int n = r->region_series.regions;
  const int slots = n > 0 ? static_cast<int>(r->region_series.utilization.size()) / n : 0;
  for (int t = 0; t < slots; ++t)
    for (int i = 0; i < n; ++i) best = std::max(best, heat(metric, method, t, i));
  return best;
}

double FleetRunModel::heatScaleMax(HeatMetric metric, const std::string& method) const {
  switch (metric) {
    case HeatMetric::PoolUtilization:
    case HeatMetric::Utilization:
      return 1.0;
    case HeatMetric::DemandOverCapacity:
      return std::max(1.0, heatMax(metric, method));
    case HeatMetric::LoadShare:
    case HeatMetric::Queue:
      break;
  }
  const double most = heatMax(metric, method);
  if (!(most > 0)) return 1.0;
  const double step = niceStep(most, 4);
  return std::ceil(most / step - 1e-9) * step;
}

fs::Allocation FleetRunModel::allocation(const std::string& method, int slot) const {
  const fs::SimResult* r = result(method);
  if (!r || slot < 0 || slot >= static_cast<int>(r->allocations.size())) return {};
  return r->allocations[slot];
}

bool FleetRunModel::referenceIsOwn(const std::string& method, int slot) const {
  const fs::SimResult* r = result(method);
  return r && slot >= 0 && slot < static_cast<int>(r->explanations.size()) &&
         r->explanations[slot].has_reference;
}

fs::Allocation FleetRunModel::reference(const std::string& method, int slot) const {
  if (referenceIsOwn(method, slot)) return result(method)->explanations[slot].reference;
  return allocation(kReferenceMethod, slot);
}

fs::Allocation FleetRunModel::difference(const std::string& method, int slot) const {
  const fs::Allocation a = allocation(method, slot);
  const fs::Allocation ref = reference(method, slot);
  if (a.regions == 0 || ref.regions != a.regions) return {};
  fs::Allocation d(a.regions);
  for (size_t k = 0; k < d.share.size(); ++k) d.share[k] = a.share[k] - ref.share[k];
  return d;
}

std::optional<double> FleetRunModel::regret(const std::string& method, int slot) const {
  const fs::SimResult* r = result(method);
  const fs::SimResult* ot = result(kReferenceMethod);
  if (!r || !ot || slot < 0) return std::nullopt;
  const auto& mine = r->series.mean_response_s;
  const auto& theirs = ot->series.mean_response_s;
  if (slot >= static_cast<int>(mine.size()) || slot >= static_cast<int>(theirs.size()))
    return std::nullopt;
  if (r->series.arrivals[slot] <= 0 || ot->series.arrivals[slot] <= 0) return std::nullopt;
  return mine[slot] - theirs[slot];
}

std::vector<double> FleetRunModel::regretSeries(const std::string& method) const {
  std::vector<double> out(static_cast<size_t>(std::max(0, info_.slots)), NAN);
  for (int t = 0; t < info_.slots; ++t)
    if (const auto v = regret(method, t)) out[t] = *v;
  return out;
}

std::vector<int> FleetRunModel::fallbackSlots(const std::string& method) const {
  std::vector<int> out;
  if (const fs::SimResult* r = result(method))
    for (int t = 0; t < static_cast<int>(r->explanations.size()); ++t)
      if (r->explanations[t].fallback) out.push_back(t);
  return out;
}

QString FleetRunModel::fallbackReason(const std::string& method, int slot) const {
  const fs::SimResult* r = result(method);
  if (!r || slot < 0 || slot >= static_cast<int>(r->explanations.size()) ||
      !r->explanations[slot].fallback)
    return {};
  return QString::fromStdString(r->explanations[slot].reason);
}

QString FleetRunModel::slotLabel(int slot) const {
  const double startS = slot * info_.slot_seconds;
  if (info_.start_week_hour >= 0) {
    const int since = static_cast<int>(std::lround(startS / 60));
    return QObject::tr("slot %1 / %2 · %3 UTC (+%4:%5 h)")
        .arg(slot)
        .arg(info_.slots)
        .arg(QString::fromStdString(fleet::weekTimeText(info_.start_week_hour + startS / 3600.0)))
        .arg(since / 60)
        .arg(since % 60, 2, 10, QLatin1Char('0'));
  }
  double hour = std::fmod(info_.start_utc_hour + startS / 3600.0, 24.0);
  if (hour < 0) hour += 24;
  const int minutes = static_cast<int>(std::lround(hour * 60)) % (24 * 60);
  const int since = static_cast<int>(std::lround(startS / 60));
  return QObject::tr("slot %1 / %2 · %3:%4 UTC (+%5:%6 h)")
      .arg(slot)
      .arg(info_.slots)
      .arg(minutes / 60, 2, 10, QLatin1Char('0'))
      .arg(minutes % 60, 2, 10, QLatin1Char('0'))
      .arg(since / 60)
      .arg(since % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace doppler::views

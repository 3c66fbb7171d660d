#include "core/fleet/sim/baselines.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/fleet/ot/solve_transport.h"
#include "core/fleet/ot/unbalanced_transport.h"

namespace doppler::fleet::sim {
namespace {

// Requests per slot each region's whole pool serves (what the autoscaler can switch on).
std::vector<double> poolCapacity(const SlotState& s) {
  std::vector<double> cap(s.regions());
  for (int j = 0; j < s.regions(); ++j) cap[j] = s.poolRate(j) * s.slot_seconds;
  return cap;
}

// Regions other than `from`, nearest first (ties by index).
std::vector<int> byLatency(const SlotState& s, int from) {
  std::vector<int> order;
  for (int j = 0; j < s.regions(); ++j)
    if (j != from) order.push_back(j);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return s.latency(from, a) < s.latency(from, b); });
  return order;
}

// Each region keeps what fits its own `room`; the overflow goes to the nearest regions with room
// left, in passes over the room vectors given (warm first, then cold). What fits nowhere stays
// home. Rows are filled in order of decreasing overflow, so the largest spill chooses first.
Allocation localFirstSpill(const SlotState& s, std::vector<std::vector<double>> rooms) {
  const int n = s.regions();
  Allocation a(n);
  std::vector<double> overflow(n);
  for (int i = 0; i < n; ++i) {
    double left = s.arrivals[i];
    for (std::vector<double>& room : rooms) {
      const double keep = std::min(left, std::max(0.0, room[i]));
      room[i] -= keep;
      a.at(i, i) += keep;
      left -= keep;
    }
    overflow[i] = left;
  }
  std::vector<int> rows(n);
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(),
                   [&](int x, int y) { return overflow[x] > overflow[y]; });
  for (int i : rows) {
    if (overflow[i] <= 0) continue;
    const std::vector<int> order = byLatency(s, i);
    for (std::vector<double>& room : rooms)
      for (int j : order) {
        if (overflow[i] <= 0) break;
        const double move = std::min(overflow[i], std::max(0.0, room[j]));
        room[j] -= move;
        a.at(i, j) += move;
        overflow[i] -= move;
      }
    a.at(i, i) += overflow[i];
  }
  normalizeRows(a);
  return a;
}

// Every row sends its requests in the same proportions `x` (columns), normalised.
Allocation sameRows(int n, const std::vector<double>& x) {
  Allocation a(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a.at(i, j) = x[j];
  normalizeRows(a);
  return a;
}

class LocalPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "local"; }
  Allocation allocate(const SlotState& s) override { return Allocation::identity(s.regions()); }
};

// Round-robin over all regions: in the fluid limit, an even split of every region's requests.
class RoundRobinPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "round-robin"; }
  Allocation allocate(const SlotState& s) override { return Allocation::uniform(s.regions()); }
};

// Least-loaded / join-the-shortest-queue, in its fluid form: the slot's requests water-fill the
// regions so each ends the slot at the same backlog over pool capacity. (Sending a whole slot to
// the one shortest queue would herd every region onto it.)
class LeastLoadedPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "least-loaded"; }
  Allocation allocate(const SlotState& s) override {
    const double total = std::accumulate(s.arrivals.begin(), s.arrivals.end(), 0.0);
    if (total <= 0) return Allocation::identity(s.regions());
    return sameRows(s.regions(), waterFill(total, poolCapacity(s), s.queued));
  }
};

// SkyLB-like (Xia et al., arXiv 2505.24095, as the TORTA paper re-implements it): local first,
// overflow to the nearest regions; warm-model affinity as preferring capacity already On (warm)
// before capacity that would need a cold start. Room is the target utilization's share of the
// capacity, less the backlog.
class SkyLbPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "skylb"; }
  Allocation allocate(const SlotState& s) override {
    const int n = s.regions();
    const double u = s.fleet->options().target_utilization;
    std::vector<double> warm(n), cold(n);
    for (int j = 0; j < n; ++j) {
      warm[j] = u * s.capacity_rps[j] * s.slot_seconds - s.queued[j];
      cold[j] = u * (s.poolRate(j) - s.capacity_rps[j]) * s.slot_seconds + std::min(0.0, warm[j]);
    }
    return localFirstSpill(s, {warm, cold});
  }
};

// SDIB-like (load standard deviation plus idle-time balancing, after MERL-LB, as TORTA describes
// it): each region's intake aims at the fleet's mean utilization of pool capacity, tilted toward
// regions that were idle last slot; surpluses go to the nearest regions with a deficit.
class SdibPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "sdib"; }
  Allocation allocate(const SlotState& s) override {
    const int n = s.regions();
    const std::vector<double> cap = poolCapacity(s);
    const double total = std::accumulate(s.arrivals.begin(), s.arrivals.end(), 0.0);
    if (total <= 0) return Allocation::identity(n);
    std::vector<double> intake = waterFill(total, cap, s.queued);
    double meanIdle = 0;
    for (int j = 0; j < n; ++j) meanIdle += (1.0 - std::min(1.0, s.utilization[j])) / n;
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      // Idle balancing: +-50% of the intake for a region fully idle / fully busy against the
      // mean (the weight is an assumption; the paper gives none).
      const double idle = 1.0 - std::min(1.0, s.utilization[j]);
      intake[j] *= std::max(0.0, 1.0 + kIdleWeight * (idle - meanIdle));
      sum += intake[j];
    }
    for (double& x : intake) x = sum > 0 ? x * total / sum : 0;
    return localFirstSpill(s, {intake});
  }

 private:
  static constexpr double kIdleWeight = 0.5;
};

}  // namespace

namespace {

// The power-weighted plan (OtCost): arrivals to each region's capacity at the cap, latency plus
// the region's electricity per request. False when the capacities cannot take the arrivals.
bool powerPlan(const SlotState& s, const std::vector<double>& column_weights, const OtCost& cost,
               double total, Allocation& out) {
  const int n = s.regions();
  ot::TransportProblem p;
  p.a = s.arrivals;
  p.b.resize(n);
  double room = 0, maxLatency = 0, meanPower = 0;
  for (int j = 0; j < n; ++j) {
    const double weight = column_weights.empty() ? 1.0 : column_weights[j];
    room += p.b[j] =
        std::max(0.0, cost.region_cap * s.poolRate(j) * s.slot_seconds - s.queued[j]) * weight;
    meanPower += s.fleet->requestPowerCost(j) / n;
    for (int i = 0; i < n; ++i) maxLatency = std::max(maxLatency, s.latency(i, j));
  }
  if (room < total * (1.0 + ot::kBalanceTolerance)) return false;
  p.cost = ot::Matrix(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      p.cost(i, j) =
          (maxLatency > 0 ? s.latency(i, j) / maxLatency : 0.0) +
          (meanPower > 0 ? cost.power_weight * s.fleet->requestPowerCost(j) / meanPower : 0.0);
  const ot::TransportResult r = ot::solveUnbalanced(p);
  out = Allocation(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) out.at(i, j) = r.plan(i, j);
  normalizeRows(out);
  return true;
}

}  // namespace

// TORTA's OT layer (digest §2): the exact plan between the slot's request shares (rows) and
// capacity shares (columns: each region's pool capacity less its backlog), cost the latency;
// routing is the row-normalised plan. With balanced marginals a power term cannot move the plan
// (digest's caveat), so the balanced plan's cost is latency alone and the power term works
// through capacity columns (powerPlan).
Allocation otPlan(const SlotState& s, const std::vector<double>& column_weights,
                  const OtCost& cost) {
  const int n = s.regions();
  ot::TransportProblem p;
  p.a = s.arrivals;
  const double total = std::accumulate(p.a.begin(), p.a.end(), 0.0);
  if (total <= 0) return Allocation::identity(n);
  Allocation a(n);
  if (cost.power_weight > 0 && powerPlan(s, column_weights, cost, total, a)) return a;
  p.b.resize(n);
  double free = 0;
  for (int j = 0; j < n; ++j)
    free += p.b[j] = std::max(0.0, s.poolRate(j) * s.slot_seconds - s.queued[j]);
  if (free <= 0)
    for (int j = 0; j < n; ++j) free += p.b[j] = s.poolRate(j);  // all full: by capacity alone
  if (free <= 0) return Allocation::identity(n);
  if (!column_weights.empty()) {
    free = 0;
    for (int j = 0; j < n; ++j) free += p.b[j] *= column_weights[j];
    if (free <= 0) return Allocation::identity(n);
  }
  for (double& b : p.b) b *= total / free;
  p.cost = ot::Matrix(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) p.cost(i, j) = s.latency(i, j);
  const ot::TransportResult r = ot::solveExact(p);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a.at(i, j) = r.plan(i, j);
  normalizeRows(a);  // rows without requests: the identity row
  return a;
}

namespace {

class OtPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "ot"; }
  Allocation allocate(const SlotState& s) override { return otPlan(s); }
};

class SmoothedOtPolicy : public SchedulingPolicy {
 public:
  std::string name() const override { return "ot-smoothed"; }
  Allocation allocate(const SlotState& s) override {
    Allocation plan = otPlan(s);
    if (s.slot == 0) return plan;
    for (size_t k = 0; k < plan.share.size(); ++k)
      plan.share[k] = (1 - kSmoothedOtEta) * s.previous.share[k] + kSmoothedOtEta * plan.share[k];
    normalizeRows(plan);
    return plan;
  }
};

}  // namespace

std::vector<double> waterFill(double total, const std::vector<double>& capacity,
                              const std::vector<double>& queued) {
  const size_t n = capacity.size();
  std::vector<double> x(n, 0.0);
  double capSum = 0;
  for (double c : capacity) capSum += std::max(0.0, c);
  if (total <= 0 || capSum <= 0) return x;
  // Find the level L with sum_j max(0, L c_j - q_j) = total by bisection on L (monotone).
  double lo = 0, hi = 1;
  auto fill = [&](double level) {
    double sum = 0;
    for (size_t j = 0; j < n; ++j)
      if (capacity[j] > 0) sum += std::max(0.0, level * capacity[j] - queued[j]);
    return sum;
  };
  while (fill(hi) < total) hi *= 2;
  for (int it = 0; it < 100; ++it) {
    const double mid = (lo + hi) / 2;
    (fill(mid) < total ? lo : hi) = mid;
  }
  double sum = 0;
  for (size_t j = 0; j < n; ++j)
    if (capacity[j] > 0) sum += x[j] = std::max(0.0, hi * capacity[j] - queued[j]);
  for (double& v : x) v *= total / sum;
  return x;
}

const std::vector<std::string>& policyNames() {
  static const std::vector<std::string> names = {"local", "round-robin", "least-loaded", "skylb",
                                                 "sdib",  "ot",          "ot-smoothed",  "milp"};
  return names;
}

const std::vector<std::string>& comparedPolicies() {
  return policyNames();
}

std::unique_ptr<SchedulingPolicy> makePolicy(const std::string& name) {
  if (name == "local") return std::make_unique<LocalPolicy>();
  if (name == "round-robin") return std::make_unique<RoundRobinPolicy>();
  if (name == "least-loaded") return std::make_unique<LeastLoadedPolicy>();
  if (name == "skylb") return std::make_unique<SkyLbPolicy>();
  if (name == "sdib") return std::make_unique<SdibPolicy>();
  if (name == "ot") return std::make_unique<OtPolicy>();
  if (name == "ot-smoothed") return std::make_unique<SmoothedOtPolicy>();
  if (name == "milp") return makeMilpPolicy();
  std::string known;
  for (const std::string& n : policyNames()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("", "--method " + name, "unknown method '" + name + "' (known: " + known + ")");
}

}  // namespace doppler::fleet::sim

#include "core/fleet/world/demand.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/common/random.h"

namespace doppler::fleet {

const char* toString(HorizonRule rule) {
  switch (rule) {
    case HorizonRule::Calendar:
      return "calendar";
    case HorizonRule::Tile:
      return "tile";
    case HorizonRule::Stretch:
      return "stretch";
    case HorizonRule::Once:
      return "once";
  }
  return "calendar";
}

const char* toString(TracePart part) {
  switch (part) {
    case TracePart::HeldOut:
      return "held-out";
    case TracePart::Train:
      return "train";
    case TracePart::All:
      return "all";
  }
  return "all";
}

TracePart parseTracePart(const std::string& name) {
  if (name == "held-out") return TracePart::HeldOut;
  if (name == "train") return TracePart::Train;
  if (name == "all") return TracePart::All;
  throw InputError("", "--trace-part " + name, "expected held-out, train or all");
}

namespace {

constexpr double kTwoPi = 6.283185307179586;

void checkOptions(const DemandOptions& o) {
  if (o.slots < 1) throw InputError("", "--slots", "must be at least 1");
  if (!(o.slot_seconds > 0)) throw InputError("", "--slot-seconds", "must be positive");
  if (!(o.time_scale > 0)) throw InputError("", "--time-scale", "must be positive");
  if (o.spread.burst_probability < 0 || o.spread.burst_probability > 1)
    throw InputError("", "burst probability", "must be in [0, 1]");
  if (o.slots > o.max_slots)
    throw InputError("", "--slots", "must be at most " + std::to_string(o.max_slots));
  if (!(o.calendar.window_s > 0)) throw InputError("", "window", "must be positive");
  if (!std::isfinite(o.calendar.start_week_hour)) throw InputError("", "--start", "must be finite");
}

// Each region's bursts, from a stream of its own so the regions' bursts are independent: 1 in a
// burst's slots, else 0.
std::vector<char> burstMask(const DemandOptions& options, int region) {
  const SpreadRule& rule = options.spread;
  std::vector<char> burst(options.slots, 0);
  SplitMix64 rng = streamFor(options.seed, static_cast<uint64_t>(region), 0xB0057);
  for (int s = 0; s < options.slots; ++s)
    if (rng.uniform() < rule.burst_probability)
      for (int k = s; k < std::min(options.slots, s + rule.burst_slots); ++k) burst[k] = 1;
  return burst;
}

// The spikes' factor on each [slot][region] weight.
void applySpikes(std::vector<double>& weights, const DemandOptions& options, int regions) {
  for (const Spike& spike : options.spikes) {
    if (spike.region < 0 || spike.region >= regions)
      throw InputError("", "--spike", "region " + std::to_string(spike.region) + " out of range");
    if (!(spike.factor >= 0) || !std::isfinite(spike.factor) || !(spike.duration_s > 0) ||
        !std::isfinite(spike.start_s) || !std::isfinite(spike.duration_s))
      throw InputError("", "--spike",
                       "needs a finite start, a positive duration and a factor >= 0");
    for (int s = 0; s < options.slots; ++s) {
      const double middle = (s + 0.5) * options.slot_seconds;
      if (middle >= spike.start_s && middle < spike.start_s + spike.duration_s)
        weights[static_cast<size_t>(s) * regions + spike.region] *= spike.factor;
    }
  }
}

double baseWeight(const SpreadRule& rule, const Region& region) {
  return rule.weight_by_degree ? std::max(1, region.degree) : 1.0;
}

void checkRequestCount(double expected, const DemandOptions& o) {
  if (expected <= o.max_requests) return;
  std::ostringstream s;
  s.precision(3);
  s << "the demand would be about " << expected << " requests over the horizon, above the limit "
    << "of " << o.max_requests << ": use fewer or shorter slots or a lower rate";
  throw InputError("", "options", s.str());
}

SlotTotals emptyTotals(int slots, int regions) {
  SlotTotals t;
  t.slots = slots;
  t.regions = regions;
  const size_t n = static_cast<size_t>(slots) * static_cast<size_t>(regions);
  t.requests.assign(n, 0);
  t.context_tokens.assign(n, 0);
  t.generated_tokens.assign(n, 0);
  return t;
}

int slotOf(double arrival_s, const DemandOptions& o) {
  return std::min(o.slots - 1, static_cast<int>(arrival_s / o.slot_seconds));
}

void count(SlotTotals& t, const Request& r, int slot) {
  const size_t i = t.index(slot, r.home_region);
  ++t.requests[i];
  t.context_tokens[i] += r.context_tokens;
  t.generated_tokens[i] += r.generated_tokens;
}

// Cumulative weights per slot, for drawing a region with one uniform number.
std::vector<double> cumulative(const std::vector<double>& weights, int slots, int regions) {
  std::vector<double> cum(weights.size());
  for (int s = 0; s < slots; ++s) {
    double acc = 0;
    for (int r = 0; r < regions; ++r) {
      acc += weights[static_cast<size_t>(s) * regions + r];
      cum[static_cast<size_t>(s) * regions + r] = acc;
    }
  }
  return cum;
}

int drawRegion(const std::vector<double>& cum, int slot, int regions, double u) {
  const auto begin = cum.begin() + static_cast<ptrdiff_t>(slot) * regions;
  const double target = u * *(begin + regions - 1);
  const auto it = std::upper_bound(begin, begin + regions, target);
  return std::min(regions - 1, static_cast<int>(it - begin));
}

}  // namespace

long long SlotTotals::totalRequests() const {
  return std::accumulate(requests.begin(), requests.end(), 0LL);
}

std::vector<long long> SlotTotals::requestsPerRegion() const {
  std::vector<long long> out(regions, 0);
  for (int s = 0; s < slots; ++s)
    for (int r = 0; r < regions; ++r) out[r] += count(s, r);
  return out;
}

std::vector<int> SlotTotals::requestsPerSlot() const {
  std::vector<int> out(slots, 0);
  for (int s = 0; s < slots; ++s)
    for (int r = 0; r < regions; ++r) out[s] += count(s, r);
  return out;
}

std::vector<double> slotWeights(const World& world, const DemandOptions& options,
                                double start_utc_hour) {
  checkOptions(options);
  const SpreadRule& rule = options.spread;
  const int regions = world.regionCount(), slots = options.slots;
  std::vector<double> weights(static_cast<size_t>(slots) * regions);
  for (int r = 0; r < regions; ++r) {
    const Region& region = world.regions[r];
    const double base = baseWeight(rule, region);
    const std::vector<char> burst = burstMask(options, r);
    for (int s = 0; s < slots; ++s) {
      const double hourUtc = start_utc_hour + (s + 0.5) * options.slot_seconds / 3600.0;
      const double local = hourUtc + region.longitude / 15.0;
      const double diurnal =
          1.0 + rule.diurnal_amplitude * std::cos(kTwoPi * (local - rule.peak_local_hour) / 24.0);
      weights[static_cast<size_t>(s) * regions + r] =
          base * std::max(0.0, diurnal) * (burst[s] ? rule.burst_factor : 1.0);
    }
  }
  applySpikes(weights, options, regions);
  // A slot whose weights are all zero (amplitude > 1 at night everywhere, or spikes of factor 0)
  // spreads uniformly.
  for (int s = 0; s < slots; ++s) {
    double sum = 0;
    for (int r = 0; r < regions; ++r) sum += weights[static_cast<size_t>(s) * regions + r];
    if (sum <= 0)
      for (int r = 0; r < regions; ++r) weights[static_cast<size_t>(s) * regions + r] = 1.0;
  }
  return weights;
}

std::vector<double> calendarWeights(const World& world, const DemandOptions& options,
                                    const WeekProfile& profile) {
  checkOptions(options);
  const int regions = world.regionCount(), slots = options.slots;
  std::vector<double> weights(static_cast<size_t>(slots) * regions);
  for (int r = 0; r < regions; ++r) {
    const Region& region = world.regions[r];
    const double base = baseWeight(options.spread, region);
    const std::vector<char> burst = burstMask(options, r);
    for (int s = 0; s < slots; ++s) {
      const double local = options.calendar.start_week_hour +
                           (s + 0.5) * options.slot_seconds / 3600.0 + region.longitude / 15.0;
      weights[static_cast<size_t>(s) * regions + r] =
          base * weekLevel(profile, local) * (burst[s] ? options.spread.burst_factor : 1.0);
    }
  }
  applySpikes(weights, options, regions);
  return weights;
}

namespace {

// Calendar demand from a trace (HorizonRule::Calendar). The trace's own arrival process, at the
// rate it was recorded, is "trace time"; each slot advances trace time by
//   slot_seconds * M_s / time_scale,  M_s = sum_r weight_r(s) / sum_r base_r
// (1 at the weekday peak in every region, no burst), and trace time is filled by windows of
// window_s drawn at uniform random offsets in the chosen part of the trace. A request at trace
// time tau inside slot s arrives at s * slot_seconds + (tau - tau_s) / rate_s: within a slot the
// recorded gaps are only scaled, so the second-scale burstiness is the trace's own.
Demand calendarTrace(const Trace& trace, const World& world, const DemandOptions& options) {
  const int regions = world.regionCount(), slots = options.slots;
  const size_t n = trace.requests.size();
  // The reader refuses several requests at one instant; a trace built otherwise is refused here.
  if (n > 1 && !(trace.span_s > 0))
    throw InputError(trace.name, "",
                     "its requests all arrive at one instant, so it has no rate for --horizon "
                     "calendar to follow: use --horizon once");
  const CalendarRule& rule = options.calendar;
  const WeekProfile profile =
      weekProfile(rule.profile.empty() ? defaultProfileFor(trace.name) : rule.profile);
  Demand demand;
  demand.source = trace.name;
  demand.slot_seconds = options.slot_seconds;
  demand.horizon_s = slots * options.slot_seconds;
  demand.horizon = HorizonRule::Calendar;
  demand.trace_time_scale = options.time_scale;
  demand.start_week_hour = rule.start_week_hour;
  demand.profile = profile.name;
  demand.part = rule.part;
  demand.totals = emptyTotals(slots, regions);

  // The part of the trace windows come from, with one mean gap after the last request so the
  // part's rate is the recorded one.
  // One request alone is a rate of one per slot, as under Tile.
  const double meanGap = n > 1 ? trace.span_s / static_cast<double>(n - 1) : options.slot_seconds;
  const double half = (trace.span_s + meanGap) / 2;
  double lo = 0, hi = trace.span_s + meanGap;
  if (rule.part == TracePart::Train) hi = half;
  if (rule.part == TracePart::HeldOut) lo = half;
  const auto firstAt = [&](double t) {
    return std::lower_bound(trace.requests.begin(), trace.requests.end(), t,
                            [](const TraceRequest& r, double x) { return r.arrival_s < x; }) -
           trace.requests.begin();
  };
  const double partRequests = static_cast<double>(firstAt(hi) - firstAt(lo));
  const double window = std::min(rule.window_s, hi - lo);

  const std::vector<double> weights = calendarWeights(world, options, profile);
  double baseSum = 0;
  for (const Region& region : world.regions) baseSum += baseWeight(options.spread, region);
  std::vector<double> rate(slots), tauStart(slots + 1, 0.0);
  for (int s = 0; s < slots; ++s) {
    double m = 0;
    for (int r = 0; r < regions; ++r) m += weights[static_cast<size_t>(s) * regions + r];
    rate[s] = m / baseSum / options.time_scale;  // trace seconds per second
    tauStart[s + 1] = tauStart[s] + rate[s] * options.slot_seconds;
  }
  const double tauEnd = tauStart[slots];
  checkRequestCount(partRequests / (hi - lo) * tauEnd, options);
  const double windows = std::ceil(tauEnd / window);
  if (windows > 50e6)
    throw InputError(trace.name, "",
                     "the horizon would take more than 50 million windows of " +
                         std::to_string(window) + " s of the trace");

  const std::vector<double> cum = cumulative(weights, slots, regions);
  SplitMix64 offsets = streamFor(options.seed, 0xCA1E, 1);
  SplitMix64 homes = streamFor(options.seed, 0xA551, 0);
  int slot = 0;
  for (int w = 0; w < static_cast<int>(windows); ++w) {
    const double tau0 = w * window;
    const double from = lo + offsets.uniform() * (hi - lo - window);
    for (auto i = firstAt(from); i < static_cast<ptrdiff_t>(n); ++i) {
      const TraceRequest& row = trace.requests[static_cast<size_t>(i)];
      if (row.arrival_s >= from + window) break;
      const double tau = tau0 + (row.arrival_s - from);
      if (tau >= tauEnd) break;
      while (slot + 1 < slots && tauStart[slot + 1] <= tau) ++slot;
      Request request;
      request.arrival_s = std::min(
          demand.horizon_s, slot * options.slot_seconds + (tau - tauStart[slot]) / rate[slot]);
      request.context_tokens = row.context_tokens;
      request.generated_tokens = row.generated_tokens;
      request.trace_index = static_cast<int>(i);
      request.copy = w;
      request.home_region = drawRegion(cum, slot, regions, homes.uniform());
      count(demand.totals, request, slot);
      demand.requests.push_back(request);
    }
    demand.copies = w + 1;
  }
  return demand;
}

}  // namespace

Demand spreadTrace(const Trace& trace, const World& world, const DemandOptions& options) {
  checkOptions(options);
  if (trace.requests.empty()) throw InputError(trace.name, "", "the trace has no requests");
  if (world.regions.empty()) throw InputError("", "--topology", "the world has no regions");
  if (options.horizon == HorizonRule::Calendar) return calendarTrace(trace, world, options);
  const int regions = world.regionCount();
  Demand demand;
  demand.source = trace.name;
  demand.slot_seconds = options.slot_seconds;
  demand.horizon_s = options.slots * options.slot_seconds;
  demand.horizon = options.horizon;
  demand.totals = emptyTotals(options.slots, regions);
  // One copy of the trace occupies its span plus one mean gap, so copies laid end to end keep
  // the mean rate (the gap between the last request and the next copy's first is a typical one).
  const size_t n = trace.requests.size();
  const double meanGap = n > 1 ? trace.span_s / static_cast<double>(n - 1) : options.slot_seconds;
  double scale = options.time_scale;
  if (options.horizon == HorizonRule::Stretch) scale = demand.horizon_s / (trace.span_s + meanGap);
  demand.trace_time_scale = scale;
  const double period = (trace.span_s + meanGap) * scale;
  const double tiles = options.horizon == HorizonRule::Tile ? demand.horizon_s / period : 1.0;
  checkRequestCount(static_cast<double>(n) * tiles, options);  // also keeps `copies` an int
  const int copies = std::max(1, static_cast<int>(std::ceil(tiles)));
  const double startHour =
      options.spread.start_utc_hour >= 0 ? options.spread.start_utc_hour : trace.startHourUtc();
  const std::vector<double> cum =
      cumulative(slotWeights(world, options, startHour), options.slots, regions);
  SplitMix64 rng = streamFor(options.seed, 0xA551, 0);
  demand.requests.reserve(n * static_cast<size_t>(copies));
  for (int copy = 0; copy < copies; ++copy) {
    const double offset = copy * period;
    if (offset >= demand.horizon_s) break;
    for (size_t i = 0; i < n; ++i) {
      const double arrival = offset + trace.requests[i].arrival_s * scale;
      if (arrival >= demand.horizon_s) break;  // rows are in time order
      Request request;
      request.arrival_s = arrival;
      request.context_tokens = trace.requests[i].context_tokens;
      request.generated_tokens = trace.requests[i].generated_tokens;
      request.trace_index = static_cast<int>(i);
      request.copy = copy;
      const int slot = slotOf(arrival, options);
      request.home_region = drawRegion(cum, slot, regions, rng.uniform());
      count(demand.totals, request, slot);
      demand.requests.push_back(request);
    }
    demand.copies = copy + 1;
  }
  return demand;
}

LogNormal fitLogNormal(const std::vector<double>& values) {
  if (values.empty()) throw InputError("", "trace", "no token counts to fit");
  double sum = 0, sumSq = 0;
  size_t n = 0;
  for (double v : values) {
    if (!(v > 0)) continue;  // ln needs a positive value
    const double l = std::log(v);
    sum += l;
    sumSq += l * l;
    ++n;
  }
  if (n == 0) throw InputError("", "trace", "no positive token counts to fit");
  const double mu = sum / static_cast<double>(n);
  return {mu, std::sqrt(std::max(0.0, sumSq / static_cast<double>(n) - mu * mu))};
}

Demand syntheticDemand(const World& world, const DemandOptions& options,
                       const SyntheticOptions& synthetic) {
  checkOptions(options);
  if (world.regions.empty()) throw InputError("", "--topology", "the world has no regions");
  if (!(synthetic.mean_rate_per_s >= 0)) throw InputError("", "rate", "must be non-negative");
  const int regions = world.regionCount(), slots = options.slots;
  Demand demand;
  demand.source = "synthetic";
  demand.slot_seconds = options.slot_seconds;
  demand.horizon_s = slots * options.slot_seconds;
  demand.copies = 0;
  demand.totals = emptyTotals(slots, regions);
  // On the calendar the rate follows the profile (conv's unless one is named); otherwise the
  // spread rule's diurnal cosine from its start hour.
  const bool calendar = options.horizon == HorizonRule::Calendar;
  const double startHour = options.spread.start_utc_hour >= 0 ? options.spread.start_utc_hour : 12;
  const std::vector<double> weights =
      calendar ? calendarWeights(
                     world, options,
                     weekProfile(options.calendar.profile.empty() ? defaultProfileFor("synthetic")
                                                                  : options.calendar.profile))
               : slotWeights(world, options, startHour);
  demand.horizon = options.horizon;
  if (calendar) {
    demand.start_week_hour = options.calendar.start_week_hour;
    demand.profile = options.calendar.profile.empty() ? defaultProfileFor("synthetic")
                                                      : options.calendar.profile;
  }
  const double weightSum = std::accumulate(weights.begin(), weights.end(), 0.0);
  // Rate per unit of weight, so the horizon's expected total is mean_rate * horizon.
  checkRequestCount(synthetic.mean_rate_per_s * demand.horizon_s, options);
  const double perWeight = synthetic.mean_rate_per_s * slots / weightSum;
  auto tokens = [](SplitMix64& rng, const LogNormal& d, int max) {
    const double x = std::exp(d.mu + d.sigma * rng.normal());
    return std::clamp(static_cast<int>(std::lround(x)), 1, max);
  };
  for (int s = 0; s < slots; ++s) {
    const size_t first = demand.requests.size();
    for (int r = 0; r < regions; ++r) {
      const double rate = perWeight * weights[static_cast<size_t>(s) * regions + r];
      if (rate <= 0) continue;
      // Exponential gaps from the slot's start: a Poisson process at this slot's constant rate
      // (memoryless, so restarting at each slot boundary is exact).
      SplitMix64 rng =
          streamFor(options.seed, static_cast<uint64_t>(r), static_cast<uint64_t>(s) + 1, 0x5EED);
      double t = s * options.slot_seconds;
      const double end = (s + 1) * options.slot_seconds;
      while ((t += rng.exponential(rate)) < end) {
        Request request;
        request.arrival_s = t;
        request.home_region = r;
        request.context_tokens = tokens(rng, synthetic.context, synthetic.max_context);
        request.generated_tokens = tokens(rng, synthetic.generated, synthetic.max_generated);
        count(demand.totals, request, s);
        demand.requests.push_back(request);
      }
    }
    std::sort(demand.requests.begin() + static_cast<ptrdiff_t>(first), demand.requests.end(),
              [](const Request& a, const Request& b) {
                return a.arrival_s < b.arrival_s ||
                       (a.arrival_s == b.arrival_s && a.home_region < b.home_region);
              });
  }
  return demand;
}

}  // namespace doppler::fleet

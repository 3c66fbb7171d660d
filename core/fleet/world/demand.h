#pragma once
// Demand: requests with a home region and an arrival time, and their counts per timeslot and
// region. From the Azure traces spread over regions, or synthetic (docs/fleet.md, "Demand").
#include <cstdint>
#include <string>
#include <vector>

#include "core/fleet/world/region_events.h"
#include "core/fleet/world/trace_reader.h"
#include "core/fleet/world/week_profile.h"
#include "core/fleet/world/world.h"

namespace doppler::fleet {

// How a request's home region is drawn. A region's weight at time t is
//   weight_r * (1 + amplitude * cos(2 pi (local_hour_r(t) - peak_local_hour) / 24)) * burst_r(t)
// with local_hour_r(t) = start_utc_hour + t / 3600 + longitude_r / 15 (solar time), weight_r the
// region's link count (or 1 each), and burst_r(t) = burst_factor inside a burst, else 1. Bursts
// start in each region and slot with burst_probability and last burst_slots. Each request goes
// to region r with probability proportional to the weights of its slot (evaluated at the slot's
// middle). All draws come from the seed.
struct SpreadRule {
  bool weight_by_degree = true;
  // Peak-to-trough 3:1 at 14:00 local: a stated assumption in the spirit of the diurnal cycles
  // production LLM services show (Splitwise and DynamoLLM describe daytime peaks), not a fit.
  double diurnal_amplitude = 0.5;
  double peak_local_hour = 14.0;
  double start_utc_hour = -1;        // < 0: the trace's own first arrival (synthetic: 12:00 UTC)
  double burst_probability = 0.005;  // ~2.4 bursts per region over 480 slots
  double burst_factor = 3.0;
  int burst_slots = 8;  // 6 minutes at 45 s
};

// The trace spans about an hour (conv 3,502 s); the horizon 480 x 45 s is 6 h.
//  Calendar (default): the total rate follows the service's day and week (WeekProfile) at each
//          region's local time from a calendar start, and the requests come from windows of the
//          trace drawn at random offsets (CalendarRule), so the sizes and the sub-minute
//          burstiness are the trace's and the stream never repeats within a horizon.
//  Tile:   copies of the trace laid end to end, one every span + mean gap, so the arrival rate and
//          its second-scale burstiness stay the real ones; the spatial mix over regions follows
//          each region's time of day as the copies go on. The total repeats every copy.
//  Stretch: one copy with times scaled so the trace fills the horizon (rate / 6 for 6 h).
//  Once:   one copy as recorded; slots after it are empty.
enum class HorizonRule { Calendar, Tile, Stretch, Once };
const char* toString(HorizonRule rule);  // "calendar", "tile", "stretch", "once"

// Which part of the trace a calendar demand draws its windows from: training draws from the
// first half of the trace's time, evaluation from the second, so no request a policy trained on
// comes back when it is evaluated.
enum class TracePart { HeldOut, Train, All };
const char* toString(TracePart part);               // "held-out", "train", "all"
TracePart parseTracePart(const std::string& name);  // InputError naming --trace-part otherwise

struct CalendarRule {
  double start_week_hour = 3 * 24 + 14;  // hours since Monday 00:00 UTC: Thursday 14:00 UTC
  std::string profile;                   // conv, code, flat; empty: defaultProfileFor(trace)
  TracePart part = TracePart::HeldOut;
  double window_s = 60;  // trace seconds per drawn window
};

struct DemandOptions {
  int slots = 480;
  double slot_seconds = 45.0;
  uint64_t seed = 1;
  HorizonRule horizon = HorizonRule::Calendar;
  double time_scale = 1.0;  // trace times multiplied by this first: 0.5 doubles the rate
  SpreadRule spread;
  CalendarRule calendar;  // HorizonRule::Calendar (for synthetic demand: its start and profile)
  std::vector<Spike> spikes;
  // Refused above these, with an InputError, before anything is allocated: a request
  // record is 32 bytes and the simulators keep more per request, so 50 M requests already take
  // gigabytes (cost266 at load 0.7 over 480 slots is 6.9 M). A tiny time scale or a huge horizon
  // otherwise ran out of memory.
  int max_slots = 1'000'000;
  double max_requests = 50e6;  // expected requests over the horizon
};

struct Request {
  double arrival_s = 0;  // from the start of the horizon
  int home_region = 0;
  int context_tokens = 0;
  int generated_tokens = 0;
  int trace_index = -1;  // row in the trace (in time order); -1 when synthetic
  int copy = 0;          // which tile (calendar: which drawn window) of the trace
};

// Per slot and region: request count and token sums; row-major [slot][region].
struct SlotTotals {
  int slots = 0, regions = 0;
  std::vector<int> requests;
  std::vector<long long> context_tokens, generated_tokens;

  size_t index(int slot, int region) const {
    return static_cast<size_t>(slot) * static_cast<size_t>(regions) + region;
  }
  int count(int slot, int region) const { return requests[index(slot, region)]; }
  long long totalRequests() const;
  std::vector<long long> requestsPerRegion() const;
  std::vector<int> requestsPerSlot() const;
};

struct Demand {
  std::string source;  // "conv", "code", "synthetic" or a file's stem
  double horizon_s = 0;
  double slot_seconds = 0;
  int copies = 0;               // trace copies (calendar: windows) that reach into the horizon
  double trace_time_scale = 1;  // the factor the trace's times were multiplied by
  HorizonRule horizon = HorizonRule::Calendar;
  // Calendar demand (and synthetic demand under it): where the horizon starts in the week, the
  // profile its rate follows, and the trace part its windows come from.
  double start_week_hour = -1;  // < 0: not on a calendar
  std::string profile;
  TracePart part = TracePart::All;
  std::vector<Request> requests;  // in arrival order
  SlotTotals totals;
};

// Region weights at each slot's middle, [slot][region], from the rule (bursts included).
std::vector<double> slotWeights(const World& world, const DemandOptions& options,
                                double start_utc_hour);
// The same on the calendar: region weight * the profile's level at the region's local hour of
// the week * its bursts. Summed over regions, proportional to the total rate.
std::vector<double> calendarWeights(const World& world, const DemandOptions& options,
                                    const WeekProfile& profile);

// The trace over the horizon (HorizonRule), each request given a home region by the rule.
Demand spreadTrace(const Trace& trace, const World& world, const DemandOptions& options = {});

// Lognormal parameters: mean and standard deviation of ln x.
struct LogNormal {
  double mu = 0, sigma = 1;
};
LogNormal fitLogNormal(const std::vector<double>& values);

// Poisson arrivals per region and slot at rate proportional to the slot weights, scaled so the
// horizon's mean total rate is mean_rate_per_s; token counts lognormal, clipped to [1, max].
// Defaults: the conversation trace's rate (19,366 requests over 3,501.7 s) and its lognormal fits
// (ln ContextTokens: mean 6.6333, sd 0.9852; ln GeneratedTokens: mean 5.0190, sd 0.8590; tested
// against the shipped file). Context and generated lengths are drawn independently.
struct SyntheticOptions {
  double mean_rate_per_s = 19366.0 / 3501.72;
  LogNormal context{6.6333, 0.9852};
  LogNormal generated{5.0190, 0.8590};
  int max_context = 14050, max_generated = 1000;  // the trace's maxima
};
Demand syntheticDemand(const World& world, const DemandOptions& options = {},
                       const SyntheticOptions& synthetic = {});

}  // namespace doppler::fleet

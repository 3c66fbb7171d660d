// Calendar demand (HorizonRule::Calendar): the rate follows the service's day and week, the
// requests come from random windows of the trace so the stream does not repeat, and training and
// evaluation draw from disjoint halves of the trace and disjoint days.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/fleet/sim/harness.h"
#include "core/fleet/world/demand.h"
#include "core/fleet/world/week_profile.h"

namespace {

using namespace doppler::fleet;

const Trace& trace(const std::string& name) {
  static const Trace conv = loadTrace("conv");
  static const Trace code = loadTrace("code");
  return name == "code" ? code : conv;
}
const World& abilene() {
  static const World world = buildWorld(loadTopology("abilene"));
  return world;
}

// Requests per hour of the horizon.
std::vector<double> hourly(const Demand& d) {
  std::vector<double> out(static_cast<size_t>(d.horizon_s / 3600.0 + 0.5), 0.0);
  for (const Request& r : d.requests)
    ++out[std::min(out.size() - 1, static_cast<size_t>(r.arrival_s / 3600.0))];
  return out;
}

TEST(WeekProfile, PeakToTroughAsDocumented) {
  auto ratio = [](const WeekProfile& p, int day) {
    double hi = 0, lo = 1e9;
    for (int m = 0; m < 24 * 60; ++m) {
      const double v = weekLevel(p, day * 24 + m / 60.0);
      hi = std::max(hi, v), lo = std::min(lo, v);
    }
    return hi / lo;
  };
  EXPECT_NEAR(ratio(weekProfile("code"), 1), 10.0, 0.01);  // Tuesday
  EXPECT_NEAR(ratio(weekProfile("code"), 6), 6.0, 0.01);   // Sunday
  EXPECT_NEAR(ratio(weekProfile("conv"), 2), 2.0, 0.01);
  EXPECT_NEAR(ratio(weekProfile("flat"), 5), 1.0, 1e-12);
  EXPECT_NEAR(weekLevel(weekProfile("code"), 14), 1.0, 1e-12);           // Monday 14:00: the peak
  EXPECT_NEAR(weekLevel(weekProfile("code"), 5 * 24 + 14), 0.5, 1e-12);  // Saturday's peak
  EXPECT_THROW(weekProfile("weekly"), doppler::InputError);
}

TEST(WeekProfile, WeekTimesReadAndPrintBack) {
  EXPECT_DOUBLE_EQ(parseWeekTime("thu 14:00"), 3 * 24 + 14);
  EXPECT_DOUBLE_EQ(parseWeekTime("Sunday 23:59"), 6 * 24 + 23 + 59 / 60.0);
  EXPECT_EQ(weekTimeText(parseWeekTime("tue 09:30")), "Tue 09:30");
  EXPECT_EQ(weekTimeText(kHoursPerWeek + 1), "Mon 01:00");
  for (const char* bad :
       {"", "thu", "thu 24:00", "thu 14:60", "xyz 10:00", "thu 10:00 extra", "thu 10", "thu -1:00"})
    EXPECT_THROW(parseWeekTime(bad), doppler::InputError) << bad;
}

TEST(WeekProfile, TrainingHorizonsLieWhollyOnTrainingDays) {
  for (double hours : {0.3, 6.0, 24.0, 72.0})
    for (uint64_t seed = 0; seed < 200; ++seed) {
      const double start = trainingStartHour(seed, hours);
      ASSERT_NEAR(trainingHoursIn(start, hours), hours, 1e-9) << seed << " " << hours;
    }
  EXPECT_THROW(trainingStartHour(1, 73), doppler::InputError);
  EXPECT_EQ(trainingHoursIn(parseWeekTime("thu 00:00"), 48), 0);  // Thursday and Friday
  EXPECT_EQ(trainingHoursIn(parseWeekTime("sun 00:00"), 24), 0);
  EXPECT_NEAR(trainingHoursIn(parseWeekTime("wed 20:00"), 6), 4, 1e-9);
  EXPECT_NEAR(trainingHoursIn(parseWeekTime("sun 22:00"), 4), 2, 1e-9);  // into Monday
}

TEST(CalendarDemand, HeldOutAndTrainingRequestsComeFromDisjointHalvesOfTheTrace) {
  const Trace& t = trace("conv");
  DemandOptions o;
  o.slots = 160;
  o.time_scale = 0.2;  // enough windows to cover each half many times
  std::set<int> rows[2];
  for (TracePart part : {TracePart::Train, TracePart::HeldOut}) {
    o.calendar.part = part;
    const Demand d = spreadTrace(t, abilene(), o);
    ASSERT_GT(d.requests.size(), 1000u);
    // The halves of the trace's span and one mean gap after its last request.
    const double half = t.span_s * (1 + 1.0 / static_cast<double>(t.requests.size() - 1)) / 2;
    for (const Request& r : d.requests) {
      const double at = t.requests[r.trace_index].arrival_s;
      if (part == TracePart::Train)
        ASSERT_LT(at, half);
      else
        ASSERT_GE(at, half);
      rows[part == TracePart::Train].insert(r.trace_index);
    }
  }
  for (int i : rows[0]) ASSERT_EQ(rows[1].count(i), 0u);
}

// Pearson correlation of the slot totals with themselves `lag` slots later.
double lagCorrelation(const std::vector<int>& x, size_t lag) {
  const size_t n = x.size() - lag;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += x[i], mb += x[i + lag];
  ma /= static_cast<double>(n), mb /= static_cast<double>(n);
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = x[i] - ma, b = x[i + lag] - mb;
    ab += a * b, aa += a * a, bb += b * b;
  }
  return ab / std::sqrt(aa * bb);
}

// Under Tile the trace repeats every copy (3.9 slots at this compression), so the slot totals
// correlate strongly with those 4 slots later; on the calendar each window is drawn at its own
// offset, so they do not, and the windows start at many different rows of the trace.
TEST(CalendarDemand, TheStreamDoesNotRepeatWithinTheHorizon) {
  DemandOptions o;
  o.time_scale = 0.05;
  o.spread.burst_probability = 0;  // the comparison below is of the request streams alone
  o.calendar.profile = "flat";
  const Demand d = spreadTrace(trace("conv"), abilene(), o);
  ASSERT_GT(d.copies, 1000);
  std::set<int> firstRows;
  int last = -1;
  for (const Request& r : d.requests)
    if (r.copy != last) firstRows.insert(r.trace_index), last = r.copy;
  EXPECT_GT(firstRows.size(), static_cast<size_t>(d.copies) / 2);

  o.horizon = HorizonRule::Tile;
  const Demand tiled = spreadTrace(trace("conv"), abilene(), o);
  const double tileCorr = lagCorrelation(tiled.totals.requestsPerSlot(), 4);
  const double calendarCorr = lagCorrelation(d.totals.requestsPerSlot(), 4);
  EXPECT_GT(tileCorr, 0.5);
  EXPECT_LT(calendarCorr, 0.2);
}

TEST(CalendarDemand, TheRateFollowsTheServicesDay) {
  DemandOptions o;
  o.slots = 1920;  // 24 h
  o.time_scale = 0.5;
  o.spread.burst_probability = 0;
  o.calendar.start_week_hour = parseWeekTime("tue 00:00");
  auto peakOverTrough = [&](const std::string& service) {
    const std::vector<double> h = hourly(spreadTrace(trace(service), abilene(), o));
    return *std::max_element(h.begin(), h.end()) / *std::min_element(h.begin(), h.end());
  };
  // abilene spans four US time zones, which smooths the regions' own 10:1 and 2:1 a little.
  const double code = peakOverTrough("code"), conv = peakOverTrough("conv");
  EXPECT_GT(code, 6.0) << code;
  EXPECT_LT(code, 11.0) << code;
  EXPECT_GT(conv, 1.6) << conv;
  EXPECT_LT(conv, 2.4) << conv;
  // A flat profile at time scale 1 keeps the rate the trace's half was recorded at.
  o.slots = 480;
  o.time_scale = 1;
  o.calendar.profile = "flat";
  const Demand flat = spreadTrace(trace("conv"), abilene(), o);
  const Trace& t = trace("conv");
  const double halfRate = static_cast<double>(std::count_if(
                              t.requests.begin(), t.requests.end(),
                              [&](const TraceRequest& r) { return r.arrival_s >= t.span_s / 2; })) /
                          (t.span_s / 2);  // the half's rate, to well within the 5% below
  EXPECT_NEAR(static_cast<double>(flat.requests.size()) / flat.horizon_s / halfRate, 1.0, 0.05);
}

TEST(CalendarDemand, DeterministicGivenTheSeedAndDifferentAcrossSeeds) {
  DemandOptions o;
  o.slots = 60;
  const Demand a = spreadTrace(trace("conv"), abilene(), o);
  const Demand b = spreadTrace(trace("conv"), abilene(), o);
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i) {
    ASSERT_EQ(a.requests[i].arrival_s, b.requests[i].arrival_s);
    ASSERT_EQ(a.requests[i].trace_index, b.requests[i].trace_index);
  }
  o.seed = 2;
  const Demand c = spreadTrace(trace("conv"), abilene(), o);
  EXPECT_NE(c.requests.front().trace_index, a.requests.front().trace_index);
}

TEST(CalendarDemand, TheLoadTargetHoldsAndTrainingRunsAvoidTheEvaluationsDaysAndRequests) {
  doppler::fleet::sim::RunOptions o;
  o.slots = 120;
  const auto prepared = doppler::fleet::sim::prepareScenario(o);
  EXPECT_TRUE(prepared.load_applied);
  EXPECT_NEAR(prepared.capacity.load_factor, 0.7, 0.03);
  EXPECT_EQ(prepared.scenario.demand.part, TracePart::HeldOut);
  const doppler::fleet::sim::RunOptions t = doppler::fleet::sim::trainingRun(o, 1000);
  EXPECT_EQ(t.calendar.part, TracePart::Train);
  EXPECT_EQ(trainingHoursIn(t.calendar.start_week_hour, 1.5), 1.5);
  EXPECT_EQ(trainingHoursIn(o.calendar.start_week_hour, 1.5), 0);
}

// One request is a rate of one per slot; several at one instant (which the reader refuses) have
// no rate.
TEST(CalendarDemand, ATraceAtOneInstantIsRefusedNamingIt) {
  Trace one;
  one.name = "one";
  one.requests = {{0, 10, 10}};
  DemandOptions o;
  o.slots = 10;
  o.calendar.part = TracePart::All;
  const Demand d = spreadTrace(one, abilene(), o);
  EXPECT_GT(d.requests.size(), 0u);
  Trace t;
  t.span_s = 0;
  t.name = "instant";
  t.requests = {{0, 10, 10}, {0, 20, 5}};
  try {
    spreadTrace(t, abilene(), DemandOptions{});
    FAIL() << "accepted";
  } catch (const doppler::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("instant"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--horizon once"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

// The specs' readers on mutated seeds (scripts/fuzz.sh's fuzz_fleet_events runs the same readers
// under libFuzzer): a spec parses into something the simulators can use, or is refused with an
// InputError; nothing else is thrown.
TEST(FleetSpecs, MutatedSpecsParseValidlyOrAreRefused) {
  const std::vector<std::string> seeds = {
      "3:2:15:3", "ATLAng:0.5:60:0", "1:1:60", "thu 14:00", "Sunday 23:59", "code", "held-out"};
  doppler::SplitMix64 rng(7);
  const std::string alphabet = "0123456789:.-+eE xAtTnN\t\n\x01\xff";
  int parsed = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string s = seeds[rng.next() % seeds.size()];
    for (int m = static_cast<int>(rng.next() % 4); m >= 0; --m) {
      const size_t at = s.empty() ? 0 : rng.next() % (s.size() + 1);
      switch (rng.next() % 3) {
        case 0:
          s.insert(at, 1, alphabet[rng.next() % alphabet.size()]);
          break;
        case 1:
          if (at < s.size()) s.erase(at, 1);
          break;
        default:
          if (at < s.size()) s[at] = alphabet[rng.next() % alphabet.size()];
      }
    }
    try {
      const Spike spike = parseSpike(s, abilene());
      ASSERT_TRUE(spike.region >= 0 && spike.region < 12 && spike.duration_s > 0) << s;
      ++parsed;
    } catch (const doppler::InputError&) {
    }
    try {
      const Outage outage = parseOutage(s, abilene());
      ASSERT_TRUE(outage.region >= 0 && outage.region < 12 && outage.duration_s > 0) << s;
      ++parsed;
    } catch (const doppler::InputError&) {
    }
    try {
      const double h = parseWeekTime(s);
      ASSERT_TRUE(h >= 0 && h < kHoursPerWeek) << s;
      ASSERT_EQ(parseWeekTime(weekTimeText(h)), h) << s;
      ++parsed;
    } catch (const doppler::InputError&) {
    }
    try {
      weekProfile(s);
      parseTracePart(s);
    } catch (const doppler::InputError&) {
    }
  }
  EXPECT_GT(parsed, 1000);  // the mutations keep many specs valid, so the checks above ran
}

}  // namespace

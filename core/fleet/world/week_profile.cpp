#include "core/fleet/world/week_profile.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "core/common/input_error.h"
#include "core/common/random.h"

namespace doppler::fleet {

namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr std::array<const char*, 7> kDays = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
constexpr std::array<const char*, 7> kDayNames = {"monday", "tuesday",  "wednesday", "thursday",
                                                  "friday", "saturday", "sunday"};

double wrapWeek(double h) {
  const double w = std::fmod(h, kHoursPerWeek);
  return w < 0 ? w + kHoursPerWeek : w;
}

// The training days as spans of hours since Monday 00:00: Mon-Wed and Sat.
constexpr std::array<std::pair<double, double>, 2> kTrainingSpans = {{{0, 72}, {120, 144}}};

}  // namespace

WeekProfile weekProfile(const std::string& name) {
  WeekProfile p;
  p.name = name;
  if (name == "conv") return p;  // the struct's defaults: 2:1 every day, weekend peak 0.85
  if (name == "code") {
    // A work tool: sharp daytime peaks on weekdays, a much lower weekend.
    p.weekday_peak_to_trough = 10;
    p.weekend_peak_to_trough = 6;
    p.weekend_peak = 0.5;
    return p;
  }
  if (name == "flat") {
    p.weekday_peak_to_trough = p.weekend_peak_to_trough = 1;
    p.weekend_peak = 1;
    return p;
  }
  throw InputError("", "--profile " + name, "expected conv, code or flat");
}

std::string defaultProfileFor(const std::string& trace) {
  return trace == "code" ? "code" : "conv";
}

double weekLevel(const WeekProfile& profile, double local_week_hour) {
  const double h = wrapWeek(local_week_hour);
  const int day = std::min(6, static_cast<int>(h / 24));
  const bool weekend = day >= 5;
  const double ratio = weekend ? profile.weekend_peak_to_trough : profile.weekday_peak_to_trough;
  const double peak = weekend ? profile.weekend_peak : 1.0;
  const double trough = 1.0 / std::max(1.0, ratio);
  const double shape = 0.5 + 0.5 * std::cos(kTwoPi * (h - profile.peak_local_hour) / 24.0);
  return peak * (trough + (1.0 - trough) * shape);
}

double parseWeekTime(const std::string& text) {
  const auto bad = [&] {
    return InputError("", "--start " + text,
                      "expected a day and a UTC time such as 'thu 14:00' (days mon to sun)");
  };
  std::istringstream in(text);
  std::string day, clock, rest;
  if (!(in >> day >> clock) || (in >> rest)) throw bad();
  std::transform(day.begin(), day.end(), day.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  int d = -1;
  for (int k = 0; k < 7; ++k)
    if (day == kDays[k] || day == kDayNames[k]) d = k;
  if (d < 0) throw bad();
  // H:MM or HH:MM, digits only (no sign, no overflow to worry about).
  const size_t colon = clock.find(':');
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 2 &&
           std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  if (colon == std::string::npos || !digits(clock.substr(0, colon)) ||
      clock.size() - colon - 1 != 2 || !digits(clock.substr(colon + 1)))
    throw bad();
  const int hh = std::stoi(clock.substr(0, colon)), mm = std::stoi(clock.substr(colon + 1));
  if (hh > 23 || mm > 59) throw bad();
  return d * 24.0 + hh + mm / 60.0;
}

std::string weekTimeText(double week_hour) {
  const double h = wrapWeek(week_hour);
  int minutes = static_cast<int>(std::lround(h * 60.0)) % (7 * 24 * 60);
  const int day = minutes / (24 * 60);
  minutes %= 24 * 60;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%c%s %02d:%02d", std::toupper(kDays[day][0]), kDays[day] + 1,
                minutes / 60, minutes % 60);
  return buf;
}

bool isTrainingDay(int day) {
  return day == 0 || day == 1 || day == 2 || day == 5;
}

std::string trainingDaysText() {
  return "Mon-Wed, Sat";
}

double trainingStartHour(uint64_t seed, double horizon_hours) {
  // The starts that keep the whole horizon in one training span, laid end to end.
  std::vector<std::pair<double, double>> starts;
  double total = 0;
  for (const auto& [from, to] : kTrainingSpans)
    if (to - from >= horizon_hours) {
      starts.push_back({from, to - horizon_hours});
      total += to - horizon_hours - from;
    }
  if (starts.empty()) {
    std::ostringstream s;
    s << "a training horizon of " << horizon_hours << " h does not fit in the training days ("
      << trainingDaysText() << ", at most 72 h in a row)";
    throw InputError("", "--slots", s.str());
  }
  SplitMix64 rng = streamFor(seed, 0xCA1E, 0);
  double x = rng.uniform() * total;
  for (const auto& [from, last] : starts) {
    // Starts on whole minutes, so that the checkpoint's record reads back as written.
    if (x <= last - from) return std::floor((from + x) * 60.0) / 60.0;
    x -= last - from;
  }
  return starts.back().second;
}

double trainingHoursIn(double start_week_hour, double horizon_hours) {
  // Walk the horizon day by day (a horizon may wrap the week, or span several).
  double hours = 0, t = start_week_hour;
  const double end = start_week_hour + std::max(0.0, horizon_hours);
  while (t < end) {
    const double h = wrapWeek(t);
    const int day = std::min(6, static_cast<int>(h / 24));
    const double step = std::min(end - t, (day + 1) * 24.0 - h);
    if (isTrainingDay(day)) hours += step;
    t += std::max(step, 1e-9);
  }
  return hours;
}

}  // namespace doppler::fleet

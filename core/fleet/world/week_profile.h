#pragma once
// A service's demand over a week (docs/fleet.md, "Demand over a day and a week"): the level of
// requests at a local hour of the week, the calendar the horizon starts at, and which days
// training may draw from, so that evaluation runs on days training never saw.
#include <cstdint>
#include <string>

namespace doppler::fleet {

// Demand level at a local hour of the week, relative to the weekday peak (1):
//   peak_d * (trough_d + (1 - trough_d) * (1 + cos(2 pi (h - peak_local_hour) / 24)) / 2)
// with d the weekday or the weekend, trough_d = 1 / peak_to_trough_d and peak_d 1 on weekdays.
// The peak-to-trough ratios are those public analyses of Azure's one-week 2024 LLM inference
// traces report (about 10:1 for the code service on weekdays, 6:1 at weekends; about 2:1 for
// conversation); the weekend peaks and the 14:00 peak hour are stated assumptions (docs/fleet.md).
struct WeekProfile {
  std::string name;  // "conv", "code", "flat"
  double weekday_peak_to_trough = 2;
  double weekend_peak_to_trough = 2;
  double weekend_peak = 0.85;  // the weekend's peak over the weekday's
  double peak_local_hour = 14;
};

// "conv", "code" or "flat" (level 1 at every hour); InputError naming --profile otherwise.
WeekProfile weekProfile(const std::string& name);
// The profile a trace follows when none is named: code for the code trace, conv otherwise.
std::string defaultProfileFor(const std::string& trace);

// Level at `local_week_hour` (hours since Monday 00:00 local; any real number, taken mod 168).
double weekLevel(const WeekProfile& profile, double local_week_hour);

constexpr double kHoursPerWeek = 168;

// "thu 14:00" or "thursday 14:30" (UTC) to hours since Monday 00:00 UTC; InputError naming
// --start otherwise.
double parseWeekTime(const std::string& text);
// Hours since Monday 00:00 to "Thu 14:00".
std::string weekTimeText(double week_hour);

// Training draws its horizons from Monday to Wednesday and Saturday (UTC); Thursday, Friday and
// Sunday are held out for evaluation. A training horizon lies wholly inside training days.
bool isTrainingDay(int day);     // 0 = Monday
std::string trainingDaysText();  // "Mon-Wed, Sat"
// A start (hours since Monday 00:00 UTC) drawn from the seed such that [start, start + horizon)
// lies inside the training days; InputError naming --slots when no training span is that long.
double trainingStartHour(uint64_t seed, double horizon_hours);
// Hours of [start, start + horizon) that fall on training days (0: wholly held out).
double trainingHoursIn(double start_week_hour, double horizon_hours);

}  // namespace doppler::fleet

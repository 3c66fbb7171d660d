#pragma once
// Axis ticks at round numbers, 1, 2 or 5 times a power of ten, for every chart of the studio
// (training, run comparison, tuner history, fleet): ticks at 0/37/75/112/150 make a reader do
// arithmetic before reading the data.
#include <QString>
#include <vector>

class QValueAxis;

namespace doppler::views {

// The round step (1, 2 or 5 x 10^k) nearest above span / targetTicks.
double niceStep(double span, int targetTicks = 5);

struct NiceTicks {
  double lo = 0, hi = 1;      // the axis range
  double step = 1;            // between ticks
  std::vector<double> ticks;  // the multiples of step inside [lo, hi]
  int decimals = 0;           // what the step needs ("0.5", "20")
};

// Ticks for data in [lo, hi]. With `pad` the range widens by 6% on each side (never below 0
// when lo >= 0), for y axes; without it the range is the data's (an x axis of episodes).
NiceTicks niceTicks(double lo, double hi, int targetTicks = 5, bool pad = false);

// A tick's label with the step's decimals.
QString tickText(double value, const NiceTicks& t);

// Sets a Qt Charts axis to niceTicks(lo, hi, ...): its range, dynamic ticks anchored at a
// multiple of the step, and a label format with the step's decimals.
void setNiceAxis(QValueAxis* axis, double lo, double hi, int targetTicks = 5, bool pad = false);

}  // namespace doppler::views

// The fleet's command-line specs: --spike, --outage, --start, --profile and --trace-part, in one
// target; the first byte picks the reader. A spec that parses must hold what the simulators
// assume of it.
#include "core/fleet/world/demand.h"
#include "core/fleet/world/region_events.h"
#include "core/fleet/world/week_profile.h"
#include "fuzz_common.h"

namespace {

const doppler::fleet::World& world() {
  static const doppler::fleet::World w = doppler::fleet::buildWorld(doppler::fleet::parseTopology(
      "# PLANAR km\nNODES (\n A ( 0 0 )\n B ( 200 0 )\n C ( 400 0 )\n)\nLINKS (\n L0 ( A B )\n"
      " L1 ( B C )\n)\n",
      "fuzz.txt", "fuzz"));
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 4;
  return fuzzOne(data + 1, size - 1, [reader](std::string_view view) {
    const std::string text(view);
    namespace fl = doppler::fleet;
    if (reader == 0) {
      const fl::Spike s = fl::parseSpike(text, world());
      if (s.region < 0 || s.region >= 3 || !(s.duration_s > 0) || !(s.start_s >= 0) ||
          !(s.factor >= 0 && s.factor <= 1000))
        __builtin_trap();
    } else if (reader == 1) {
      const fl::Outage o = fl::parseOutage(text, world());
      if (o.region < 0 || o.region >= 3 || !(o.duration_s > 0) || !(o.start_s >= 0))
        __builtin_trap();
    } else if (reader == 2) {
      const double h = fl::parseWeekTime(text);
      if (!(h >= 0 && h < fl::kHoursPerWeek)) __builtin_trap();
      if (fl::parseWeekTime(fl::weekTimeText(h)) != h) __builtin_trap();  // it prints back
    } else {
      const fl::WeekProfile p = fl::weekProfile(text);
      for (double h = 0; h < fl::kHoursPerWeek; h += 0.5) {
        const double level = fl::weekLevel(p, h);
        if (!(level > 0 && level <= 1)) __builtin_trap();
      }
      fl::parseTracePart(text);
    }
  });
}

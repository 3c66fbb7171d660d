#pragma once
// Events that happen to one region for a while, given on the command line: a demand spike and an
// outage (docs/fleet.md, "Spikes and outages"). REGION is a region's name or its 0-based index;
// START_H is in hours after the horizon's start.
#include <string>

#include "core/fleet/world/world.h"

namespace doppler::fleet {

// Region `region`'s demand weight times `factor` for the slots whose middle lies in
// [start_s, start_s + duration_s). On the calendar it adds demand (the rate follows the weights);
// on the other horizons it moves a share of the trace to the region.
struct Spike {
  int region = 0;
  double start_s = 0, duration_s = 0, factor = 1;
};

// Region `region`'s servers gone for the slots whose middle lies in [start_s, start_s +
// duration_s): its queue goes to the nearest region that is up, what is routed to it goes
// elsewhere, and its servers come back cold.
struct Outage {
  int region = 0;
  double start_s = 0, duration_s = 0;
  bool covers(double t) const { return t >= start_s && t < start_s + duration_s; }
};

// "REGION:START_H:MINUTES:FACTOR" and "REGION:START_H:MINUTES"; InputError naming --spike or
// --outage and the field otherwise.
Spike parseSpike(const std::string& text, const World& world);
Outage parseOutage(const std::string& text, const World& world);

}  // namespace doppler::fleet

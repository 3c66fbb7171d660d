#include "core/fleet/world/region_events.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/common/input_error.h"

namespace doppler::fleet {

namespace {

// The fields of "REGION:START_H:MINUTES[:...]": the region resolved, the start and the duration
// in seconds, and the numbers after them.
struct RegionWindow {
  int region = -1;
  double start_s = 0, duration_s = 0;
  std::vector<double> rest;
};

RegionWindow parseRegionWindow(const std::string& text, const World& world,
                               const std::string& option, const std::string& format,
                               size_t fieldCount) {
  const std::string where = option + " " + text;
  std::vector<std::string> fields(1);
  for (char c : text) {
    if (c == ':')
      fields.emplace_back();
    else
      fields.back().push_back(c);
  }
  if (fields.size() != fieldCount) throw InputError("", where, "expected " + format);
  auto number = [&](const std::string& field, const char* what) {
    size_t used = 0;
    double x = 0;
    try {
      x = std::stod(field, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != field.size() || !std::isfinite(x))
      throw InputError("", where, std::string(what) + " '" + field + "' is not a number");
    return x;
  };
  RegionWindow w;
  for (int r = 0; r < world.regionCount(); ++r)
    if (world.regions[r].name == fields[0]) w.region = r;
  if (w.region < 0) {
    const double index = number(fields[0], "the region (a name or an index)");
    if (index != std::floor(index) || index < 0 || index >= world.regionCount())
      throw InputError("", where,
                       "no region '" + fields[0] + "' in " + world.topology + " (names, or 0 to " +
                           std::to_string(world.regionCount() - 1) + ")");
    w.region = static_cast<int>(index);
  }
  w.start_s = number(fields[1], "the start") * 3600.0;
  w.duration_s = number(fields[2], "the duration") * 60.0;
  if (w.start_s < 0) throw InputError("", where, "the start must be 0 h or later");
  if (!(w.duration_s > 0)) throw InputError("", where, "the duration must be positive");
  for (size_t k = 3; k < fields.size(); ++k) w.rest.push_back(number(fields[k], "the factor"));
  return w;
}

}  // namespace

Spike parseSpike(const std::string& text, const World& world) {
  const RegionWindow w =
      parseRegionWindow(text, world, "--spike", "REGION:START_H:MINUTES:FACTOR, e.g. 3:2:15:3", 4);
  if (w.rest[0] < 0 || w.rest[0] > 1000)
    throw InputError("", "--spike " + text, "the factor must be from 0 to 1000");
  return {w.region, w.start_s, w.duration_s, w.rest[0]};
}

Outage parseOutage(const std::string& text, const World& world) {
  const RegionWindow w =
      parseRegionWindow(text, world, "--outage", "REGION:START_H:MINUTES, e.g. 3:2:60", 3);
  return {w.region, w.start_s, w.duration_s};
}

}  // namespace doppler::fleet

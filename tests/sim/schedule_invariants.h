#pragma once
// Checks every invariant a simulated schedule must satisfy (precedence, no overlap on a device,
// work conservation, transfers inside their link) and returns a description of each violation.
#include <string>
#include <vector>

#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"

namespace doppler::testing {

std::vector<std::string> scheduleViolations(const CostTable& costs, const Assignment& a,
                                            const SimResult& r, CostModel model);

}  // namespace doppler::testing

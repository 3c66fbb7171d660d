#pragma once
#include "core/sim/cost_table.h"

namespace doppler {

struct LowerBound {
  double critical_path_us = 0;  // longest path with each node at its fastest device, free comms
  double work_us = 0;           // total fastest-device work spread evenly over every device
  double value() const { return critical_path_us > work_us ? critical_path_us : work_us; }
};

LowerBound lowerBound(const CostTable& costs);

}  // namespace doppler

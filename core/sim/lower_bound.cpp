#include "core/sim/lower_bound.h"

#include <algorithm>
#include <vector>

namespace doppler {

LowerBound lowerBound(const CostTable& c) {
  LowerBound lb;
  // Longest path where every node runs at its fastest and communication is free.
  std::vector<double> finish(c.nodes(), 0);
  double total = 0;
  for (int v : c.topoOrder()) {
    double start = 0;
    for (const int* e = c.inBegin(v); e != c.inEnd(v); ++e)
      start = std::max(start, finish[c.edgeSrc(*e)]);
    finish[v] = start + c.minCompute(v);
    lb.critical_path_us = std::max(lb.critical_path_us, finish[v]);
    total += c.minCompute(v);
  }
  lb.work_us = c.devices() > 0 ? total / c.devices() : 0;
  return lb;
}

}  // namespace doppler

#include "core/train/device_labels.h"

namespace doppler::train {

bool devicesInterchangeable(const CostTable& c) {
  const int D = c.devices();
  for (int v = 0; v < c.nodes(); ++v)
    for (int d = 1; d < D; ++d)
      if (c.compute(v, d) != c.compute(v, 0)) return false;
  if (D < 2) return true;
  for (int e = 0; e < c.edges(); ++e) {
    const double t = c.transfer(e, 0, 1);
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b)
        if (a != b && c.transfer(e, a, b) != t) return false;
  }
  return true;
}

void canonicalDevices(const std::vector<int>& order, int devices, Assignment& a) {
  std::vector<int> label(devices, -1);
  int next = 0;
  for (int v : order)
    if (label[a[v]] < 0) label[a[v]] = next++;
  for (int d = 0; d < devices; ++d)
    if (label[d] < 0) label[d] = next++;
  for (int& d : a) d = label[d];
}

}  // namespace doppler::train

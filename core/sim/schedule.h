#pragma once
// Plain-data results of a simulation or a planned schedule; these cross threads and go to JSON,
// the run store and the views.
#include <vector>

namespace doppler {

using Assignment = std::vector<int>;  // node index -> device index

struct NodeSpan {
  int node = -1;
  int device = -1;
  double start_us = 0, finish_us = 0;
};

struct TransferSpan {
  int edge = -1;
  int src_device = -1, dst_device = -1;  // the directed link
  double start_us = 0, finish_us = 0;
};

struct IdleGap {
  int device = -1;
  double start_us = 0, finish_us = 0;
};

struct Schedule {
  std::vector<NodeSpan> nodes;          // indexed by node
  std::vector<TransferSpan> transfers;  // cross-device edges only, in edge order
  double makespan_us = 0;
};

struct SimResult {
  Schedule schedule;
  std::vector<double> busy_us;      // per device
  std::vector<double> utilization;  // busy / makespan, per device
  std::vector<IdleGap> idle_gaps;   // stretches of [0, makespan] where a device computes nothing
  std::vector<int> order;           // node indices in start order (ties by node index)
};

}  // namespace doppler

#pragma once
// A placement executed for real (core/exec, the studio's "Execute on CPU"): the measured timeline
// converted back to simulated units (measured µs / scale), so it lines up with the simulation of
// the same placement, and the figures of the run. Plain data, shared like the snapshot it
// belongs to; nothing in here refers to Qt but the one text helper.
#include <QString>
#include <memory>
#include <vector>

#include "core/sim/schedule.h"
#include "views/common/snapshot.h"

namespace doppler::views {

struct MeasuredRun {
  SnapshotPtr snapshot;             // the placement that ran; a new placement makes the run stale
  Schedule schedule;                // the median repeat's timeline, in simulated microseconds
  std::vector<double> repeats_us;   // measured makespans, real microseconds
  double measured_makespan_us = 0;  // the median, real microseconds
  double scale = 1;                 // real microseconds per simulated microsecond
  int devices = 0;
  int cores = 0;  // hardware threads of this machine
  bool shared_cores = false;
  bool outputs_match = false;  // the sinks agree with a single-device run
  std::string backend;

  int repeat() const { return static_cast<int>(repeats_us.size()); }
  double simulatedMakespan() const { return snapshot ? snapshot->makespan() : 0; }
  // (measured - simulated) / simulated, in percent, of the makespans.
  double errorPercent() const;
  // One node's: measured duration over simulated, in percent; 0 when it has no simulated time.
  double nodeErrorPercent(int node) const;
};

using MeasuredRunPtr = std::shared_ptr<const MeasuredRun>;

// Where it ran: "4 devices on 2 shared CPU cores (standing in for GPUs)" or "2 CPU cores standing
// in for 2 GPUs".
QString measuredWhere(const MeasuredRun& run);
// The node details' section for a measured run: simulated and measured duration and the error.
QString measuredNodeHtml(const MeasuredRun& run, int node);

}  // namespace doppler::views

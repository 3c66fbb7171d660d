#pragma once
// How a training run is recorded in the run store, shared by `doppler train` and the studio's
// training dashboard so that a run started in either reads the same in `doppler runs`: its spec
// (kind "train", method "doppler", the parameters that repeat it), one metric row per report,
// and at the end the greedy placement, its simulated timeline, the figures, the checkpoint and
// the status.
#include <optional>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/policy/policy_config.h"
#include "core/train/train_config.h"
#include "core/train/train_progress.h"
#include "sessions/metric_writer.h"
#include "sessions/records.h"
#include "sessions/run_store.h"

namespace doppler::sessions {

struct TrainRunInputs {
  std::string graph_file;  // absolute when a file, else as given ("generated: kind")
  double scale = 1e-6;     // the Doppler text format's microseconds per cost unit
  std::string devices;     // the device spec (absolute when a file)
  std::string from;        // the checkpoint it started from (absolute), or empty
  std::string out;         // the checkpoint it writes
};

RunSpec trainRunSpec(const TrainRunInputs& in, const train::TrainConfig& config,
                     const policy::PolicyConfig& architecture);

// One report's metrics (NaNs of figures a stage does not have are left out).
void appendTrainMetrics(MetricWriter& metrics, const train::TrainProgress& p);

// The per-step decisions of an episode, as the run store records them.
PlacementRecord episodeRecord(const DataflowGraph& g, const policy::EpisodeResult& e);

struct TrainRunOutcome {
  double greedy_makespan_us = 0;  // the final policy's greedy placement, simulated
  double lower_bound_us = 0;
};

// Saves the result (greedy placement with its decisions, simulated timeline, figures, the
// checkpoint file) and ends the run finished, or cancelled when the result says so.
TrainRunOutcome finishTrainRun(RunStore& store, int64_t run, const DataflowGraph& g,
                               const DeviceSet& d, const train::TrainConfig& config,
                               const train::TrainResult& result, const std::string& checkpoint);

}  // namespace doppler::sessions

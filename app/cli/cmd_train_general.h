#pragma once
// `doppler train --general` (cmd_train_general.cpp): its options, registered on `train`.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_common.h"
#include "run_recording.h"

namespace doppler::cli {

struct GeneralTrainArgs {
  bool general = false;
  std::string graphs = "chainmm,ffnn,llama-block,llama-layer,layered";
  int batch = 8;
  int minDevices = 2, maxDevices = 8;
  int workers = 1;
  int rank = 0, worldSize = 1;
  std::string master;
  double timeout = 120;
  int group = 4;              // stage II episodes per graph
  long teacherBudget = 2000;  // stage II teacher's local-search evaluations
  double average = 0;         // decay of the weights' moving average (0: none)
  double fixedCosts = 0;      // the share of samples given the paper files' fixed costs
  std::string teacherStart = "critical-path";  // where that search starts: critical-path, own, both
  bool teacherJoin = false;  // critical-path with the earliest-join rule competes in the teacher
};

// What `train` shares with --general.
struct GeneralTrainCommon {
  std::string stage, out, from;
  long episodes = 0;
  double lr = 0;
  uint64_t seed = 1;
  bool json = false;
  GraphArgs graphFiles;    // how --graphs files are read (--scale, --dim); its graph is unused
  RecordArgs record;       // --db, --no-record (rank 0 records)
  double entropy = -1;     // stage II entropy bonus; negative: the trainer's default
  double imitate = -1;     // stage II self-imitation weight; negative: the trainer's default
  int deviceFeatures = 0;  // --device-features; 0: the start's own (or the default)
};

void addGeneralTrainOptions(CLI::App& train, GeneralTrainArgs& args);
void runGeneralTrain(const GeneralTrainArgs& args, const GeneralTrainCommon& common);

}  // namespace doppler::cli

#pragma once
// What `doppler train` (cmd_train.cpp) and `doppler eval` (cmd_eval.cpp) share. Both are plain
// C++: the policy's LibTorch half is the module core/train/torch_module.h opens on first use.
#include <CLI/CLI.hpp>
#include <string>

#include "cli_common.h"
#include "core/graph/dataflow_graph.h"
#include "core/policy/policy_config.h"
#include "run_recording.h"
#include "sessions/records.h"

namespace doppler::cli {

// Six significant digits, as train's and eval's text output print figures.
std::string fmt(double x);
// "learned" or "heuristic"; InputError naming `option` otherwise.
policy::Component parseComponent(const std::string& s, const char* option);

void addEvalCommand(CLI::App& app);  // `doppler eval` (cmd_eval.cpp)

struct EvalArgs {
  GraphArgs graph;
  DeviceArgs devices;
  std::string policy;  // empty: the shipped general policy
  int samples = 1;
  uint64_t seed = 1;
  std::string sel = "learned", plc = "learned", costModel = "reference", discipline = "fifo";
  int threads = 1;
  bool json = false, decisions = false;
  std::vector<std::string> overrides;
  std::string out;
  std::string against = "critical-path";
  RecordArgs record;
};
// `doppler eval` (the method doppler is core/train/doppler_method.h).
void runEval(const EvalArgs& args);
// resources/data/policies/general.weights (or its installed copy); InputError when it is missing.
std::string shippedGeneralPolicy();
// Registers the shipped general policy, where its weights are there, as the method `doppler`
// and as local search's start `--param start=doppler`; nothing is loaded until a placement uses it.
void registerShippedPolicy();

}  // namespace doppler::cli

#pragma once
// What `doppler train` (cmd_train.cpp) and `doppler eval` (cmd_eval.cpp) share. Both are plain
// C++: the policy's LibTorch half is the module core/train/torch_module.h opens on first use.
#include <CLI/CLI.hpp>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/policy/policy_config.h"
#include "sessions/records.h"

namespace doppler::cli {

// Six significant digits, as train's and eval's text output print figures.
std::string fmt(double x);
// "learned" or "heuristic"; InputError naming `option` otherwise.
policy::Component parseComponent(const std::string& s, const char* option);

void addEvalCommand(CLI::App& app);  // `doppler eval` (cmd_eval.cpp)

}  // namespace doppler::cli

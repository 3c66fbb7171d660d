#pragma once
// The decision options of `place` and `eval`: `--decisions` prints a sequential method's
// decision trace (core/heuristics/decision_trace.h), `--override STEP:node=ID` and
// `--override STEP:device=D` replay it with choices changed (docs/cli.md).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/heuristics/decision_trace.h"

namespace doppler::cli {

// Parses every --override (STEP:node=ID, STEP:device=INDEX|NAME); InputError naming the option
// and what is wrong. Whether a node is ready at its step is checked when the method runs.
std::vector<DecisionOverride> parseOverrides(const std::vector<std::string>& raw,
                                             const DataflowGraph& g, const DeviceSet& d);

// The "decisions" array and the "decision_scores" object that says what the scores mean.
nlohmann::json decisionsJson(const DataflowGraph& g, const DecisionTrace& trace);
nlohmann::json decisionScoresJson(const DecisionTrace& trace);

}  // namespace doppler::cli

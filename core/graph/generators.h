#pragma once
// Parameterised generators for the paper's four workloads, with exact FLOP and byte formulas.
#include <map>
#include <string>
#include <vector>

#include "dataflow_graph.h"

namespace doppler {

struct GeneratorParam {
  std::string name;
  double value = 0;  // default
  double min = 0, max = 0;
  bool integer = true;
  std::string description;
};

struct GeneratorInfo {
  std::string kind;  // "chainmm", "ffnn", "llama-block", "llama-layer"
  std::string description;
  std::vector<GeneratorParam> params;
};

const std::vector<GeneratorInfo>& generatorKinds();
// Throws InputError (where = "--param NAME" / "kind") on an unknown kind, unknown parameter or a
// value outside its range.
DataflowGraph generateGraph(const std::string& kind,
                            const std::map<std::string, double>& overrides = {});

}  // namespace doppler

#pragma once
// A paper graph for a benchmark: read from the data folder when it is there
// ($DOPPLER_DATA_DIR, else the built-in default; core/graph/paper_data.h), else the generated
// workload of the same kind, with one line on stderr saying so.
#include <cstdio>
#include <string>

#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/graph/paper_data.h"

namespace doppler::bench {

inline DataflowGraph paperGraphOrGenerated(const std::string& file, const std::string& kind) {
  const PaperGraph p = paperGraph(file, findDataDir(), DataDirHint::Environment);
  if (p.found()) return readGraphFile(p.path);
  std::fprintf(stderr, "note: %s; timing the generated %s workload instead\n", p.missing.c_str(),
               kind.c_str());
  return generateGraph(kind);
}

}  // namespace doppler::bench

#include "tests/support/data.h"

#include <gtest/gtest.h>

#include "core/graph/graph_io.h"
#include "core/graph/paper_data.h"

namespace doppler::testing {
namespace {

void skip(const std::string& message) {
  [&] { GTEST_SKIP() << message; }();
}

}  // namespace

std::string testData(const std::string& name) {
  return std::string(DOPPLER_TEST_DATA) + "/" + name;
}

const std::vector<TestGraph>& testGraphs() {
  // Counts of tests/data/make_graphs.py's graphs.
  static const std::vector<TestGraph> graphs = {{"diamonds_12nodes.txt", 12, 14},
                                                {"chain_mm_40nodes.txt", 40, 52},
                                                {"ffnn_60nodes.txt", 60, 68}};
  return graphs;
}

DataflowGraph readTestGraph(const std::string& name) {
  return readGraphFile(testData(name));
}

std::vector<NamedGraph> readTestGraphs() {
  std::vector<NamedGraph> out;
  for (const TestGraph& t : testGraphs()) out.push_back({t.file, readTestGraph(t.file)});
  return out;
}

std::string paperGraph(const std::string& file) {
  const PaperGraph p = doppler::paperGraph(file, findDataDir(), DataDirHint::Environment);
  if (!p.found()) skip(p.missing);
  return p.path;
}

std::vector<NamedGraph> readPaperGraphs(const std::vector<std::string>& files) {
  const std::vector<std::string>& wanted = files.empty() ? paperGraphFiles() : files;
  const DataDir dir = findDataDir();
  const std::vector<std::string> missing = missingPaperGraphs(dir, wanted);
  if (!missing.empty()) {
    skip(missingPaperGraphsMessage(dir, missing, DataDirHint::Environment));
    return {};
  }
  std::vector<NamedGraph> out;
  for (const std::string& f : wanted)
    out.push_back({f, readGraphFile(doppler::paperGraph(f, dir).path)});
  return out;
}

}  // namespace doppler::testing

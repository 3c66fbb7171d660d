#pragma once
// Graph files for tests. The repository's own small Doppler-format graphs (tests/data, always
// present) and the Doppler paper's six graphs, which the repository cannot ship: those come from
// the data folder of core/graph/paper_data.h ($DOPPLER_DATA_DIR, else the compiled-in default),
// and a test that needs one is skipped, with a message that says how to provide it, when absent.
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"

namespace doppler::testing {

// tests/data/<name>.
std::string testData(const std::string& name);
// The two graphs the CLI suites drive: a 40-node chain of matmuls and a 60-node FFNN.
inline const std::string kChainGraph = testData("chain_mm_40nodes.txt");
inline const std::string kFfnnGraph = testData("ffnn_60nodes.txt");
inline constexpr size_t kChainGraphNodes = 40;

// The text graphs of tests/data with their sizes once parsed (inputs dropped).
struct TestGraph {
  std::string file;  // under tests/data
  int nodes = 0, edges = 0;
};
const std::vector<TestGraph>& testGraphs();
// Reads tests/data/<name> (any format readGraphFile takes).
DataflowGraph readTestGraph(const std::string& name);

// A named graph read from a file.
struct NamedGraph {
  std::string name;
  DataflowGraph graph;
};
// Every text graph of tests/data, in testGraphs() order, named by file.
std::vector<NamedGraph> readTestGraphs();

// The path of a paper graph (e.g. "ffnn_192nodes.txt"). When the data folder lacks it, the current
// test is marked skipped with a message naming the file and how to provide it, and "" comes back:
// the caller returns at once.
//   const std::string ffnn = paperGraph("ffnn_192nodes.txt");
//   if (ffnn.empty()) return;
std::string paperGraph(const std::string& file);
// Every one of `files` (default: all six) read, or none: skipped as above, naming the missing ones.
std::vector<NamedGraph> readPaperGraphs(const std::vector<std::string>& files = {});

}  // namespace doppler::testing

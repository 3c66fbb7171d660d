// `doppler graph import model.onnx`: an ONNX model to a dataflow-graph/1 file, optionally
// coarsened. Its summary (sizes, opset, the ops costed by output bytes) goes to stderr so that
// stdout carries only the graph; with --report FILE it is also written as JSON.
#include <chrono>
#include <iostream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/graph/coarsening.h"
#include "core/graph/graph_io.h"
#include "core/graph/onnx_import.h"

namespace doppler::cli {
namespace {

struct ImportArgs {
  std::string model;
  std::vector<std::string> dims;
  int dtypeBytes = 0;
  int coarsen = 0;
  std::string report;
  OutputArgs output;
};

double totalFlops(const DataflowGraph& g) {
  double f = 0;
  for (const Node& n : g.nodes()) f += n.flops;
  return f;
}

void runImport(const ImportArgs& args) {
  if (args.dtypeBytes < 0 || args.dtypeBytes > 16)
    throw InputError("", "--dtype-bytes", "must be between 1 and 16 (0: from the model)");
  if (args.coarsen < 0) throw InputError("", "--coarsen", "must be a positive node count");
  OnnxImportOptions opts;
  opts.dims = parseDims(args.dims);
  opts.dtype_bytes = args.dtypeBytes;
  OnnxImportReport report;
  const auto t0 = std::chrono::steady_clock::now();
  DataflowGraph g = importOnnxFile(args.model, opts, &report);
  const double importSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int fineNodes = g.nodeCount();
  CoarsenStats stats;
  if (args.coarsen > 0) g = coarsenGraph(g, args.coarsen, &stats);

  std::cerr << "imported " << args.model << ": " << fineNodes << " nodes (" << report.op_nodes
            << " ops, " << report.weight_nodes << " weights, " << report.input_nodes << " inputs";
  if (report.folded_nodes > 0) std::cerr << "; " << report.folded_nodes << " shape ops folded";
  std::cerr << "), opset " << report.opset
            << (report.producer.empty() ? "" : ", from " + report.producer) << ", "
            << totalFlops(g) / 1e9 << " GFLOP"
            << (report.external_data ? ", external weights (not read)" : "") << "\n";
  if (!report.fallbackLine().empty()) std::cerr << report.fallbackLine() << "\n";
  if (args.coarsen > 0 && g.groups)
    std::cerr << "coarsened to " << g.nodeCount() << " groups (" << stats.chain_merges << " chain, "
              << stats.scope_merges << " scope, " << stats.forced_merges << " neighbour merges)\n";
  if (!args.report.empty()) {
    nlohmann::json j = {{"model", args.model},
                        {"nodes", fineNodes},
                        {"op_nodes", report.op_nodes},
                        {"weight_nodes", report.weight_nodes},
                        {"input_nodes", report.input_nodes},
                        {"folded_nodes", report.folded_nodes},
                        {"edges", g.groups ? g.groups->fine.edgeCount() : g.edgeCount()},
                        {"opset", report.opset},
                        {"ir_version", report.ir_version},
                        {"producer", report.producer},
                        {"external_data", report.external_data},
                        {"flops", totalFlops(g)},
                        {"costed_by_output_bytes", report.costed_by_output_bytes},
                        {"import_seconds", importSeconds}};
    if (args.coarsen > 0) {
      j["coarse_nodes"] = g.nodeCount();
      j["coarsen"] = {{"chain_merges", stats.chain_merges},
                      {"scope_merges", stats.scope_merges},
                      {"forced_merges", stats.forced_merges},
                      {"scope_depth", stats.scope_depth}};
    }
    writeOutput(args.report, dump(j) + "\n");
  }
  writeResult(args.output, writeGraphJson(g));
}

}  // namespace

void addGraphImportCommand(CLI::App& graph) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = graph.add_subcommand(
      "import", "Import an ONNX model as a dataflow graph (costs from shapes; docs/onnx.md)");
  cmd->add_option("model", args->model, "The .onnx file")->required();
  cmd->add_option("--dim", args->dims,
                  "Bind a dynamic dimension: NAME=VALUE (repeatable), e.g. --dim batch=8");
  cmd->add_option("--dtype-bytes", args->dtypeBytes,
                  "Bytes per element for every tensor (default: from each tensor's type)");
  cmd->add_option("--coarsen", args->coarsen,
                  "Merge chains and name scopes until at most N nodes remain (members kept)");
  cmd->add_option("--report", args->report, "Also write the import summary as JSON to this file");
  addOutputOptions(*cmd, args->output, /*jsonFlag=*/false,
                   "Write the graph (dataflow-graph/1 JSON) to this file instead of stdout");
  cmd->callback([args] { runImport(*args); });
}

}  // namespace doppler::cli

// readGraphFile: any graph file, its format told by content: ONNX models go to the importer,
// the rest to the JSON and text readers. In doppler_onnx, with the importer, so that only the
// programs that read graph files link protobuf and ONNX.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/graph/graph_io.h"

namespace doppler {

namespace {

std::string fileHead(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[2] = {0, 0};
  in.read(head, 2);
  return std::string(head, static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
}

}  // namespace

DataflowGraph readGraphFile(const std::string& path, const ReadOptions& opts) {
  if (looksLikeOnnx(path, fileHead(path))) return importOnnxFile(path, opts.onnx);
  DataflowGraph g = parseGraph(readTextFile(path, opts.max_bytes), opts, path);
  // The text format carries no name: the file's stem ("ffnn_192nodes") says what it is.
  if (g.name.empty() || g.name == "doppler-text")
    g.name = std::filesystem::path(path).stem().string();
  return g;
}

}  // namespace doppler

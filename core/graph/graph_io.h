#pragma once
// Reading and writing graphs and device sets. Formats are detected by content, not extension:
// `dataflow-graph/1` JSON, or the Doppler reference text format (both in docs/formats.md);
// readGraphFile also imports ONNX models (docs/onnx.md).
#include <string>
#include <string_view>

#include "dataflow_graph.h"
#include "device_set.h"
#include "onnx_import.h"

namespace doppler {

struct ReadOptions {
  // Doppler text format: node compute = compute cost x scale, edge u->v = comm cost of u x scale,
  // in microseconds.
  double doppler_scale = 1e-6;
  // Files larger than this are refused before parsing (a clear error instead of a long stall).
  std::size_t max_bytes = 64u << 20;
  // ONNX models (a ".onnx" name, or content that starts like a ModelProto): dimension bindings
  // and element size. Their own size limit is onnx.max_bytes (weights make them large).
  OnnxImportOptions onnx;
};

// Every reader throws InputError with file, place (line or JSON path) and problem.
DataflowGraph parseGraph(std::string_view text, const ReadOptions& opts = {},
                         const std::string& file = {});
DataflowGraph parseGraphJson(std::string_view text, const std::string& file = {});
DataflowGraph parseDopplerText(std::string_view text, double scale = 1e-6,
                               const std::string& file = {});
DeviceSet parseDeviceSet(std::string_view text, const std::string& file = {});

// Any graph file, ONNX models included: link doppler_onnx for it (graph_file_reading.cpp).
DataflowGraph readGraphFile(const std::string& path, const ReadOptions& opts = {});
DeviceSet readDeviceFile(const std::string& path, std::size_t max_bytes = 16u << 20);
// Reads a whole file, refusing missing, unreadable, empty or oversized files with InputError.
std::string readTextFile(const std::string& path, std::size_t max_bytes);

std::string writeGraphJson(const DataflowGraph& g, int indent = 1);
std::string writeDeviceSetJson(const DeviceSet& d, int indent = 1);

}  // namespace doppler

// Whole-file reading with the checks every reader shares, and format detection by content
// (readGraphFile, which also imports ONNX, is in graph_file_reading.cpp, in doppler_onnx).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"

namespace doppler {

std::string readTextFile(const std::string& path, std::size_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw InputError(path, "", "no such file");
  if (fs::is_directory(status)) throw InputError(path, "", "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
  // Read at most max_bytes + 1 so a huge file (or an endless device) is refused without
  // reading it whole; in chunks, so that a small file costs only its size.
  std::string text;
  // Reserve the size up front: a large model would otherwise be copied at every doubling.
  if (auto size = fs::file_size(path, ec); !ec && size <= max_bytes)
    text.reserve(static_cast<size_t>(size) + 1);
  char chunk[1 << 16];
  while (text.size() <= max_bytes) {
    const size_t want = std::min(sizeof chunk, max_bytes + 1 - text.size());
    in.read(chunk, static_cast<std::streamsize>(want));
    if (in.gcount() == 0) break;
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (text.size() > max_bytes)
    throw InputError(path, "",
                     "file is larger than the " + std::to_string(max_bytes >> 20) + " MiB limit");
  if (text.empty()) throw InputError(path, "", "file is empty");
  return text;
}

namespace {

// The first byte that is not printable text, if any (a binary file gets one clear message).
std::optional<size_t> binaryByte(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0 || (c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v'))
      return i;
  }
  return std::nullopt;
}

std::string_view skipBlankAndBom(std::string_view t) {
  if (t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF") t.remove_prefix(3);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  return t;
}

}  // namespace

DataflowGraph parseGraph(std::string_view text, const ReadOptions& opts, const std::string& file) {
  if (auto b = binaryByte(text))
    throw InputError(file, "byte " + std::to_string(*b),
                     "binary data: not a dataflow-graph/1 JSON or Doppler text graph");
  std::string_view body = skipBlankAndBom(text);
  if (body.empty()) throw InputError(file, "", "file has no content (only blanks)");
  if (body.front() == '{' || body.front() == '[') return parseGraphJson(text, file);
  if (std::isdigit(static_cast<unsigned char>(body.front())))
    return parseDopplerText(text, opts.doppler_scale, file);
  throw InputError(file, "line 1",
                   "not a graph: expected a dataflow-graph/1 JSON object or a Doppler text graph "
                   "(a node count)");
}

DeviceSet readDeviceFile(const std::string& path, std::size_t max_bytes) {
  std::string text = readTextFile(path, max_bytes);
  if (auto b = binaryByte(text))
    throw InputError(path, "byte " + std::to_string(*b), "binary data: not a device-set/1 JSON");
  return parseDeviceSet(text, path);
}

}  // namespace doppler

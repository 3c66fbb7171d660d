#include "core/graph/paper_data.h"

#include <cstdlib>
#include <filesystem>

#ifndef DOPPLER_DEFAULT_DATA_DIR
#define DOPPLER_DEFAULT_DATA_DIR ""
#endif

namespace doppler {
namespace {

namespace fs = std::filesystem;

bool isDirectory(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_directory(path, ec);
}

bool isFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

const std::vector<std::string>& paperGraphFiles() {
  static const std::vector<std::string> files = {
      "chain_mm_112nodes.txt",          "ffnn_192nodes.txt",
      "transformer_block_215nodes.txt", "full_transformer_layer_261nodes.txt",
      "8gpu_transformer_block.txt",     "8gpu_full_transformer.txt"};
  return files;
}

const std::string& defaultDataDir() {
  static const std::string dir = DOPPLER_DEFAULT_DATA_DIR;
  return dir;
}

std::string DataDir::describe() const {
  std::string s;
  switch (source) {
    case Source::None:
      return std::string("no data folder (") + kDataDirEnv + " is unset and the default " +
             (defaultDataDir().empty() ? std::string("is empty") : defaultDataDir()) +
             " does not exist)";
    case Source::Explicit:
      s = path + " (--data-dir)";
      break;
    case Source::Environment:
      s = path + " (" + kDataDirEnv + ")";
      break;
    case Source::Default:
      s = path + " (the default)";
      break;
  }
  if (!isDirectory(path)) s += ", a folder that does not exist";
  return s;
}

DataDir findDataDir(const std::string& explicitDir, const char* env, const std::string& fallback) {
  if (!explicitDir.empty()) return {explicitDir, DataDir::Source::Explicit};
  if (env && *env) return {env, DataDir::Source::Environment};
  if (isDirectory(fallback)) return {fallback, DataDir::Source::Default};
  return {};
}

DataDir findDataDir(const std::string& explicitDir) {
  return findDataDir(explicitDir, std::getenv(kDataDirEnv), defaultDataDir());
}

std::vector<std::string> missingPaperGraphs(const DataDir& dir,
                                            const std::vector<std::string>& files) {
  std::vector<std::string> missing;
  for (const std::string& f : files)
    if (dir.path.empty() || !isFile(fs::path(dir.path) / kPaperGraphsFolder / f))
      missing.push_back(f);
  return missing;
}

std::string missingPaperGraphsMessage(const DataDir& dir, const std::vector<std::string>& missing,
                                      DataDirHint hint) {
  std::string list;
  for (const std::string& f : missing)
    list += (list.empty() ? "" : ", ") + std::string(kPaperGraphsFolder) + "/" + f;
  std::string s = missing.size() == 1 ? "the Doppler paper graph " + list + " was not found"
                                      : "the Doppler paper graphs (" + list + ") were not found";
  s += dir.source == DataDir::Source::None ? ": " : " in ";
  s += dir.describe() + ": ";
  if (hint == DataDirHint::OptionOrEnvironment) s += "pass --data-dir DIR or ";
  s += std::string("set ") + kDataDirEnv + "=DIR, where DIR/" + kPaperGraphsFolder +
       "/ holds the files of github.com/xinyuyao/Doppler's compute_graph/";
  return s;
}

PaperGraph paperGraph(const std::string& file, const DataDir& dir, DataDirHint hint) {
  if (missingPaperGraphs(dir, {file}).empty())
    return {(fs::path(dir.path) / kPaperGraphsFolder / file).string(), {}};
  return {{}, missingPaperGraphsMessage(dir, {file}, hint)};
}

}  // namespace doppler

#include "output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/common/temporary_name.h"
#include "core/graph/input_error.h"

namespace doppler::cli {

void addOutputOptions(CLI::App& cmd, OutputArgs& args, bool jsonFlag, const std::string& outHelp) {
  if (jsonFlag) cmd.add_flag("--json", args.json, "Print one JSON object");
  cmd.add_option("--out,-o", args.out, outHelp);
}

void writeResult(const OutputArgs& args, const std::function<nlohmann::json()>& json,
                 const std::function<std::string()>& text) {
  writeOutput(args.out, args.json ? dump(json()) : text());
}

void writeResult(const OutputArgs& args, const std::string& text) {
  writeOutput(args.out, text);
}

void writeOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  // Write beside the target and rename, so a failed write never leaves a half file behind.
  const std::string tmp = temporarySibling(path);
  std::ofstream out(tmp, std::ios::binary);
  if (!out) throw InputError(path, "", std::string("cannot write: ") + std::strerror(errno));
  out << text;
  out.close();
  std::error_code ec;
  if (!out) {
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "write failed (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "cannot write: " + ec.message());
  }
}

std::string dump(const nlohmann::json& j) {
  return j.dump() + "\n";
}

}  // namespace doppler::cli

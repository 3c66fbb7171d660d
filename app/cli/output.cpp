#include "output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/common/input_error.h"
#include "core/common/temporary_name.h"
#include "core/graph/json_access.h"

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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, "", "is a directory: give a file name to write to");
  // Write beside the target and rename, so a failed write never leaves a half file behind.
  const std::string tmp = temporarySibling(path);
  errno = 0;
  std::ofstream out(tmp, std::ios::binary);
  if (!out)
    throw InputError(path, "",
                     std::string("cannot write: ") +
                         (errno ? std::strerror(errno) : "cannot create a file beside it"));
  out << text;
  out.close();
  if (!out) {
    const int why = errno;
    std::filesystem::remove(tmp, ec);
    // As the run store words it (sessions/sqlite_db.cpp): one cause, one wording.
    throw InputError(
        path, "",
        why == ENOSPC || why == EFBIG || why == EDQUOT
            ? std::string("cannot write: disk full")
            : std::string("cannot write: ") + (why ? std::strerror(why) : "the write failed"));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "cannot write: " + ec.message());
  }
}

std::string dump(const nlohmann::json& j) {
  return json_access::dump(j) + "\n";
}

}  // namespace doppler::cli

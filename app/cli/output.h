#pragma once
// How every `doppler` command delivers its result: `--json` (one JSON object instead of text for
// people) and `--out FILE` (instead of stdout), added and honoured the same way everywhere.
#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace doppler::cli {

struct OutputArgs {
  bool json = false;
  std::string out;  // empty or "-": stdout
};

// Adds --out, and --json unless the command has a single format (a graph file, a trace).
void addOutputOptions(
    CLI::App& cmd, OutputArgs& args, bool jsonFlag = true,
    const std::string& outHelp = "Write the result to this file instead of stdout");

// Writes json() (with --json) or text() to --out or stdout; only the one asked for is built.
void writeResult(const OutputArgs& args, const std::function<nlohmann::json()>& json,
                 const std::function<std::string()>& text);
// A single-format result.
void writeResult(const OutputArgs& args, const std::string& text);

// Writes text to `path`, or to stdout when path is empty or "-". Throws InputError if the file
// cannot be written; a failed write leaves an existing file as it was.
void writeOutput(const std::string& path, const std::string& text);

// A result for --json, on one line. Doubles print without noise: integers without a fraction,
// others with as many digits as it takes to read them back exactly.
std::string dump(const nlohmann::json& j);

}  // namespace doppler::cli

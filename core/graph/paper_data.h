#pragma once
// Where the Doppler paper's six text graphs are. They carry no licence, so the repository never
// ships them (its own small graphs are in tests/data): they live in `doppler-graphs/` under a data
// folder, found in this order:
//   1. an explicit folder (the `--data-dir` option),
//   2. the environment variable DOPPLER_DATA_DIR,
//   3. the compiled-in default (CMake's DOPPLER_DEFAULT_DATA_DIR, `<source>/../shared/data`),
//      only if that folder exists.
// An explicit folder or the variable wins even when it lacks the files: the message then names it.
#include <string>
#include <vector>

namespace doppler {

inline constexpr const char* kDataDirEnv = "DOPPLER_DATA_DIR";
inline constexpr const char* kPaperGraphsFolder = "doppler-graphs";

// The six files (format in docs/formats.md): CHAINMM, FFNN, LLAMA-BLOCK, LLAMA-LAYER, and
// the two 8-device graphs.
const std::vector<std::string>& paperGraphFiles();

// The compiled-in default data folder (it need not exist).
const std::string& defaultDataDir();

struct DataDir {
  enum class Source { None, Explicit, Environment, Default };
  std::string path;  // empty for Source::None
  Source source = Source::None;
  // Where the folder came from, for messages: "/x (--data-dir)", "/x (DOPPLER_DATA_DIR)", ...
  std::string describe() const;
};

// The rule above with this process's environment and the compiled-in default.
DataDir findDataDir(const std::string& explicitDir = {});
// The same rule with every input given: `env` is the variable's value (nullptr when unset).
DataDir findDataDir(const std::string& explicitDir, const char* env, const std::string& fallback);

// What a missing paper graph is reported with: the CLI offers its option, tests only the variable.
enum class DataDirHint { OptionOrEnvironment, Environment };

// One paper graph: its path, or one line naming what is missing and how to provide it.
struct PaperGraph {
  std::string path;     // set when the file exists
  std::string missing;  // else the message
  bool found() const { return missing.empty(); }
};
PaperGraph paperGraph(const std::string& file, const DataDir& dir,
                      DataDirHint hint = DataDirHint::OptionOrEnvironment);

// The files of `files` (names as in paperGraphFiles()) that `dir` does not hold.
std::vector<std::string> missingPaperGraphs(const DataDir& dir,
                                            const std::vector<std::string>& files);
// "the Doppler paper graphs (doppler-graphs/a.txt, ...) were not found in <dir>: pass --data-dir
// or set DOPPLER_DATA_DIR ..." (one line, no trailing newline).
std::string missingPaperGraphsMessage(const DataDir& dir, const std::vector<std::string>& missing,
                                      DataDirHint hint = DataDirHint::OptionOrEnvironment);

}  // namespace doppler

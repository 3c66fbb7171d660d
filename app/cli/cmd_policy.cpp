// `doppler policy export|show`: a policy's weights for placing (core/policy/network_weights.h),
// written from a training checkpoint, and what either kind of file holds.
#include <filesystem>
#include <sstream>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/graph/json_access.h"
#include "core/policy/network_weights.h"
#include "core/train/loaded_policy.h"
#include "output.h"

namespace doppler::cli {
namespace {

struct PolicyArgs {
  std::string file;
  std::string out;
  OutputArgs output;
};

nlohmann::json describe(const std::string& file, const train::LoadedPolicy& p) {
  const nlohmann::json& meta = p.meta();
  nlohmann::json j = {{"file", file},
                      {"format", policy::isWeightsFile(file) ? policy::kWeightsFormat
                                                             : "doppler-policy/1 (LibTorch)"},
                      {"architecture", p.architecture().toJson()},
                      {"parameters", p.weights().parameterCount()}};
  // The trainer's figures, where it stored them (a general policy's, or a per-graph one's).
  for (const char* key : {"stage", "general", "episodes_done", "fingerprint", "exported_from"})
    if (meta.contains(key)) j[key] = meta[key];
  return j;
}

std::string describeText(const nlohmann::json& j) {
  std::ostringstream s;
  s << j["file"].get<std::string>() << "\n  format        " << j["format"].get<std::string>()
    << "\n  architecture  " << policy::PolicyConfig::fromJson(j["architecture"]).describe()
    << " (version " << j["architecture"]["version"] << ")\n  parameters    " << j["parameters"]
    << "\n";
  for (const char* key : {"stage", "general", "episodes_done", "fingerprint", "exported_from"})
    if (j.contains(key)) {
      std::string name = key;
      name.resize(std::max<size_t>(name.size(), 13), ' ');
      s << "  " << name << " "
        << (j[key].is_string() ? j[key].get<std::string>() : json_access::dump(j[key])) << "\n";
    }
  return s.str();
}

}  // namespace

void addPolicyCommands(CLI::App& app) {
  CLI::App* policy = app.add_subcommand(
      "policy", "A trained policy's files: export weights for placing, show one");
  policy->require_subcommand(1);

  auto ex = std::make_shared<PolicyArgs>();
  CLI::App* exp = policy->add_subcommand(
      "export",
      "Write a checkpoint's weights as a doppler-policy-weights/1 file, which places (place, eval, "
      "the studio) without loading LibTorch");
  exp->add_option("checkpoint", ex->file, "A policy checkpoint (train --out)")->required();
  exp->add_option("-o,--out", ex->out, "The weights file to write")->required();
  exp->callback([ex] {
    if (policy::isWeightsFile(ex->file))
      throw InputError(ex->file, "", "already a weights file; export reads a training checkpoint");
    const std::unique_ptr<train::LoadedPolicy> p = train::openPolicy(ex->file);
    policy::NetworkWeights w = p->weights();
    // Which checkpoint it came from, for `policy show` (the name only: the path is this machine's).
    w.meta["exported_from"] = std::filesystem::path(ex->file).filename().string();
    policy::writeWeightsFile(ex->out, w);
  });

  auto sh = std::make_shared<PolicyArgs>();
  CLI::App* show = policy->add_subcommand(
      "show", "A weights file's or checkpoint's architecture, size and training metadata");
  show->add_option("file", sh->file, "A weights file or a policy checkpoint")->required();
  addOutputOptions(*show, sh->output);
  show->callback([sh] {
    const nlohmann::json j = describe(sh->file, *train::openPolicy(sh->file));
    writeResult(
        sh->output, [&] { return j; }, [&] { return describeText(j); });
  });
}

}  // namespace doppler::cli

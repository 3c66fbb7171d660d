// Policy checkpoints (LibTorch archives): the format tag, the architecture, metadata, parameters,
// and for the trainer the optimiser's state and its best parameters so far.
#include <cstdint>
#include <filesystem>

#include "core/common/input_error.h"
#include "core/common/temporary_name.h"
#include "core/graph/json_access.h"
#include "core/policy/network_weights.h"
#include "core/policy/policy_impl.h"

namespace doppler::policy {

namespace {

constexpr const char* kFormat = "doppler-policy/1";

}  // namespace

void Policy::save(const std::string& path, const nlohmann::json& meta) const {
  writeCheckpoint(path, *impl_, meta, nullptr);
}

Policy Policy::load(const std::string& path, nlohmann::json* meta) {
  // One read of the archive, and none of the orthogonal initialisation a new policy gets: the
  // checkpoint replaces every weight. Together about 30 ms of CPU in every process that loads a
  // policy (the CLI's `place --method doppler`, the studio's tuner; measured on LLAMA-LAYER).
  std::unique_ptr<Impl> impl;
  nlohmann::json m = readCheckpoint(path, nullptr, nullptr, nullptr, nullptr, nullptr,
                                    [&](const PolicyConfig& config) {
                                      config.validate();
                                      impl = std::make_unique<Impl>();
                                      impl->config = config;
                                      impl->net = Net(config);
                                      return impl.get();
                                    });
  if (meta) *meta = std::move(m);
  return Policy(std::move(impl));
}

void Policy::loadWeights(const std::string& path, nlohmann::json* meta) {
  nlohmann::json m = readCheckpoint(path, nullptr, impl_.get(), nullptr);
  if (meta) *meta = std::move(m);
}

nlohmann::json Policy::readMeta(const std::string& path, PolicyConfig* config) {
  return readCheckpoint(path, config, nullptr, nullptr);
}

namespace {
// What the trainers read back from a checkpoint's metadata when they resume (with `value` and
// `get`, which throw on a wrong type), checked once where the checkpoint opens so that a damaged
// or hand-edited field is refused naming it. Missing fields keep their readers' defaults.
void checkMeta(const nlohmann::json& meta) {
  namespace ja = json_access;
  if (!meta.is_object()) throw std::runtime_error("meta must be an object");
  const auto indices = [](const nlohmann::json& j) {
    if (!j.is_array()) return false;
    for (const nlohmann::json& x : j)
      if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() > INT32_MAX)
        return false;
    return true;
  };
  ja::checkFields(meta, "meta.",
                  {{"stage", ja::isText, "a stage name"},
                   {"fingerprint", ja::isText, "a text"},
                   {"general", ja::isFlag, "true or false"},
                   {"episodes_done", ja::isWholeCount, "a whole number"},
                   {"updates_done", ja::isWholeCount, "a whole number"},
                   {"average", ja::isFinite, "a number"},
                   {"best_assignment", indices, "a list of device indices"},
                   {"best_order", indices, "a list of node indices"}});
  const auto baseline = meta.find("baseline");
  if (baseline == meta.end()) return;
  if (!baseline->is_object()) throw std::runtime_error("meta.baseline must be an object");
  ja::checkFields(*baseline, "meta.baseline.",
                  {{"mean", ja::isFinite, "a number"},
                   {"var", ja::isFinite, "a number"},
                   {"count", ja::isWholeCount, "a whole number"}});
}

// "t0", "t1", ... (built without operator+, which trips GCC 12's -Wrestrict false positive).
std::string extraKey(size_t i) {
  std::string key = std::to_string(i);
  key.insert(key.begin(), 't');
  return key;
}
}  // namespace

void writeCheckpoint(const std::string& path, const Policy::Impl& impl, const nlohmann::json& meta,
                     torch::optim::Optimizer* optimizer, const std::vector<torch::Tensor>* extra) {
  torch::serialize::OutputArchive archive;
  archive.write("doppler_format", c10::IValue(std::string(kFormat)));
  archive.write("architecture", c10::IValue(impl.config.toJson().dump()));
  archive.write("meta", c10::IValue(json_access::dump(meta)));
  torch::serialize::OutputArchive model;
  impl.net->save(model);
  archive.write("model", model);
  if (optimizer) {
    torch::serialize::OutputArchive opt;
    optimizer->save(opt);
    archive.write("optimizer", opt);
  }
  if (extra && !extra->empty()) {
    torch::serialize::OutputArchive more;
    for (size_t i = 0; i < extra->size(); ++i) more.write(extraKey(i), (*extra)[i]);
    archive.write("extra", more);
  }
  saveArchiveAtomically(archive, path);
}

void saveArchiveAtomically(torch::serialize::OutputArchive& archive, const std::string& path) {
  const std::string tmp = temporarySibling(path);
  std::error_code ec;
  try {
    archive.save_to(tmp);
  } catch (const c10::Error& e) {
    std::filesystem::remove(tmp, ec);  // a disk that filled up mid-write: no stray part-file
    throw InputError(path, "",
                     "cannot write the checkpoint: " + std::string(e.what_without_backtrace()));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "", "cannot write the checkpoint: " + why);
  }
}

nlohmann::json readCheckpoint(const std::string& path, PolicyConfig* config, Policy::Impl* impl,
                              torch::optim::Optimizer* optimizer, bool* had_optimizer,
                              std::vector<torch::Tensor>* extra,
                              const std::function<Policy::Impl*(const PolicyConfig&)>& make) {
  if (std::filesystem::is_directory(path))
    throw InputError(path, "", "is a directory, not a checkpoint file");
  if (!std::filesystem::is_regular_file(path))
    throw InputError(path, "", "no such checkpoint file");
  if (isWeightsFile(path))
    throw InputError(path, "",
                     "a policy's weights exported for placing (doppler policy export), not a "
                     "training checkpoint: train from the checkpoint they were exported from");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error&) {
    throw InputError(path, "", "not a Doppler policy checkpoint (not a LibTorch archive)");
  }
  c10::IValue v;
  if (!archive.try_read("doppler_format", v) || !v.isString())
    throw InputError(path, "", "not a Doppler policy checkpoint (no doppler_format entry)");
  if (v.toStringRef() != kFormat)
    throw InputError(
        path, "doppler_format",
        "unsupported checkpoint format '" + v.toStringRef() + "' (expected " + kFormat + ")");
  PolicyConfig stored;
  nlohmann::json meta;
  const char* part = "architecture";  // the entry being read, for the error
  try {
    archive.read("architecture", v);
    stored = PolicyConfig::fromJson(nlohmann::json::parse(v.toStringRef()));
    part = "meta";
    archive.read("meta", v);
    meta = nlohmann::json::parse(v.toStringRef());
    checkMeta(meta);
  } catch (const InputError& e) {
    throw e.inFile(path);
  } catch (const std::exception& e) {
    throw InputError(path, part, std::string("damaged checkpoint: ") + e.what());
  }
  if (config) *config = stored;
  if (!impl && make) impl = make(stored);
  if (impl) {
    if (!(impl->config == stored))
      throw InputError(path, "architecture",
                       "checkpoint holds a policy of another architecture (" + stored.describe() +
                           "); this policy is " + impl->config.describe());
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& t : impl->net->parameters()) shapes.push_back(t.sizes().vec());
    try {
      torch::serialize::InputArchive model;
      archive.read("model", model);
      impl->net->load(model);
    } catch (const c10::Error& e) {
      throw InputError(path, "model",
                       "damaged checkpoint: " + std::string(e.what_without_backtrace()));
    }
    auto params = impl->net->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].sizes().vec() != shapes[i])
        throw InputError(path, "model", "parameter shapes do not match the stored architecture");
  }
  if (had_optimizer) *had_optimizer = false;
  if (optimizer) {
    torch::serialize::InputArchive opt;
    bool has = false;
    try {
      has = archive.try_read("optimizer", opt);
      if (has) optimizer->load(opt);
    } catch (const c10::Error& e) {
      throw InputError(path, "optimizer",
                       "damaged checkpoint: " + std::string(e.what_without_backtrace()));
    }
    if (had_optimizer) *had_optimizer = has;
  }
  if (extra) {
    extra->clear();
    torch::serialize::InputArchive more;
    try {
      if (archive.try_read("extra", more)) {
        torch::Tensor t;
        for (size_t i = 0; more.try_read(extraKey(i), t); ++i) {
          extra->push_back(t.clone());
          t = torch::Tensor();
        }
      }
    } catch (const c10::Error& e) {
      throw InputError(path, "extra",
                       "damaged checkpoint: " + std::string(e.what_without_backtrace()));
    }
  }
  return meta;
}

}  // namespace doppler::policy

#include "core/fleet/learn/fleet_networks.h"

#include <filesystem>

#include "core/common/input_error.h"
#include "core/fleet/learn/torta_features.h"
#include "core/graph/json_access.h"
#include "core/policy/policy_impl.h"

namespace doppler::fleet::learn {

namespace {

constexpr const char* kFormat = "doppler-fleet-policy/1";

torch::nn::Sequential mlp(int in, int hidden, int out) {
  return torch::nn::Sequential(torch::nn::Linear(in, hidden), torch::nn::ReLU(),
                               torch::nn::Linear(hidden, hidden), torch::nn::ReLU(),
                               torch::nn::Linear(hidden, out));
}

}  // namespace

FleetNetsImpl::FleetNetsImpl(int n, int h, double init_log_std) : regions(n), hidden(h) {
  policy = register_module("policy", mlp(observationSize(n), h, actionSize(n)));
  critic = register_module("critic", mlp(observationSize(n), h, 1));
  predictor = register_module("predictor", mlp(predictorInputSize(n), 256, n));
  log_std = register_parameter("log_std", torch::full({actionSize(n)}, init_log_std));
  // A fresh policy starts at the OT plan: its last layer's outputs start near zero.
  torch::NoGradGuard guard;
  auto last = policy->ptr<torch::nn::LinearImpl>(4);
  last->weight.mul_(0.01);
  last->bias.zero_();
}

torch::Tensor FleetNetsImpl::mean(const torch::Tensor& obs) {
  return policy->forward(obs);
}
torch::Tensor FleetNetsImpl::value(const torch::Tensor& obs) {
  return critic->forward(obs).squeeze(-1);
}
torch::Tensor FleetNetsImpl::predict(const torch::Tensor& in) {
  return predictor->forward(in);
}

void saveFleetCheckpoint(const std::string& path, FleetNets& nets, const nlohmann::json& meta,
                         torch::optim::Optimizer* optimizer) {
  nlohmann::json m = meta;
  m["regions"] = nets->regions;
  m["hidden"] = nets->hidden;
  torch::serialize::OutputArchive archive;
  archive.write("doppler_format", c10::IValue(std::string(kFormat)));
  archive.write("meta", c10::IValue(json_access::dump(m)));
  torch::serialize::OutputArchive model;
  nets->save(model);
  archive.write("model", model);
  if (optimizer) {
    torch::serialize::OutputArchive opt;
    optimizer->save(opt);
    archive.write("optimizer", opt);
  }
  policy::saveArchiveAtomically(archive, path);
}

namespace {

// What the program reads back from a checkpoint's metadata (with `value`, which throws on a
// wrong type): each is checked here, once, so that a damaged or hand-edited field is refused
// naming it instead of ending the program where it is read (fleet_methods, torta_policy,
// fleet_ppo's resume). Missing fields keep their readers' defaults.
void checkMeta(const nlohmann::json& meta) {
  namespace ja = json_access;
  // Episodes are read into an int.
  const auto episodes = [](const nlohmann::json& j) {
    return ja::isWholeCount(j) && j.get<int64_t>() <= (1ll << 40);
  };
  const auto window = [](const nlohmann::json& j) {
    return j.is_number_integer() && j.get<int64_t>() >= 1 && j.get<int64_t>() <= 1000;
  };
  ja::checkFields(meta, "meta.",
                  {{"topology", ja::isText, "a name"},
                   {"checkpoint", ja::isText, "a path"},
                   {"has_predictor", ja::isFlag, "true or false"},
                   {"episodes_done", episodes, "a whole number of episodes"},
                   {"predictor_accuracy", ja::isFiniteNonNegative, "a number"},
                   {"baseline_accuracy", ja::isFiniteNonNegative, "a number"}});
  const auto config = meta.find("config");
  if (config == meta.end()) return;
  if (!config->is_object()) throw std::runtime_error("meta.config must be an object");
  ja::checkFields(*config, "meta.config.",
                  {{"safety_threshold", ja::isFinitePositive, "a number above 0"},
                   {"safety_window", window, "a whole number of slots from 1 to 1000"},
                   {"ot_power_weight", ja::isFiniteNonNegative, "a number of at least 0"}});
}

torch::serialize::InputArchive openArchive(const std::string& path, nlohmann::json* meta) {
  if (!std::filesystem::is_regular_file(path))
    throw InputError(path, "", "no such fleet policy checkpoint");
  torch::serialize::InputArchive archive;
  c10::IValue v;
  bool tagged = false;
  try {
    archive.load_from(path);
    tagged = archive.try_read("doppler_format", v) && v.isString();
  } catch (const std::exception&) {
    // c10::Error for what is not an archive; other exceptions from a damaged one's code section.
    throw InputError(path, "", "not a fleet policy checkpoint (not a readable LibTorch archive)");
  }
  if (!tagged)
    throw InputError(path, "", "not a fleet policy checkpoint (no doppler_format entry)");
  if (v.toStringRef() != kFormat)
    throw InputError(
        path, "doppler_format",
        "'" + v.toStringRef() + "' is not a fleet policy checkpoint (expected " + kFormat + ")");
  try {
    archive.read("meta", v);
    *meta = nlohmann::json::parse(v.toStringRef());
    if (!meta->contains("regions") || !(*meta)["regions"].is_number_integer() ||
        (*meta)["regions"].get<int>() < 1 || (*meta)["regions"].get<int>() > 4096 ||
        !meta->contains("hidden") || !(*meta)["hidden"].is_number_integer() ||
        (*meta)["hidden"].get<int>() < 1 || (*meta)["hidden"].get<int>() > 4096)
      // Bounded so a damaged size cannot ask for terabytes before the weights are checked.
      throw std::runtime_error("no valid regions (1-4096) or hidden size (1-4096)");
    checkMeta(*meta);
  } catch (const std::exception& e) {
    throw InputError(path, "meta", std::string("damaged checkpoint: ") + e.what());
  }
  return archive;
}

}  // namespace

FleetNets loadFleetCheckpoint(const std::string& path, nlohmann::json* meta,
                              torch::optim::Optimizer* optimizer) {
  nlohmann::json m;
  torch::serialize::InputArchive archive = openArchive(path, &m);
  FleetNets nets(m["regions"].get<int>(), m["hidden"].get<int>(), -1.0);
  try {
    torch::serialize::InputArchive model;
    archive.read("model", model);
    nets->load(model);
    if (optimizer) {
      torch::serialize::InputArchive opt;
      if (archive.try_read("optimizer", opt)) optimizer->load(opt);
    }
  } catch (const c10::Error& e) {
    throw InputError(path, "model",
                     std::string("damaged checkpoint: ") + e.what_without_backtrace());
  } catch (const std::exception&) {
    // Not c10::Error: a damaged archive's code section; its message spans many lines.
    throw InputError(path, "model", "damaged checkpoint (its archive cannot be parsed)");
  }
  m["checkpoint"] = path;
  if (meta) *meta = m;
  return nets;
}

namespace {

class TorchFleetActor final : public FleetActor {
 public:
  TorchFleetActor(FleetNets nets, nlohmann::json meta, bool has_predictor)
      : nets_(std::move(nets)), meta_(std::move(meta)), has_predictor_(has_predictor) {}
  int regions() const override { return nets_->regions; }
  ActorOutput act(const std::vector<float>& obs) const override {
    torch::NoGradGuard guard;
    const torch::Tensor x = torch::from_blob(const_cast<float*>(obs.data()),
                                             {1, static_cast<long>(obs.size())}, torch::kFloat32);
    const torch::Tensor mean = nets_->mean(x).squeeze(0).to(torch::kFloat64).contiguous();
    const torch::Tensor ls = nets_->log_std.detach().to(torch::kFloat64).contiguous();
    ActorOutput out;
    out.mean.assign(mean.data_ptr<double>(), mean.data_ptr<double>() + mean.numel());
    out.log_std.assign(ls.data_ptr<double>(), ls.data_ptr<double>() + ls.numel());
    out.value = nets_->value(x).item<double>();
    return out;
  }
  std::vector<double> predict(const std::vector<std::vector<double>>& history,
                              double next_start_s) const override {
    if (!has_predictor_ || history.empty()) return {};
    torch::NoGradGuard guard;
    PredictorEncoding e = encodePredictorInput(history, next_start_s);
    const torch::Tensor x =
        torch::from_blob(e.input.data(), {1, static_cast<long>(e.input.size())}, torch::kFloat32);
    const torch::Tensor y = nets_->predict(x).squeeze(0).to(torch::kFloat64).contiguous();
    std::vector<double> out(e.scale.size());
    for (size_t r = 0; r < out.size(); ++r)
      out[r] = decodePrediction(y.data_ptr<double>()[r], e.scale[r]);
    return out;
  }
  const nlohmann::json& meta() const override { return meta_; }

 private:
  mutable FleetNets nets_;  // forward passes are not const in LibTorch
  nlohmann::json meta_;
  bool has_predictor_;
};

}  // namespace

std::shared_ptr<const FleetActor> makeFleetActor(FleetNets nets, nlohmann::json meta,
                                                 bool has_predictor) {
  return std::make_shared<TorchFleetActor>(std::move(nets), std::move(meta), has_predictor);
}

}  // namespace doppler::fleet::learn

namespace doppler::fleet::learn {
bool restoreFleetOptimizer(const std::string& path, torch::optim::Optimizer& optimizer) {
  nlohmann::json meta;
  torch::serialize::InputArchive archive = openArchive(path, &meta);
  torch::serialize::InputArchive opt;
  try {
    if (!archive.try_read("optimizer", opt)) return false;
    optimizer.load(opt);
  } catch (const c10::Error& e) {
    throw InputError(path, "optimizer",
                     std::string("damaged checkpoint: ") + e.what_without_backtrace());
  } catch (const std::exception&) {
    throw InputError(path, "optimizer", "damaged checkpoint (its archive cannot be parsed)");
  }
  return true;
}
}  // namespace doppler::fleet::learn

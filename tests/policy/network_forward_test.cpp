// The plain forward pass (network_forward.h) against LibTorch's (Policy::scores): the same
// scores to float rounding and the same greedy placements, for random and for the shipped
// weights; and the weights file: a round trip, and every kind of damage refused with the field.
#include "core/policy/network_forward.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>

#include "core/common/input_error.h"
#include "core/graph/generators.h"
#include "core/policy/policy.h"
#include "core/policy/rollout.h"
#include "core/sim/cost_table.h"
#include "tests/support/temp_dir.h"

namespace doppler::policy {
namespace {

std::string tempPath(const std::string& name) {
  static const doppler::testing::TempDir dir("doppler_network_forward");
  return dir.path(name);
}

NetworkWeights plainCopy(const Policy& p) {
  return weightsFromParameters(p.config(), p.parameters(), nlohmann::json::object(), "policy");
}

// Largest |a - b| over the largest |a|: the two sides run the same products on the same BLAS,
// with their own exp and tanh, so they agree to a few float roundings.
double relativeGap(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double gap = 0, scale = 1e-6;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    gap = std::max(gap, static_cast<double>(std::abs(a[i] - b[i])));
    scale = std::max(scale, static_cast<double>(std::abs(a[i])));
  }
  return gap / scale;
}

void expectSameScores(const PolicyScores& t, const PolicyScores& p) {
  EXPECT_LT(relativeGap(t.sel, p.sel), 1e-4);
  EXPECT_LT(relativeGap(t.node, p.node), 1e-4);
  EXPECT_LT(relativeGap(t.member, p.member), 1e-4);
  EXPECT_EQ(t.wy1, p.wy1);
  EXPECT_EQ(t.by1, p.by1);
  EXPECT_EQ(t.wy, p.wy);
  EXPECT_EQ(t.w2, p.w2);
  EXPECT_EQ(t.hh, p.hh);
  EXPECT_EQ(t.dh, p.dh);
  EXPECT_EQ(t.df, p.df);
}

struct Case {
  const char* kind;
  int devices;
};
const Case kCases[] = {{"chainmm", 4}, {"ffnn", 8}, {"llama-block", 4}, {"llama-layer", 2}};

TEST(NetworkForward, RandomWeightsGiveLibTorchsScores) {
  for (const PolicyConfig& config :
       {PolicyConfig{}, PolicyConfig{32, 3, 16, 32, 16, kDeviceFeatures}}) {
    Policy policy(config, 7);
    const NetworkWeights plain = plainCopy(policy);
    for (const Case& c : kCases) {
      const CostTable costs(generateGraph(c.kind), DeviceSet::uniform(c.devices));
      const GraphFeatures f = graphFeatures(costs);
      SCOPED_TRACE(std::string(c.kind) + " " + config.describe());
      expectSameScores(policy.scores(f), networkScores(plain, f));
    }
  }
}

TEST(NetworkForward, ShippedPolicyPlacesAsWithLibTorch) {
  const Policy shipped = Policy::load(DOPPLER_SOURCE_DIR "/resources/data/policies/general.pt");
  const NetworkWeights plain = plainCopy(shipped);
  for (const Case& c : kCases) {
    const CostTable costs(generateGraph(c.kind), DeviceSet::uniform(c.devices));
    const GraphFeatures f = graphFeatures(costs);
    SCOPED_TRACE(c.kind);
    const PolicyScores t = shipped.scores(f), p = networkScores(plain, f);
    expectSameScores(t, p);
    const EpisodeResult a = runEpisode(t, costs, f), b = runEpisode(p, costs, f);
    EXPECT_EQ(a.order, b.order);
    EXPECT_EQ(a.assignment, b.assignment);
    EXPECT_EQ(a.planned_makespan_us, b.planned_makespan_us);
  }
}

// The weights that place (`doppler place --method doppler`, the studio) are the shipped
// checkpoint's, value for value: re-export them (`doppler policy export`) whenever general.pt
// changes.
TEST(NetworkForward, ShippedWeightsAreTheShippedCheckpoints) {
  nlohmann::json meta;
  const Policy shipped =
      Policy::load(DOPPLER_SOURCE_DIR "/resources/data/policies/general.pt", &meta);
  NetworkWeights weights =
      readWeightsFile(DOPPLER_SOURCE_DIR "/resources/data/policies/general.weights");
  EXPECT_EQ(weights.config, shipped.config());
  EXPECT_EQ(weights.meta.value("exported_from", ""), "general.pt");
  weights.meta.erase("exported_from");
  EXPECT_EQ(weights.meta, meta);
  const auto params = shipped.parameters();
  const auto named = weights.named();
  ASSERT_EQ(params.size(), named.size());
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].first, named[i].name);
    EXPECT_EQ(params[i].second, *named[i].values) << named[i].name;
  }
}

TEST(NetworkForward, EmptyGraphAndMismatchedFeatures) {
  const NetworkWeights w{PolicyConfig{32, 3, 16, 32, 16}};
  EXPECT_TRUE(networkScores(w, GraphFeatures{}).sel.empty());
  const CostTable costs(generateGraph("chainmm"), DeviceSet::uniform(2));
  GraphFeatures f = graphFeatures(costs);
  f.msg_dst.back() = f.nodes;  // a message into a node that is not there
  EXPECT_THROW(networkScores(w, f), std::invalid_argument);
}

TEST(WeightsFile, RoundTripKeepsEveryValueAndTheMetadata) {
  const Policy policy(PolicyConfig{32, 3, 16, 32, 16, kDeviceFeatures}, 3);
  NetworkWeights w = plainCopy(policy);
  w.meta = {{"stage", "sim"}, {"episodes_done", 1234}};
  const std::string path = tempPath("round.weights");
  writeWeightsFile(path, w);
  EXPECT_TRUE(isWeightsFile(path));
  NetworkWeights back = readWeightsFile(path);
  EXPECT_EQ(back.config, w.config);
  EXPECT_EQ(back.meta, w.meta);
  auto a = w.named(), b = back.named();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(*a[i].values, *b[i].values) << a[i].name;
  EXPECT_EQ(back.parameterCount(), policy.parameterCount());
}

TEST(WeightsFile, PolicyParametersMustMatchTheArchitecture) {
  const Policy policy(PolicyConfig{32, 3, 16, 32, 16}, 3);
  auto params = policy.parameters();
  params.back().second.pop_back();
  EXPECT_THROW(weightsFromParameters(policy.config(), params, {}, "p"), InputError);
  params = policy.parameters();
  params.erase(params.begin());
  try {
    weightsFromParameters(policy.config(), params, {}, "p");
    FAIL() << "a missing parameter was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "in_proj.weight");
  }
}

using doppler::testing::slurp;
using doppler::testing::spit;

// The error's field for `bytes` written as a weights file ("" when it was accepted).
std::string refusal(const std::string& bytes) {
  const std::string path = tempPath("bad.weights");
  spit(path, bytes);
  try {
    readWeightsFile(path);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    return e.where().empty() ? "<file>" : e.where();
  }
  return "";
}

TEST(WeightsFile, DamageIsRefusedNamingTheField) {
  const std::string path = tempPath("good.weights");
  NetworkWeights w = plainCopy(Policy(PolicyConfig{32, 3, 16, 32, 16}, 5));
  writeWeightsFile(path, w);
  const std::string good = slurp(path);
  const size_t eol1 = good.find('\n'), eol2 = good.find('\n', eol1 + 1);
  const std::string head = good.substr(eol1 + 1, eol2 - eol1 - 1);
  const std::string body = good.substr(eol2 + 1);
  auto withHeader = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(head);
    edit(j);
    return std::string(kWeightsFormat) + "\n" + j.dump() + "\n" + body;
  };
  EXPECT_EQ(refusal(good), "");
  EXPECT_EQ(refusal("doppler-policy/1\n{}\n"), "line 1");
  EXPECT_EQ(refusal(""), "line 1");
  EXPECT_EQ(refusal("doppler-policy-weights/2\n{}\n"), "line 1");  // a newer doppler's
  EXPECT_EQ(refusal(std::string(kWeightsFormat) + "\n{\"architecture\": "), "line 2");
  EXPECT_EQ(refusal(std::string(kWeightsFormat) + "\n{nope}\n"), "line 2");
  // A number too large for a double is the JSON library's out_of_range, not a parse error.
  EXPECT_EQ(refusal(std::string(kWeightsFormat) + "\n{\"a\": 1.0e6000002}\n"), "line 2");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j.erase("architecture"); })), "architecture");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["architecture"]["hidden"] = -3; })), "hidden");
  // A number where the kind's name belongs (found by fuzz_policy_weights: the JSON library's own
  // type error ended the program) and an integer past int's range.
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["architecture"]["kind"] = 2; })),
            "architecture.kind");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["architecture"]["hidden"] = 1LL << 40; })),
            "architecture.hidden");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["meta"] = 4; })), "meta");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["tensors"].erase(0); })), "tensors");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["tensors"][2]["name"] = "edge9.weight"; })),
            "tensors[2].name");
  EXPECT_EQ(refusal(withHeader([](auto& j) { j["tensors"][2]["name"] = "in_proj.weight"; })),
            "tensors[2].name");
  EXPECT_EQ(
      refusal(withHeader([](auto& j) { j["tensors"][1]["shape"] = nlohmann::json::array({33}); })),
      "tensors[1].shape");
  EXPECT_EQ(refusal(good.substr(0, good.size() - 4)), "tensors");
  EXPECT_EQ(refusal(good + "x"), "tensors");
  std::string nan = good;
  const float q = std::nanf("");
  std::memcpy(&nan[eol2 + 1 + 8], &q, 4);
  EXPECT_EQ(refusal(nan), "tensors[0]");
  // The tensors may be listed in another order; the values follow the list.
  EXPECT_EQ(refusal(withHeader([](auto& j) { std::swap(j["tensors"][0], j["tensors"][2]); })), "");
}

// Random damage (flipped bytes, cut files, spliced headers) is refused or read, never a crash or
// a hang; a file that reads back has every tensor the architecture needs.
TEST(WeightsFile, FuzzedFilesNeverCrash) {
  const std::string path = tempPath("fuzz-source.weights");
  writeWeightsFile(path, plainCopy(Policy(PolicyConfig{32, 3, 16, 32, 16}, 9)));
  const std::string good = slurp(path);
  std::mt19937_64 rng(11);
  int refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bytes = good;
    switch (i % 4) {
      case 0:  // flip bytes, mostly in the header
        for (int k = 0; k < 3; ++k)
          bytes[rng() % std::min<size_t>(bytes.size(), 900)] ^= 1 + rng() % 255;
        break;
      case 1:
        bytes.resize(rng() % bytes.size());
        break;
      case 2:
        bytes.insert(rng() % 900, 1, static_cast<char>(rng() % 256));
        break;
      default:
        for (int k = 0; k < 8; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng() % 256);
    }
    const std::string bad = tempPath("fuzz.weights");
    spit(bad, bytes);
    try {
      NetworkWeights w = readWeightsFile(bad);
      for (const auto& t : w.named()) {
        int64_t n = 1;
        for (int64_t d : t.shape) n *= d;
        EXPECT_EQ(static_cast<int64_t>(t.values->size()), n) << t.name;
      }
    } catch (const InputError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 200);
}

}  // namespace
}  // namespace doppler::policy

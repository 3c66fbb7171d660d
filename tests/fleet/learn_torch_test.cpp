// TORTA's networks, checkpoints and trainer (LibTorch, core/fleet/learn/fleet_ppo.h): a short
// real training in the slot model, seeded, resumable and cancellable; bad checkpoints refused
// with the file named.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/common/input_error.h"
#include "core/fleet/learn/fleet_networks.h"
#include "core/fleet/learn/fleet_ppo.h"
#include "core/fleet/learn/torta_features.h"
#include "core/fleet/learn/torta_policy.h"
#include "tests/support/temp_dir.h"

namespace {

using namespace doppler::fleet::learn;
namespace fs = doppler::fleet::sim;

class FleetTrainer : public doppler::testing::TempDirTest {
 protected:
  FleetTrainRequest request(const std::string& out, int episodes) const {
    FleetTrainRequest r;
    r.scenario.topology = "abilene";
    r.scenario.slots = 24;
    r.config.episodes = episodes;
    r.config.train_seeds = 2;
    r.config.predictor_epochs = 5;
    r.config.hidden = 32;
    r.out = out;
    return r;
  }
  // The actor's outputs on a fixed observation: equal outputs, equal networks.
  static std::vector<double> probe(const FleetActor& actor) {
    std::vector<float> obs(observationSize(actor.regions()));
    for (size_t k = 0; k < obs.size(); ++k) obs[k] = 0.01f * static_cast<float>(k % 17);
    ActorOutput out = actor.act(obs);
    out.mean.push_back(out.value);
    return out.mean;
  }
};

TEST_F(FleetTrainer, TrainsWritesACheckpointAndReportsEachEpisode) {
  std::vector<std::string> phases;
  const FleetTrainResult r = trainFleetPpo(request(path("a.pt"), 3), doppler::CancelToken{},
                                           [&](const FleetTrainProgress& p) {
                                             if (phases.empty() || phases.back() != p.phase)
                                               phases.push_back(p.phase);
                                           });
  EXPECT_EQ(phases, (std::vector<std::string>{"predictor", "ppo", "done"}));
  EXPECT_EQ(r.episodes_done, 3);
  ASSERT_EQ(r.history.size(), 3u);
  for (const FleetTrainProgress& p : r.history) {
    EXPECT_GT(p.response_s, 0);
    EXPECT_GT(p.ot_response_s, 0);
    EXPECT_TRUE(std::isfinite(p.reward));
  }
  EXPECT_GT(r.predictor_accuracy, 0);
  EXPECT_LE(r.predictor_accuracy, 1);
  EXPECT_GT(r.baseline_accuracy, 0);
  const auto actor = loadFleetActor(path("a.pt"));
  EXPECT_EQ(actor->regions(), 12);
  EXPECT_EQ(actor->meta()["episodes_done"], 3);
  EXPECT_EQ(actor->meta()["topology"], "abilene");
  EXPECT_TRUE(actor->meta()["has_predictor"].get<bool>());
  // The learned predictor forecasts every region.
  const std::vector<double> f = actor->predict({{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}, 45);
  ASSERT_EQ(f.size(), 12u);
  for (double x : f) EXPECT_GE(x, 0);
}

TEST_F(FleetTrainer, IsSeededAndResumesWhereItStopped) {
  trainFleetPpo(request(path("a.pt"), 2), doppler::CancelToken{}, {});
  trainFleetPpo(request(path("b.pt"), 2), doppler::CancelToken{}, {});
  EXPECT_EQ(probe(*loadFleetActor(path("a.pt"))), probe(*loadFleetActor(path("b.pt"))));
  FleetTrainRequest other = request(path("c.pt"), 2);
  other.config.seed = 2;
  trainFleetPpo(other, doppler::CancelToken{}, {});
  EXPECT_NE(probe(*loadFleetActor(path("a.pt"))), probe(*loadFleetActor(path("c.pt"))));

  FleetTrainRequest more = request(path("a.pt"), 1);
  more.from = path("a.pt");
  const FleetTrainResult r = trainFleetPpo(more, doppler::CancelToken{}, {});
  EXPECT_EQ(r.episodes_done, 3);
  EXPECT_EQ(loadFleetActor(path("a.pt"))->meta()["episodes_done"], 3);
  EXPECT_NE(probe(*loadFleetActor(path("a.pt"))), probe(*loadFleetActor(path("b.pt"))));
}

TEST_F(FleetTrainer, CancelledRunKeepsItsCheckpoint) {
  doppler::CancelToken cancel;
  cancel.cancel();
  const FleetTrainResult r = trainFleetPpo(request(path("a.pt"), 5), cancel, {});
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.episodes_done, 0);
  EXPECT_TRUE(std::filesystem::exists(path("a.pt")));
  EXPECT_NO_THROW(loadFleetActor(path("a.pt")));
}

TEST_F(FleetTrainer, RefusesWhatIsNotAFleetCheckpointNamingTheFile) {
  const std::string text = write("notes.pt", "not a checkpoint\n");
  for (const std::string& bad : {text, path("missing.pt")}) {
    try {
      loadFleetActor(bad);
      FAIL() << bad;
    } catch (const doppler::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  trainFleetPpo(request(path("a.pt"), 1), doppler::CancelToken{}, {});
  FleetTrainRequest gabriel = request(path("g.pt"), 1);
  gabriel.scenario.topology = "gabriel";  // 25 regions; the checkpoint has abilene's 12
  gabriel.from = path("a.pt");
  EXPECT_THROW(trainFleetPpo(gabriel, doppler::CancelToken{}, {}), doppler::InputError);
}

// Metadata fields read back with a type (the safety layer's settings, the OT power weight, the
// resume counters) are checked when the checkpoint opens: a wrong type or value is refused naming
// the field, never left to end the program where it is read.
TEST_F(FleetTrainer, MetadataOfTheWrongTypeIsRefusedNamingTheField) {
  trainFleetPpo(request(path("a.pt"), 1), doppler::CancelToken{}, {});
  nlohmann::json meta;
  FleetNets nets = loadFleetCheckpoint(path("a.pt"), &meta, nullptr);
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* named;
  };
  for (const Case& c : {Case{"/config/safety_window", "four", "meta.config.safety_window"},
                        Case{"/config/safety_threshold", -1, "meta.config.safety_threshold"},
                        Case{"/config/ot_power_weight", "high", "meta.config.ot_power_weight"},
                        Case{"/episodes_done", 2.5, "meta.episodes_done"},
                        Case{"/has_predictor", "yes", "meta.has_predictor"},
                        Case{"/topology", 7, "meta.topology"}, Case{"/config", 3, "meta.config"}}) {
    nlohmann::json bad = meta;
    bad[nlohmann::json::json_pointer(c.pointer)] = c.value;
    saveFleetCheckpoint(path("bad.pt"), nets, bad, nullptr);
    try {
      loadFleetActor(path("bad.pt"));
      ADD_FAILURE() << c.pointer;
    } catch (const doppler::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.named), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path("bad.pt")), std::string::npos) << e.what();
    }
  }
  saveFleetCheckpoint(path("good.pt"), nets, meta, nullptr);
  EXPECT_NO_THROW(loadFleetActor(path("good.pt")));
}

TEST_F(FleetTrainer, DamagedCheckpointsAreRefusedNeverCrash) {
  trainFleetPpo(request(path("a.pt"), 1), doppler::CancelToken{}, {});
  const std::string good = doppler::testing::slurp(path("a.pt"));
  ASSERT_FALSE(good.empty());
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  int refused = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::string bytes = good;
    if (trial % 4 == 0) {
      bytes.resize(next() % bytes.size());  // truncated
    } else {
      for (int k = 0; k < 1 + trial; ++k) bytes[next() % bytes.size()] ^= static_cast<char>(0xff);
    }
    const std::string file = write("damaged.pt", bytes);
    try {
      loadFleetActor(file);  // a flip in padding can leave it readable
    } catch (const doppler::InputError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(refused, 10);
}

}  // namespace

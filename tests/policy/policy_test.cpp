// The dual policy through its plain interface: valid decisions and distributions, device masks,
// the heuristic components, any graph and device count, checkpoints, seeds, and the BLAS that
// LibTorch runs on.
#include "core/policy/policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/common/input_error.h"
#include "core/graph/generators.h"
#include "core/graph/graph_io.h"
#include "core/heuristics/list_scheduler.h"
#include "core/policy/features.h"
#include "core/sim/cost_table.h"
#include "tests/support/data.h"
#include "tests/support/temp_dir.h"

namespace doppler::policy {
namespace {

namespace fs = std::filesystem;

const PolicyConfig kSmall{32, 3, 16, 32, 16};

// The repository's own Doppler-format graphs (tests/data).
DataflowGraph testGraph(const std::string& file) {
  return doppler::testing::readTestGraph(file);
}

std::string tempPath(const std::string& name) {
  static const doppler::testing::TempDir dir("doppler_policy");
  return dir.path(name);
}

// Every step chooses from exactly the ready set, with distributions that sum to one.
void expectValidEpisode(const CostTable& c, const EpisodeResult& r) {
  const int n = c.nodes(), D = c.devices();
  ASSERT_EQ(static_cast<int>(r.steps.size()), n);
  ASSERT_EQ(static_cast<int>(r.order.size()), n);
  std::vector<char> assigned(n, 0);
  for (int t = 0; t < n; ++t) {
    const EpisodeStep& s = r.steps[t];
    std::vector<int> ready;
    for (int v = 0; v < n; ++v) {
      if (assigned[v]) continue;
      bool ok = true;
      for (const int* e = c.inBegin(v); e != c.inEnd(v); ++e) ok = ok && assigned[c.edgeSrc(*e)];
      if (ok) ready.push_back(v);
    }
    std::vector<int> cands = s.candidates;
    std::sort(cands.begin(), cands.end());
    EXPECT_EQ(cands, ready) << "step " << t << ": candidates are not the ready set";
    EXPECT_TRUE(std::binary_search(ready.begin(), ready.end(), s.node))
        << "step " << t << " chose a non-ready node";
    ASSERT_EQ(s.sel_probs.size(), s.candidates.size());
    EXPECT_NEAR(std::accumulate(s.sel_probs.begin(), s.sel_probs.end(), 0.0), 1.0, 1e-5)
        << "step " << t;
    ASSERT_EQ(static_cast<int>(s.plc_probs.size()), D);
    EXPECT_NEAR(std::accumulate(s.plc_probs.begin(), s.plc_probs.end(), 0.0), 1.0, 1e-5)
        << "step " << t;
    for (float p : s.sel_probs) EXPECT_TRUE(p >= 0 && p <= 1);
    for (float p : s.plc_probs) EXPECT_TRUE(p >= 0 && p <= 1);
    EXPECT_EQ(r.order[t], s.node);
    ASSERT_GE(s.device, 0);
    ASSERT_LT(s.device, D);
    EXPECT_EQ(r.assignment[s.node], s.device);
    assigned[s.node] = 1;
  }
}

TEST(Policy, ProbabilitiesSumToOneAndOnlyReadyNodesAreChosen) {
  const DataflowGraph g = testGraph("ffnn_60nodes.txt");
  const CostTable c(g, DeviceSet::uniform(4));
  Policy p(kSmall, 3);
  for (DecisionMode mode :
       {DecisionMode::Greedy, DecisionMode::Sample, DecisionMode::EpsilonGreedy}) {
    EpisodeOptions o;
    o.mode = mode;
    o.epsilon = 0.3;
    o.seed = 11;
    expectValidEpisode(c, p.run(c, o));
  }
}

TEST(Policy, MaskedDevicesAreNeverChosen) {
  const DataflowGraph g = testGraph("chain_mm_40nodes.txt");
  const int D = 4;
  const CostTable c(g, DeviceSet::uniform(D));
  Policy p(kSmall, 5);
  EpisodeOptions o;
  o.allowed.assign(static_cast<size_t>(c.nodes()) * D, 1);
  for (int v = 0; v < c.nodes(); ++v)
    for (int d = 0; d < D; ++d)
      if ((v + d) % 3 == 0 && d != v % D) o.allowed[static_cast<size_t>(v) * D + d] = 0;
  for (DecisionMode mode :
       {DecisionMode::Greedy, DecisionMode::Sample, DecisionMode::EpsilonGreedy}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      o.mode = mode;
      o.epsilon = 0.5;
      o.seed = seed;
      const EpisodeResult r = p.run(c, o);
      expectValidEpisode(c, r);
      for (const EpisodeStep& s : r.steps) {
        EXPECT_TRUE(o.allowed[static_cast<size_t>(s.node) * D + s.device])
            << "masked device chosen";
        for (int d = 0; d < D; ++d) {
          if (!o.allowed[static_cast<size_t>(s.node) * D + d]) {
            EXPECT_EQ(s.plc_probs[d], 0.0f);
          }
        }
      }
    }
  }
  // The heuristic device rule honours the mask too.
  o.plc = Component::Heuristic;
  for (const EpisodeStep& s : p.run(c, o).steps)
    EXPECT_TRUE(o.allowed[static_cast<size_t>(s.node) * D + s.device]);
  // A node without any allowed device, and a mask of the wrong size, are input errors.
  o.plc = Component::Learned;
  std::fill(o.allowed.begin(), o.allowed.begin() + D, uint8_t{0});
  EXPECT_THROW(p.run(c, o), InputError);
  o.allowed.resize(3);
  EXPECT_THROW(p.run(c, o), InputError);
}

TEST(Policy, HeuristicHalvesReproduceCriticalPath) {
  for (const auto& t : doppler::testing::testGraphs()) {
    const std::string& file = t.file;
    const DataflowGraph g = testGraph(file);
    const CostTable c(g, DeviceSet::uniform(4));
    const Placement cp = listSchedule(c, ListConfig{});
    Policy p(kSmall, 1);
    EpisodeOptions o;
    o.sel = o.plc = Component::Heuristic;
    const EpisodeResult r = p.run(c, o);
    EXPECT_EQ(r.assignment, cp.assignment) << file;
    EXPECT_EQ(r.order, cp.order) << file;
    EXPECT_DOUBLE_EQ(r.planned_makespan_us, cp.planned->makespan_us) << file;
    // Ablation halves: each still yields a valid episode.
    o.sel = Component::Learned;
    expectValidEpisode(c, p.run(c, o));
    o.sel = Component::Heuristic;
    o.plc = Component::Learned;
    const EpisodeResult h = p.run(c, o);
    expectValidEpisode(c, h);
    EXPECT_EQ(h.order, cp.order)
        << "the heuristic order does not depend on PLC here: ties by index";
  }
}

TEST(Policy, RunsOnAnyGraphAndDeviceCount) {
  Policy p(kSmall, 2);
  for (int D : {1, 2, 3, 8}) {
    const DataflowGraph g = generateGraph("ffnn");
    const CostTable c(g, DeviceSet::uniform(D));
    expectValidEpisode(c, p.run(c));
  }
  const DataflowGraph g = testGraph("ffnn_60nodes.txt");
  const CostTable c(g, DeviceSet::uniform(8));
  expectValidEpisode(c, p.run(c));
  // A graph without edges and a single node.
  DataflowGraph lone;
  lone.addNode(Node{"a", "op", 0, 0, {5}});
  lone.addNode(Node{"b", "op", 0, 0, {7}});
  const CostTable lc(lone, DeviceSet::uniform(2));
  expectValidEpisode(lc, p.run(lc));
}

// The paper's graphs on their device counts (4, and 8 for the last two).
TEST(Policy, RunsOnThePaperGraphs) {
  const auto graphs = doppler::testing::readPaperGraphs();
  if (graphs.empty()) return;
  Policy p(kSmall, 2);
  for (const auto& [name, g] : graphs) {
    const CostTable c(g, DeviceSet::uniform(name.rfind("8gpu", 0) == 0 ? 8 : 4));
    expectValidEpisode(c, p.run(c));
  }
}

TEST(Policy, GreedyIsDeterministicAndSeedsReproduce) {
  const DataflowGraph g = testGraph("chain_mm_40nodes.txt");
  const CostTable c(g, DeviceSet::uniform(4));
  EXPECT_EQ(Policy(kSmall, 9).parameters(), Policy(kSmall, 9).parameters());
  EXPECT_NE(Policy(kSmall, 9).parameters(), Policy(kSmall, 10).parameters());
  // Initial weights do not depend on the thread count (no BLAS or LAPACK call in them) and are
  // orthogonal: in_proj's columns are orthonormal.
  setComputeThreads(2);
  const auto twoThreads = Policy(kSmall, 9).parameters();
  setComputeThreads(1);
  EXPECT_EQ(twoThreads, Policy(kSmall, 9).parameters());
  for (const auto& [name, w] : twoThreads) {
    if (name != "in_proj.weight") continue;
    const int rows = kSmall.hidden, cols = kNodeFeatures;
    for (int a = 0; a < cols; ++a)
      for (int b = 0; b < cols; ++b) {
        double dot = 0;
        for (int r = 0; r < rows; ++r) dot += w[r * cols + a] * w[r * cols + b];
        EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-5);
      }
  }
  Policy p(kSmall, 9);
  EpisodeOptions o;
  o.seed = 1;
  const EpisodeResult a = p.run(c, o);
  o.seed = 2;
  EXPECT_EQ(a.assignment, p.run(c, o).assignment) << "greedy ignores the seed";
  o.mode = DecisionMode::Sample;
  const EpisodeResult s1 = p.run(c, o), s2 = p.run(c, o);
  EXPECT_EQ(s1.assignment, s2.assignment);
  EXPECT_EQ(s1.order, s2.order);
}

TEST(Policy, CheckpointRoundTripGivesIdenticalGreedyDecisions) {
  const DataflowGraph g = testGraph("diamonds_12nodes.txt");
  const CostTable c(g, DeviceSet::uniform(4));
  Policy p(PolicyConfig{48, 2, 8, 24, 8}, 4);
  const std::string path = tempPath("roundtrip.pt");
  p.save(path, {{"note", "test"}});
  nlohmann::json meta;
  Policy q = Policy::load(path, &meta);
  EXPECT_EQ(meta.value("note", ""), "test");
  EXPECT_EQ(q.config(), p.config());
  EXPECT_EQ(q.parameters(), p.parameters());
  const EpisodeResult a = p.run(c), b = q.run(c);
  EXPECT_EQ(a.assignment, b.assignment);
  EXPECT_EQ(a.order, b.order);
  for (size_t t = 0; t < a.steps.size(); ++t) {
    EXPECT_EQ(a.steps[t].sel_probs, b.steps[t].sel_probs);
    EXPECT_EQ(a.steps[t].plc_probs, b.steps[t].plc_probs);
  }
  // loadWeights into a policy of the same architecture gives the same weights.
  Policy r(PolicyConfig{48, 2, 8, 24, 8}, 99);
  r.loadWeights(path);
  EXPECT_EQ(r.parameters(), p.parameters());
  fs::remove(path);
}

TEST(Policy, CheckpointOfAnotherArchitectureIsRefused) {
  const std::string path = tempPath("arch.pt");
  Policy(PolicyConfig{16, 2, 8, 16, 8}, 1).save(path);
  Policy other(PolicyConfig{32, 2, 8, 16, 8}, 1);
  try {
    other.loadWeights(path);
    FAIL() << "a checkpoint of another architecture was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("another architecture"), std::string::npos) << what;
    EXPECT_NE(what.find("hidden=16"), std::string::npos) << what;
    EXPECT_NE(what.find("hidden=32"), std::string::npos) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
  }
  // Not a checkpoint at all, and a missing file.
  const std::string junk = tempPath("junk.pt");
  std::ofstream(junk) << "not a checkpoint";
  try {
    Policy::load(junk);
    FAIL() << "junk accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a Doppler policy checkpoint"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Policy::load(tempPath("missing.pt")), InputError);
  fs::remove(path);
  fs::remove(junk);
}

// The metadata a trainer reads back when it resumes is checked when the checkpoint opens: a field
// of the wrong type is refused naming it (and the entry, meta), not left to end the program.
TEST(Policy, CheckpointMetadataOfTheWrongTypeIsRefusedNamingTheField) {
  const std::string path = tempPath("meta.pt");
  const Policy p(PolicyConfig{16, 2, 8, 16, 8}, 1);
  for (const auto& [meta, field] :
       {std::pair{nlohmann::json{{"episodes_done", "many"}}, "meta.episodes_done"},
        {nlohmann::json{{"stage", 2}}, "meta.stage"},
        {nlohmann::json{{"best_assignment", {0, -1}}}, "meta.best_assignment"},
        {nlohmann::json{{"best_order", "0 1"}}, "meta.best_order"},
        {nlohmann::json{{"baseline", {{"mean", "x"}}}}, "meta.baseline.mean"},
        {nlohmann::json{{"general", 1}}, "meta.general"}}) {
    p.save(path, meta);
    try {
      Policy::readMeta(path);
      ADD_FAILURE() << meta.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.where(), "meta") << e.what();
      EXPECT_NE(e.problem().find(field), std::string::npos) << e.what();
    }
  }
  p.save(path, {{"episodes_done", 3}, {"best_assignment", {0, 1}}, {"baseline", {{"count", 2}}}});
  EXPECT_EQ(Policy::readMeta(path)["episodes_done"], 3);
  fs::remove(path);
}

// Widening an architecture 2 policy to the join look-ahead (architecture 3) keeps its decisions:
// the added weights start at zero. The wide one saves and loads as version 3, and the narrow one
// stays version 2 (the shipped policy's).
TEST(Policy, AWidenedPolicyDecidesAsTheNarrowOne) {
  const DataflowGraph g = testGraph("diamonds_12nodes.txt");
  const CostTable c(g, DeviceSet::uniform(4));
  Policy narrow(kSmall, 7);
  ASSERT_EQ(narrow.config().device_features, kDeviceFeaturesV2);
  ASSERT_EQ(narrow.config().toJson()["version"], 2);
  const Policy wide = narrow.widened(kDeviceFeatures);
  EXPECT_EQ(wide.config().device_features, kDeviceFeatures);
  EXPECT_EQ(wide.config().toJson()["version"], kArchitectureVersion);
  EXPECT_EQ(wide.parameterCount(),
            narrow.parameterCount() + (kDeviceFeatures - kDeviceFeaturesV2) * kSmall.device_hidden);
  const EpisodeResult a = narrow.run(c), b = wide.run(c);
  EXPECT_EQ(a.assignment, b.assignment);
  EXPECT_EQ(a.order, b.order);
  for (size_t t = 0; t < a.steps.size(); ++t) EXPECT_EQ(a.steps[t].plc_probs, b.steps[t].plc_probs);

  const std::string path = tempPath("wide.pt");
  wide.save(path);
  PolicyConfig stored;
  Policy::readMeta(path, &stored);
  EXPECT_EQ(stored, wide.config());
  const Policy back = Policy::load(path);
  EXPECT_EQ(back.parameters(), wide.parameters());
  // Loading it into the narrow architecture is refused by name.
  try {
    narrow.loadWeights(path);
    FAIL() << "a wide checkpoint loaded into a narrow policy";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("device_features=18"), std::string::npos) << e.what();
  }
  EXPECT_THROW(wide.widened(kDeviceFeaturesV2), std::invalid_argument);
  fs::remove(path);
}

TEST(Policy, ConfigurationIsValidatedAndDescribed) {
  EXPECT_THROW(Policy(PolicyConfig{0, 6, 32, 64, 32}), InputError);
  EXPECT_THROW(PolicyConfig::fromJson({{"kind", "something-else"}}), InputError);
  nlohmann::json j = PolicyConfig{}.toJson();
  EXPECT_EQ(PolicyConfig::fromJson(j), PolicyConfig{});
  j["version"] = 999;
  EXPECT_THROW(PolicyConfig::fromJson(j), InputError);
  // Version 2 reads 16 device features, version 3 18; any other pairing is refused.
  nlohmann::json v3 = PolicyConfig{}.toJson();
  v3["version"] = 3;
  EXPECT_THROW(PolicyConfig::fromJson(v3), InputError);
  v3["device_features"] = 18;
  EXPECT_EQ(PolicyConfig::fromJson(v3).device_features, 18);
  PolicyConfig bad;
  bad.device_features = 17;
  EXPECT_THROW(bad.validate(), InputError);
  EXPECT_GT(Policy().parameterCount(), 100000);
}

TEST(Policy, FeaturesAreNormalisedPerGraph) {
  const DataflowGraph g = testGraph("ffnn_60nodes.txt");
  const CostTable c(g, DeviceSet::uniform(4));
  const GraphFeatures f = graphFeatures(c, "ffnn");
  ASSERT_EQ(f.x.size(), static_cast<size_t>(c.nodes()) * kNodeFeatures);
  for (int col = 0; col < 10; col += 2) {  // z-scored columns: mean 0
    double mean = 0;
    for (int v = 0; v < c.nodes(); ++v) mean += f.x[static_cast<size_t>(v) * kNodeFeatures + col];
    EXPECT_NEAR(mean / c.nodes(), 0.0, 1e-4) << "column " << col;
  }
  // FFNN repeats identical blocks: the structural columns alone leave nodes indistinguishable,
  // the program-order columns tell every node apart.
  auto row = [&](int v, int cols) {
    const float* r = f.x.data() + static_cast<size_t>(v) * kNodeFeatures;
    return std::vector<float>(r, r + cols);
  };
  int sameStructure = 0;
  for (int v = 0; v < c.nodes(); ++v)
    for (int u = 0; u < v; ++u) {
      sameStructure += row(u, 10) == row(v, 10);
      EXPECT_NE(row(u, kNodeFeatures), row(v, kNodeFeatures)) << "nodes " << u << ", " << v;
    }
  EXPECT_GT(sameStructure, 0);
  EXPECT_EQ(f.msg_src.size(), 2u * c.edges());
  EXPECT_EQ(f.fingerprint, fingerprint(c, "ffnn"));
  EXPECT_NE(f.fingerprint, fingerprint(CostTable(g, DeviceSet::uniform(3)), "ffnn"));
  // Every node's longest path to an exit starts at the node and ends at an exit.
  for (size_t k = 0; k < f.bpath_node.size(); ++k) {
    const int member = static_cast<int>(f.bpath_member[k]);
    if (k == 0 || f.bpath_node[k] != f.bpath_node[k - 1]) {
      EXPECT_EQ(f.bpath_member[k], f.bpath_node[k]);
    }
    if (k + 1 == f.bpath_node.size() || f.bpath_node[k] != f.bpath_node[k + 1]) {
      EXPECT_EQ(c.outEnd(member) - c.outBegin(member), 0);
    }
  }
}

TEST(Policy, LibTorchMultipliesOnOpenBlas) {
  const std::string blas = loadedBlasLibrary();
  EXPECT_NE(blas.find("openblas"), std::string::npos)
      << "LibTorch's BLAS is '" << blas
      << "', not OpenBLAS: install libopenblas0-pthread (scripts/install-deps.sh); the reference "
         "BLAS is ~20x slower";
}

}  // namespace
}  // namespace doppler::policy
